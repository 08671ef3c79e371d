/**
 * The migrations recipe (docs/deployment.md#migrations) on SQLite, PostgreSQL and MariaDB, each in
 * a fresh database and a fresh migrations folder: the initial migration creates the tables with
 * every column `AuthMixin` adds, the app serves on them without touching the schema, and a column
 * added to a model becomes a second migration that keeps the rows.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MikroORM } from '@mikro-orm/core';
import { MariaDbDriver } from '@mikro-orm/mariadb';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { DatabaseSchema, type SqlEntityManager } from '@mikro-orm/sql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { applyMigrations, createMigration } from '../../../examples/recipes/deployment/migrate.js';
import { createMigratedApp } from '../../../examples/recipes/deployment/migrated-app.js';
import {
  type DatabaseOptions,
  migrationsConfig,
} from '../../../examples/recipes/deployment/migrations-config.js';
import { Note as NoteV2 } from '../../../examples/recipes/deployment/notes-v2.js';
import { Note, User } from '../../../examples/recipes/getting-started/entities.js';
import { AUTH_MIXIN_FIELDS } from '../../../lib/auth/index.js';
import type { Application, ModelClass } from '../../../lib/index.js';
import {
  createTestDatabase,
  type DatabaseTarget,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { repoRoot } from '../../support/paths.js';

const SECRET = 'a-migrations-test-secret-that-is-long-enough';
const CREDENTIALS = { username: 'ada', password: 'correct horse battery' };
const TARGETS: readonly DatabaseTarget[] = ['sqlite-file', 'postgresql', 'mariadb'];

/** What a user passes for each database: the driver and where the database is. */
function databaseOptions(db: TestDatabase): DatabaseOptions {
  if (db.target === 'postgresql') return { driver: PostgreSqlDriver, clientUrl: db.url };
  if (db.target === 'mariadb') return { driver: MariaDbDriver, clientUrl: db.url };
  return { driver: SqliteDriver, dbName: db.url.replace(/^sqlite:/, '') };
}

/** Logs in as the user the tests register; the Authorization header value. */
async function login(server: TestServer): Promise<string> {
  const response = await server.request('/login', { method: 'POST', json: CREDENTIALS });
  assert.equal(response.status, 200, await response.clone().text());
  return `Bearer ${((await response.json()) as { access_token: string }).access_token}`;
}

/** The tables and their columns as the database reports them. */
async function introspect(orm: MikroORM): Promise<Map<string, string[]>> {
  const em = orm.em as SqlEntityManager;
  const schema = await DatabaseSchema.create(em.getConnection(), em.getPlatform(), orm.config);
  return new Map(schema.getTables().map((table) => [table.name, table.getColumns().map((c) => c.name)]));
}

// Every probe before the first describe: --test-force-exit ends the file once the suites
// registered so far are done, so a describe registered after an await would never run.
const availability = await Promise.all(TARGETS.map((target) => requireTarget(target)));

for (const [index, target] of TARGETS.entries()) {
  describe(`migrations on ${target}`, availability[index] ?? {}, () => {
    let db: TestDatabase;
    let folder: string;
    // The SQL sits in template literals, its identifier quotes escaped: match it without the escapes.
    const migrationCode = async (file: string | undefined) =>
      (await readFile(join(folder, file ?? ''), 'utf8')).replaceAll('\\`', '`');
    const init = (entities: ModelClass[]) =>
      // The recipe's options; the test only keeps the migrator's progress lines out of its output.
      MikroORM.init({ ...migrationsConfig(databaseOptions(db), entities, folder), logger: () => {} });

    /** Serves the recipe's app on a new ORM over the migrated tables, for the length of `run`. */
    const withApp = async (
      entities: ModelClass[],
      note: ModelClass,
      run: (server: TestServer) => Promise<void>,
    ) => {
      const orm = await init(entities);
      let app: Application;
      try {
        app = createMigratedApp(orm, note, SECRET);
      } catch (error) {
        await orm.close();
        throw error;
      }
      const server = await serve(app.callback());
      try {
        await run(server);
      } finally {
        await server.close();
        await app.close();
      }
    };

    before(async () => {
      db = await createTestDatabase(target);
      // Inside the repository: the generated files require('@mikro-orm/migrations') from its node_modules.
      await mkdir(join(repoRoot(), '.tmp'), { recursive: true });
      folder = await mkdtemp(join(repoRoot(), '.tmp', 'migrations-'));
    });
    after(async () => {
      await rm(folder, { recursive: true, force: true });
      await db?.drop();
    });

    it('creates the initial migration as a CommonJS file with the users and notes tables', async () => {
      const orm = await init([User, Note]);
      try {
        const file = await createMigration(orm, 'initial');
        assert.match(file ?? '', /^Migration\d{14}_initial\.cjs$/);
        const code = await migrationCode(file);
        assert.match(code, /require\('@mikro-orm\/migrations'\)/);
        assert.match(code, /create table [`"]?users[`"]?/);
        assert.match(code, /create table [`"]?notes[`"]?/);
        assert.match(code, /hashed_password/);
        // Nothing was applied yet: creating a migration does not touch the entities' tables.
        assert.equal((await introspect(orm)).has('users'), false);
      } finally {
        await orm.close();
      }
    });

    it('applies it: the tables, every AuthMixin column, and nothing left for schema update', async () => {
      const orm = await init([User, Note]);
      try {
        const applied = await applyMigrations(orm);
        assert.equal(applied.length, 1);
        assert.deepEqual(
          (await orm.migrator.getExecuted()).map((migration) => migration.name),
          applied,
          'the migrator records what it applied',
        );
        const tables = await introspect(orm);
        assert.ok(tables.has('notes'));
        const userColumns = tables.get('users') ?? [];
        for (const column of [...Object.keys(AUTH_MIXIN_FIELDS), 'username', 'email', 'age']) {
          assert.ok(userColumns.includes(column), `users.${column} in ${userColumns.join(', ')}`);
        }
        assert.equal(await orm.schema.getUpdateSchemaSQL({ wrap: false }), '');
        assert.deepEqual(await applyMigrations(orm), [], 'a second up() applies nothing');
      } finally {
        await orm.close();
      }
    });

    it('leaves nothing for MikroOrmAdapter.connect() to change: the service sees the same tables', async () => {
      const adapter = await MikroOrmAdapter.connect({ url: db.url, entities: [User, Note] });
      try {
        assert.equal(await adapter.orm.schema.getUpdateSchemaSQL({ wrap: false }), '');
      } finally {
        await adapter.close();
      }
    });

    it('serves /register, /login and the notes routes on the migrated tables', async () => {
      await withApp([User, Note], Note, async (server) => {
        const registered = await server.request('/register', {
          method: 'POST',
          json: { ...CREDENTIALS, email: 'ada@example.com' },
        });
        assert.equal(registered.status, 201, await registered.clone().text());
        const authorization = await login(server);
        const created = await server.request('/notes', {
          method: 'POST',
          headers: { authorization },
          json: { title: 'before the second migration' },
        });
        assert.equal(created.status, 201, await created.clone().text());
        const listed = await server.request('/notes', { headers: { authorization } });
        assert.deepEqual(
          ((await listed.json()) as { title: string }[]).map((note) => note.title),
          ['before the second migration'],
        );
      });
    });

    it('turns a column added to a model into a second migration that keeps the rows', async () => {
      const orm = await init([User, NoteV2]);
      try {
        const file = await createMigration(orm, 'add_pinned');
        assert.match(file ?? '', /^Migration\d{14}_add_pinned\.cjs$/);
        const code = await migrationCode(file);
        assert.match(code, /alter table [`"]?notes[`"]? add/);
        assert.match(code, /pinned/);
        assert.doesNotMatch(code, /create table|users/, 'only the change, nothing else');
        // MikroORM records a .cjs migration under its file name, ending included.
        const stem = (name = '') => name.replace(/\.cjs$/, '');
        assert.deepEqual((await applyMigrations(orm)).map(stem), [stem(file)]);
        assert.ok((await introspect(orm)).get('notes')?.includes('pinned'));
        assert.equal(await createMigration(orm, 'unchanged'), undefined, 'nothing changed since');
        assert.equal((await readdir(folder)).filter((name) => name.endsWith('.cjs')).length, 2);
      } finally {
        await orm.close();
      }
    });

    it('serves the new column, the rows written before it defaulted', async () => {
      await withApp([User, NoteV2], NoteV2, async (server) => {
        const listed = await server.request('/notes', { headers: { authorization: await login(server) } });
        assert.equal(listed.status, 200);
        assert.deepEqual(
          ((await listed.json()) as { title: string; pinned: boolean }[]).map(({ title, pinned }) => [
            title,
            pinned,
          ]),
          [['before the second migration', false]],
        );
      });
    });
  });
}
