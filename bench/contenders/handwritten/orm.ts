/** Opens MikroORM 7 on the benchmark database with the driver the URL names. */
import type { EntitySchema, MikroORM } from '@mikro-orm/core';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { POOL_MAX, sqliteFile } from '../shared/env.js';
import { Post, Tag, User } from './entities.js';

/** Initialises the ORM for `sqlite:<file>` or `postgres://…` (plus the route sweep's models); the schema already exists (the runner seeds it). */
export async function openOrm(url: string, extra: readonly EntitySchema[] = []): Promise<MikroORM> {
  const common = {
    entities: [User, Post, Tag, ...extra],
    metadataProvider: ReflectMetadataProvider,
    debug: false,
  };
  const file = sqliteFile(url);
  if (file !== undefined) {
    const { MikroORM: SqliteOrm } = await import('@mikro-orm/sqlite');
    return (await SqliteOrm.init({ ...common, dbName: file })) as unknown as MikroORM;
  }
  const { MikroORM: PostgresOrm } = await import('@mikro-orm/postgresql');
  return (await PostgresOrm.init({
    ...common,
    clientUrl: url,
    pool: { max: POOL_MAX },
  })) as unknown as MikroORM;
}
