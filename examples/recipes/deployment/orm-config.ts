/**
 * One MikroORM configuration for the service and for the MikroORM CLI (migrations), so that both
 * see the same tables: `mikroOrmOptions()` adds koa-model-api's naming rule and mixin columns.
 */
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { mikroOrmOptions } from '../../../adapters/mikro-orm/index.js';
import { Note, User } from '../getting-started/entities.js';

/** The MikroORM options for the PostgreSQL database at `url`. */
export function ormConfig(url: string) {
  return mikroOrmOptions({
    driver: PostgreSqlDriver,
    clientUrl: url,
    entities: [User, Note],
    metadataProvider: ReflectMetadataProvider, // legacy decorators read property types from reflect-metadata
    forceUtcTimezone: true, // as MikroOrmAdapter.connect() does: datetimes stored in UTC
    pool: { min: 0, max: 10 }, // per instance: instances × max must stay below max_connections
  });
}
