/** `mikroOrmOptions()`: MikroORM options carrying koa-model-api's naming rule and metadata hook. */
import type { IDatabaseDriver, Options } from '@mikro-orm/core';
import { applyModelConventions } from './conventions.js';
import { PluralTableNamingStrategy } from './naming-strategy.js';

/**
 * Adds koa-model-api's conventions to MikroORM options for users who build `MikroORM` themselves:
 * the plural table naming strategy (unless you pass your own `namingStrategy`) and a
 * `discovery.onMetadata` hook for `__tablename__` and mixin columns (your own hook runs after it).
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
