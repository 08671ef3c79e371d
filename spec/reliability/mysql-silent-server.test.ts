/**
 * A MariaDB server that stops answering, behind a proxy the test freezes (the shared server itself
 * keeps running): reads and writes answer 503 within the bounds (the wait for a pooled connection
 * within connectTimeoutMs, a statement within queryTimeoutMs + 500 ms), and once the server answers
 * again every request is served at once, more times over than the pool has connections — no
 * connection leaked or reused in an unknown state, none left in a transaction on the server. And a
 * row locked from outside, with more writes than the pool: each write answers within the bounds
 * instead of waiting in the pool's queue wave after wave. Both adapter modes, a pool of 3.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createConnection } from 'mysql2/promise';
import { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import { Application, CrudRouter, type Logger } from '../../lib/index.js';
import { Author, Book, Category, Tag } from '../fixtures/mikro-orm/library.js';
import { requireTarget, type TestDatabase } from '../support/databases.js';
import { serve, type TestServer } from '../support/http.js';
import { type AppBehindProxy, startAppBehindProxy } from './support/app-behind-proxy.js';
import type { FreezableProxy } from './support/freezable-proxy.js';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const POOL = 3;
// The statement bound (1 s) well below the connect bound (2 s): a request that finds an open
// connection must be answered by the statement bound, not by a connection attempt failing.
const CONNECT_MS = 2_000;
const QUERY_MS = 500;
/** The client's grace after the server's own limit (connect.ts). */
const GRACE_MS = 500;
/** Timer and scheduling slack. */
const SLACK_MS = 400;
/** The longest a request may take while the server is silent or a row is locked. */
const BOUND_MS = CONNECT_MS + QUERY_MS + GRACE_MS + SLACK_MS;

// The row-lock case: waits for a connection end before a statement does.
const LOCK_CONNECT_MS = 500;
const LOCK_QUERY_MS = 1_000;
/**
 * A PATCH takes up to three connections one after the other (fast mode: read, write, read back), each
 * wait bounded by connectTimeoutMs; only its write waits on the lock, stopped at queryTimeoutMs.
 */
const LOCK_BOUND_MS = 3 * LOCK_CONNECT_MS + LOCK_QUERY_MS + GRACE_MS + SLACK_MS;

interface Answer {
  readonly what: string;
  readonly status: number;
  readonly ms: number;
  readonly body: string;
}

/** The mysql2 pool's own counts (it has no public ones). */
interface PoolInternals {
  _allConnections: { length: number };
  _freeConnections: { length: number };
  _connectionQueue: { length: number };
}

const option = await requireTarget('mariadb');

for (const mode of ['fast', 'plain'] as const) {
  describe(`a silent MariaDB server is answered 503 within the bounds (${mode} mode)`, option, () => {
    let running: AppBehindProxy;
    let db: TestDatabase;
    let proxy: FreezableProxy;
    let adapter: MikroOrmAdapter;
    let server: TestServer;
    let tag: number;
    let author: number;

    /** Sends a request; the status, body and time, or status 0 if no answer came within 10 s. */
    async function send(method: string, path: string, json?: unknown): Promise<Answer> {
      const what = `${method} ${path}`;
      const started = performance.now();
      try {
        const response = await server.request(path, {
          method,
          ...(json === undefined ? {} : { json }),
          signal: AbortSignal.timeout(10_000),
        });
        const body = await response.text();
        return { what, status: response.status, ms: performance.now() - started, body };
      } catch (error) {
        return { what, status: 0, ms: performance.now() - started, body: String(error) };
      }
    }

    /** Reads and writes, some inside a transaction (a book with its tags), more than the pool holds. */
    function traffic(round: number): Promise<Answer[]> {
      return Promise.all([
        send('GET', '/authors'),
        send('GET', `/authors/${author}`),
        send('POST', '/authors', { name: `a${round}` }),
        send('PATCH', `/authors/${author}`, { name: `renamed ${round}` }),
        send('POST', '/books', { title: `b${round}`, author, tags: [tag] }),
        send('GET', '/books'),
      ]);
    }

    /** A connection of the test's own to the real server, past the proxy. */
    function direct() {
      return createConnection({ uri: db.url.replace(/^mariadb:/, 'mysql:'), connectTimeout: 5_000 });
    }

    /** Opens the pool's every connection, so that a request finds one open. */
    async function warm(): Promise<void> {
      const connection = adapter.orm.em.getConnection();
      await Promise.all(Array.from({ length: POOL }, () => connection.execute('select sleep(0.05)')));
    }

    async function poolState(): Promise<{ total: number; free: number; queued: number }> {
      const pool = (await adapter.orm.em.getConnection().getNativeClient()) as PoolInternals;
      return {
        total: pool._allConnections.length,
        free: pool._freeConnections.length,
        queued: pool._connectionQueue.length,
      };
    }

    before(async () => {
      running = await startAppBehindProxy('mariadb', {
        title: 'silent server',
        mode,
        pool: POOL,
        connectTimeoutMs: CONNECT_MS,
        queryTimeoutMs: QUERY_MS,
        logger: quiet,
      });
      ({ db, proxy, adapter, server } = running);
      const created = await send('POST', '/labels', { name: 'a' });
      tag = (JSON.parse(created.body) as { id: number }).id;
      author = (JSON.parse((await send('POST', '/authors', { name: 'Ann' })).body) as { id: number }).id;
    });
    after(async () => {
      await running?.close();
    });

    it('frozen: 503 within the bounds; thawed: served at once, again and again', async (t) => {
      const recoveries: number[] = [];
      for (let round = 0; round <= POOL; round++) {
        await warm();
        proxy.freeze();
        let alone: Answer;
        let during: Answer[];
        try {
          alone = await send('GET', `/authors/${author}`);
          during = await traffic(round);
        } finally {
          proxy.thaw();
        }
        const text = `round ${round}, alone, ${alone.what}: ${alone.status} after ${Math.round(alone.ms)} ms ${alone.body}`;
        assert.equal(alone.status, 503, text);
        assert.ok(alone.ms < QUERY_MS + GRACE_MS + SLACK_MS, text);
        if (round === 0)
          t.diagnostic(
            `frozen: alone ${Math.round(alone.ms)}, ${during.map((a) => `${a.what} ${a.status}:${Math.round(a.ms)}`).join(', ')} ms`,
          );
        for (const answer of during) {
          const text = `round ${round}, ${answer.what}: ${answer.status} after ${Math.round(answer.ms)} ms ${answer.body}`;
          assert.equal(answer.status, 503, text);
          assert.match(answer.body, /service_unavailable/, text);
          assert.ok(answer.ms < BOUND_MS, text);
        }
        const thawed = performance.now();
        const answers = await traffic(round);
        recoveries.push(performance.now() - thawed);
        for (const answer of answers) {
          const text = `round ${round} after thawing, ${answer.what}: ${answer.status} after ${Math.round(answer.ms)} ms ${answer.body}`;
          assert.ok(answer.status >= 200 && answer.status < 300, text);
          assert.ok(answer.ms < 1_000, text);
        }
      }
      t.diagnostic(
        `all requests served ${recoveries.map((ms) => Math.round(ms)).join(', ')} ms after each thaw`,
      );
      const state = await poolState();
      assert.ok(
        state.total <= POOL && state.free === state.total && state.queued === 0,
        JSON.stringify(state),
      );
      // The server ends the sessions of the destroyed connections (rolling back their transactions)
      // as soon as it reads their end: only the pool's own remain, none inside a transaction.
      const admin = await direct();
      try {
        const deadline = Date.now() + 5_000;
        let sessions: { n: number; inTransaction: number } = { n: -1, inTransaction: -1 };
        while (Date.now() < deadline) {
          const [rows] = await admin.query(
            `select count(*) as n, count(t.trx_id) as inTransaction from information_schema.processlist p
             left join information_schema.innodb_trx t on t.trx_mysql_thread_id = p.id
             where p.db = database() and p.id <> connection_id()`,
          );
          const row = (rows as { n: number | string; inTransaction: number | string }[])[0];
          sessions = { n: Number(row?.n), inTransaction: Number(row?.inTransaction) };
          if (sessions.n <= POOL && sessions.inTransaction === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.ok(sessions.n <= POOL && sessions.inTransaction === 0, JSON.stringify(sessions));
      } finally {
        await admin.end();
      }
    });

    it('a row locked from outside: more writes than the pool each answer within the bounds', async (t) => {
      // An app of its own, past the proxy, whose waits for a connection end before a statement's.
      const locking = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Author, Book, Category, Tag],
        mode,
        pool: { max: POOL },
        connectTimeoutMs: LOCK_CONNECT_MS,
        queryTimeoutMs: LOCK_QUERY_MS,
      });
      const app = new Application({ title: 'locked row', adapter: locking, logger: quiet });
      new CrudRouter({ model: Author }).register_routes(app);
      const listening = await serve(app.callback());
      const patch = async (name: string): Promise<Answer> => {
        const started = performance.now();
        const response = await listening.request(`/authors/${author}`, {
          method: 'PATCH',
          json: { name },
          signal: AbortSignal.timeout(20_000),
        });
        const body = await response.text();
        return { what: `PATCH ${name}`, status: response.status, ms: performance.now() - started, body };
      };
      try {
        const locker = await direct();
        let during: Answer[];
        try {
          await locker.query('begin');
          await locker.query('select id from authors where id = ? for update', [author]);
          // Without a bound on the wait for a connection, the last ones answer after eight statement limits.
          during = await Promise.all(Array.from({ length: 8 * POOL }, (_, n) => patch(`p${n}`)));
        } finally {
          await locker.query('rollback');
          await locker.end();
        }
        t.diagnostic(`answered in ${during.map((a) => `${a.status}:${Math.round(a.ms)}`).join(' ')} ms`);
        for (const answer of during) {
          const text = `${answer.what}: ${answer.status} after ${Math.round(answer.ms)} ms ${answer.body}`;
          assert.equal(answer.status, 503, text);
          assert.ok(answer.ms < LOCK_BOUND_MS, text);
        }
        const answers = await Promise.all(Array.from({ length: 2 * POOL }, (_, n) => patch(`q${n}`)));
        for (const answer of answers) assert.equal(answer.status, 200, `${answer.what}: ${answer.body}`);
      } finally {
        await listening.close();
        await locking.close();
      }
    });
  });
}
