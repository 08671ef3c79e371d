/** The release step: write a migration for what changed in the entities, and apply pending ones. */
import type { MikroORM } from '@mikro-orm/core';

/**
 * Writes a migration of the difference between the entities and the last migration's snapshot
 * (the initial migration when there is none yet); the file name, or undefined when nothing changed.
 * The name goes after the timestamp (`Migration20261124093000_add_pinned.cjs`): two migrations
 * created within one second would otherwise get the same file name.
 */
export async function createMigration(orm: MikroORM, name: string): Promise<string | undefined> {
  const executed = await orm.migrator.getExecuted();
  const pending = await orm.migrator.getPending();
  const initial = executed.length === 0 && pending.length === 0;
  const result = await orm.migrator.create(undefined, false, initial, name);
  return result.fileName === '' ? undefined : result.fileName;
}

/**
 * Applies every pending migration, all in one transaction where DDL is transactional (PostgreSQL,
 * SQLite; MariaDB and MySQL commit each DDL statement); the names of those applied.
 */
export async function applyMigrations(orm: MikroORM): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}
