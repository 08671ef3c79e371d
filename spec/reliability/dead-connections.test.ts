/**
 * Connections the database ends while a transaction holds them (a failover, a PgBouncer KILL,
 * `pg_terminate_backend`): the writes they carried answer 503, and the pool gets every one of them
 * back, so the instance serves again at once instead of waiting for its connect timeout on every
 * request for ever (Kysely's transactions release a connection only after a statement that
 * succeeded; adapters/mikro-orm/pool-guard.ts). PostgreSQL, both modes, a pool of 3.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import { Application, CrudRouter, type Logger } from '../../lib/index.js';
import { Author, Book, Category, Tag } from '../fixtures/mikro-orm/library.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../support/databases.js';
import { serve, type TestServer } from '../support/http.js';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const POOL = 3;

/** Sends JSON; the status and the parsed body. */
async function sendJson(server: TestServer, method: string, path: string, json: unknown) {
  const response = await server.request(path, { method, json });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** The pg pool behind the adapter: how many connections it holds, and how many are out. */
async function poolState(adapter: MikroOrmAdapter): Promise<{ total: number; out: number }> {
  const pool = (await adapter.orm.em.getConnection().getNativeClient()) as pg.Pool;
  return { total: pool.totalCount, out: pool.totalCount - pool.idleCount };
}

for (const mode of ['fast', 'plain'] as const) {
  describe(`connections ended inside a transaction are given back to the pool (${mode} mode)`, async () => {
    const option = await requireTarget('postgresql');
    let db: TestDatabase;
    let adapter: MikroOrmAdapter;
    let server: TestServer;
    let tag: number;
    let author: number;

    before(async () => {
      if (option.skip !== undefined) return;
      db = await createTestDatabase('postgresql');
      adapter = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Author, Book, Category, Tag],
        schema: 'create',
        mode,
        pool: { max: POOL },
      });
      const app = new Application({ title: 'dead connections', adapter, logger: quiet });
      for (const model of [Author, Book, Tag]) new CrudRouter({ model }).register_routes(app);
      server = await serve(app.callback());
      tag = ((await sendJson(server, 'POST', '/labels', { name: 'a' })).body as { id: number }).id;
      author = ((await sendJson(server, 'POST', '/authors', { name: 'Ann' })).body as { id: number }).id;
    });
    after(async () => {
      if (option.skip !== undefined) return;
      await server?.close();
      await adapter?.close();
      await db?.drop();
    });

    it('the writes answer 503, and the next ones are served at once', option, async () => {
      // A book with tags is written in one transaction (the row and its links), on both paths.
      const write = (n: number) =>
        sendJson(server, 'POST', '/books', { title: `b${n}`, author, tags: [tag] });
      assert.equal((await write(0)).status, 201);
      const url = new URL(db.url);
      const locker = new pg.Client({ connectionString: db.url });
      await locker.connect();
      try {
        // The writes wait on the lock inside their transactions; then the server ends them.
        await locker.query('begin');
        await locker.query('lock table books_tags in access exclusive mode');
        const inFlight = Array.from({ length: POOL }, (_, n) => write(n + 1));
        const deadline = Date.now() + 5_000;
        let waiting = 0;
        while (waiting < POOL && Date.now() < deadline) {
          const { rows } = await locker.query<{ n: number }>(
            "select count(*)::int as n from pg_locks where not granted and relation = 'books_tags'::regclass",
          );
          waiting = rows[0]?.n ?? 0;
          if (waiting < POOL) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        assert.equal(waiting, POOL, 'the writes did not reach the lock');
        await locker.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'",
          [url.pathname.slice(1)],
        );
        await locker.query('rollback');
        const answers = await Promise.all(inFlight);
        for (const answer of answers) assert.equal(answer.status, 503, JSON.stringify(answer.body));
      } finally {
        await locker.end();
      }
      // The guard gives the dead connections back within its grace period.
      const deadline = Date.now() + 5_000;
      let state = await poolState(adapter);
      while (state.out > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        state = await poolState(adapter);
      }
      assert.equal(state.out, 0, `connections still checked out: ${JSON.stringify(state)}`);
      const started = Date.now();
      for (let n = 10; n < 10 + 2 * POOL; n++) assert.equal((await write(n)).status, 201);
      assert.ok(Date.now() - started < 2_000, `writes after the deaths took ${Date.now() - started} ms`);
    });
  });
}
