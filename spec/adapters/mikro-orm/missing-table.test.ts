/**
 * A database whose tables were never created (`schema` left at its default `'none'`, no migrations
 * run) says so, on every target: `ensure_admin` at start-up fails with a `ConfigurationError` that
 * names the missing table and the two ways to create it (the `schema` option of
 * `MikroOrmAdapter.connect`, or MikroORM migrations); a request that reaches the missing table is a
 * generic 500 to the client (never SQL), with that `ConfigurationError` in the log; readiness
 * answers 503 until the tables exist.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Note, User } from '../../../examples/recipes/getting-started/entities.js';
import { Application, AuthRouter, ConfigurationError, CrudRouter, type Logger } from '../../../lib/index.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';

const ADMIN = { username: 'admin', password: 'admin password 123', email: 'admin@example.com' };

/** The first `ConfigurationError` in an error's `cause` chain. */
function configurationErrorIn(error: unknown): ConfigurationError | undefined {
  for (let current = error, depth = 0; depth < 5; depth += 1) {
    if (current instanceof ConfigurationError) return current;
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Asserts that the message names the table and both fixes. */
function assertExplains(error: ConfigurationError | undefined, table: string): true {
  assert.ok(error instanceof ConfigurationError, `expected a ConfigurationError, got ${String(error)}`);
  assert.match(error.message, new RegExp(`\\b${table}\\b`), 'names the missing table');
  assert.match(error.message, /\bschema\b/, "names the `schema` option (e.g. schema: 'update')");
  assert.match(error.message, /migration/i, 'names MikroORM migrations');
  return true;
}

for (const target of databaseTargets()) {
  describe(`tables that do not exist on ${target}`, await requireTarget(target), () => {
    let database: TestDatabase;
    let adapter: MikroOrmAdapter;
    let app: Application;
    let auth: AuthRouter;
    let server: TestServer;
    const logged: unknown[] = [];
    const logger: Logger = { info: () => {}, warn: () => {}, error: (_message, error) => logged.push(error) };

    before(async () => {
      database = await createTestDatabase(target);
      // `schema` is left at its default, 'none': nothing creates the tables.
      adapter = await MikroOrmAdapter.connect({ url: database.url, entities: [User, Note] });
      app = new Application({ title: 'Missing tables', adapter, logger });
      auth = new AuthRouter({ user_model: User, secret: 'a missing-table test secret of at least 32 bytes' });
      auth.register_routes(app);
      new CrudRouter({ model: Note }).register_routes(app);
      server = await serve(app.callback());
    });
    after(async () => {
      await server?.close();
      await app?.close();
      await database?.drop();
    });

    it('ensure_admin fails with a ConfigurationError naming the users table, the schema option and migrations', async () => {
      await assert.rejects(auth.ensure_admin({ db: adapter.orm.em.fork(), ...ADMIN }), (error: unknown) =>
        assertExplains(error instanceof ConfigurationError ? error : configurationErrorIn(error), 'users'),
      );
    });

    it('a request that reaches a missing table is a generic 500, with the ConfigurationError in the log', async () => {
      for (const [path, init, table] of [
        ['/notes', {}, 'notes'],
        [
          '/register',
          { method: 'POST', json: { username: 'ann', email: 'ann@example.com', password: 'correct horse' } },
          'users',
        ],
      ] as const) {
        logged.length = 0;
        const response = await server.request(path, init);
        const body = await response.text();
        assert.equal(response.status, 500, `${path}: ${body}`);
        assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
        const problem = JSON.parse(body) as { code: string; detail: string };
        assert.equal(problem.code, 'internal_error', `${path}: the client sees no database detail`);
        assert.doesNotMatch(body, /no such table|does not exist|doesn't exist|SELECT|INSERT/i);
        const explained = logged.map(configurationErrorIn).find((error) => error !== undefined);
        assertExplains(explained, table);
      }
    });

    it('readiness answers 503 while a served table is missing, and 200 once the tables exist', async () => {
      const missing = await server.request('/health/ready');
      assert.equal(missing.status, 503, await missing.text());
      await assert.rejects(adapter.ping(), (error: Error) =>
        /no table (notes|users)/.test(String((error.cause as Error | undefined)?.message)),
      );
      await adapter.createSchema();
      const ready = await server.request('/health/ready');
      assert.equal(ready.status, 200, await ready.text());
    });
  });
}
