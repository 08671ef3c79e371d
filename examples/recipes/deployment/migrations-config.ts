/**
 * MikroORM options for schema migrations: the service's tables (koa-model-api's naming rule and
 * `AuthMixin`'s columns come from `mikroOrmOptions()`) plus MikroORM's `Migrator`.
 */
import type { Options } from '@mikro-orm/core';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { Migrator } from '@mikro-orm/migrations';
import { mikroOrmOptions } from '../../../adapters/mikro-orm/index.js';

/** Which database: a driver class with `dbName` (SQLite file) or `clientUrl` (servers). */
export type DatabaseOptions = Pick<Options, 'driver' | 'dbName' | 'clientUrl'>;

/** The options for `MikroORM.init()`, with migrations written to and read from `migrationsPath`. */
export function migrationsConfig(
  database: DatabaseOptions,
  entities: Options['entities'],
  migrationsPath: string,
) {
  return mikroOrmOptions({
    ...database,
    entities,
    metadataProvider: ReflectMetadataProvider, // legacy decorators read property types from reflect-metadata
    forceUtcTimezone: true, // as MikroOrmAdapter.connect() does: datetimes stored in UTC
    extensions: [Migrator],
    migrations: {
      path: migrationsPath,
      // CommonJS files load on plain Node whatever "type" package.json sets: no TypeScript at run time.
      emit: 'cjs',
    },
  });
}
