/**
 * The release step as a script (`node dist/release.js`): applies the pending migrations to the
 * PostgreSQL database at DATABASE_URL, before the new instances start.
 */
import { MikroORM } from '@mikro-orm/core';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Note, User } from '../getting-started/entities.js';
import { applyMigrations } from './migrate.js';
import { migrationsConfig } from './migrations-config.js';

const clientUrl = process.env.DATABASE_URL;
if (clientUrl === undefined) throw new Error('Set DATABASE_URL to the database to migrate.');
const orm = await MikroORM.init(
  migrationsConfig({ driver: PostgreSqlDriver, clientUrl }, [User, Note], 'migrations'),
);
try {
  console.log('applied:', await applyMigrations(orm));
} finally {
  await orm.close();
}
