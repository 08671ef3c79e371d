/** `mikroOrmOptions()`: MikroORM options carrying koa-model-api's naming rule and metadata hook. */
import type { IDatabaseDriver, Options } from '@mikro-orm/core';
import { applyModelConventions } from './conventions.js';
import { PluralTableNamingStrategy } from './naming-strategy.js';
import { type GuardedPool, guardPool } from './pool-guard.js';

/**
 * Adds koa-model-api's conventions to MikroORM options for users who build `MikroORM` themselves:
 * the plural table naming strategy (unless you pass your own `namingStrategy`), a
 * `discovery.onMetadata` hook for `__tablename__` and mixin columns (your own hook runs after it),
 * and on PostgreSQL a watch on each connection pool (pool-guard.ts; your own `onPoolCreated` runs too).
 * @example
 * const orm = await MikroORM.init(mikroOrmOptions({ driver: SqliteDriver, dbName: 'app.db', entities: [User, Post] }));
 * const adapter = new MikroOrmAdapter(orm);
 */
export function mikroOrmOptions<D extends IDatabaseDriver = IDatabaseDriver>(
  options: Partial<Options<D>>,
): Partial<Options<D>> {
  const discovery = options.discovery ?? {};
  const ownHook = discovery.onMetadata;
  return {
    ...options,
    ...(poolGuardOptions(options) as Partial<Options<D>>),
    namingStrategy: options.namingStrategy ?? PluralTableNamingStrategy,
    discovery: {
      ...discovery,
      onMetadata: (meta, platform) => {
        applyModelConventions(meta);
        return ownHook?.(meta, platform);
      },
    },
  };
}

/** Whether MikroORM options are for PostgreSQL: its driver, or else a `postgres://` URL. */
export function usesPostgres<D extends IDatabaseDriver>(options: Partial<Options<D>>): boolean {
  const driver = options.driver as { name?: string } | undefined;
  // Without a driver, `MikroORM` of @mikro-orm/postgresql sets its own: the URL tells.
  return driver === undefined
    ? /^postgres(ql)?:/.test(String(options.clientUrl ?? ''))
    : driver.name === 'PostgreSqlDriver';
}

/** A pool factory's options of the `pg` driver, with MikroORM's hook on each pool it makes. */
type PoolOptions = Record<string, unknown> & { onPoolCreated?: (pool: GuardedPool) => unknown };

/**
 * `driverOptions` with `onPoolCreated` watching each pool MikroORM makes (the primary's, each
 * replica's, again after a reconnect), on PostgreSQL only: other drivers would pass the unknown
 * option on to their client. Options that bring a Kysely instance or dialect are left as they are.
 */
function poolGuardOptions<D extends IDatabaseDriver>(
  options: Partial<Options<D>>,
): { driverOptions?: PoolOptions } {
  if (!usesPostgres(options)) return {};
  const given = options.driverOptions as unknown;
  if (
    given !== undefined &&
    (typeof given !== 'object' || given === null || 'createDriver' in given || 'executeQuery' in given)
  )
    return {};
  const own = given as PoolOptions | undefined;
  const driverOptions: PoolOptions = {
    ...own,
    onPoolCreated: (pool: GuardedPool) => {
      guardPool(pool);
      return own?.onPoolCreated?.(pool);
    },
  };
  return { driverOptions };
}
