/**
 * A PostgreSQL server that stops answering for longer than the query timeout, then comes back (a
 * SIGSTOP of the server or of a pooler, a network partition): the requests of the freeze answer 503
 * within the documented bound, and none of the connections their statements timed out on is ever
 * used again. Before, such a connection stayed checked out inside its open transaction for ever
 * (`idle in transaction`, holding its row locks), and after `pool.max` freezes every request
 * answered 503. A proxy the test controls freezes; the shared server itself is never stopped.
 * PostgreSQL, both modes, a pool of 3, more freezes than the pool has connections.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import type { Logger } from '../../lib/index.js';
import { Book } from '../fixtures/mikro-orm/library.js';
import { requireTarget, type TestDatabase } from '../support/databases.js';
import type { TestServer } from '../support/http.js';
import { type AppBehindProxy, startAppBehindProxy } from './support/app-behind-proxy.js';
import type { FreezableProxy } from './support/freezable-proxy.js';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const POOL = 3;
const FREEZES = POOL + 2;
const CONNECT_TIMEOUT_MS = 500;
const QUERY_TIMEOUT_MS = 1_000;
/** The documented bound: a connection, then one statement and the client's 500 ms after the server's limit. */
const ANSWER_WITHIN_MS = CONNECT_TIMEOUT_MS + QUERY_TIMEOUT_MS + 500;
/** Scheduling and HTTP on a loaded machine. */
const SLACK_MS = 700;
/** Longer than every request of the freeze takes to answer, so that all of them meet the frozen server. */
const FREEZE_MS = ANSWER_WITHIN_MS + SLACK_MS + 500;

interface Answer {
  readonly what: string;
  readonly status: number;
  readonly ms: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pg pool behind the adapter: how many connections it holds, and how many are out. */
async function poolState(adapter: MikroOrmAdapter): Promise<{ total: number; out: number }> {
  const pool = (await adapter.orm.em.getConnection().getNativeClient()) as pg.Pool;
  return { total: pool.totalCount, out: pool.totalCount - pool.idleCount };
}

for (const mode of ['fast', 'plain'] as const) {
  describe(`a server frozen past the query timeout leaves no connection stuck (${mode} mode)`, async () => {
    const option = await requireTarget('postgresql');
    let running: AppBehindProxy;
    let db: TestDatabase;
    let proxy: FreezableProxy;
    let adapter: MikroOrmAdapter;
    let server: TestServer;
    let watcher: pg.Client;
    let tag: number;
    let author: number;
    let book: number;

    /** Sends a request; a request not answered in 10 s shows as status 0. */
    async function send(method: string, path: string, json?: unknown): Promise<Answer> {
      const started = performance.now();
      const what = `${method} ${path}`;
      try {
        const response = await server.request(path, {
          method,
          ...(json === undefined ? {} : { json }),
          signal: AbortSignal.timeout(10_000),
        });
        await response.text();
        return { what, status: response.status, ms: Math.round(performance.now() - started) };
      } catch {
        return { what, status: 0, ms: Math.round(performance.now() - started) };
      }
    }

    /** Two writes whose statement the server is still running, each in its transaction, when the freeze begins. */
    async function slowWrites(round: number): Promise<Promise<Answer>[]> {
      const writes = [
        send('POST', '/books', { title: `slow ${round}`, author, tags: [tag] }),
        send('PATCH', `/books/${book}`, { title: `slow ${round}` }),
      ];
      const deadline = Date.now() + 5_000;
      while ((await sleeping()) < writes.length && Date.now() < deadline) await sleep(20);
      assert.equal(await sleeping(), writes.length, `round ${round}: the slow writes did not start`);
      return writes;
    }

    /** A read, an update of the row the slow PATCH locks (it waits if that transaction stays open), an insert, a list. */
    function traffic(round: number): Promise<Answer>[] {
      return [
        send('GET', `/books/${book}`),
        send('PATCH', `/books/${book}`, { title: `t${round}` }),
        send('POST', '/books', { title: `b${round}`, author, tags: [tag] }),
        send('GET', '/books'),
      ];
    }

    /** How many of the app's statements are in the slow trigger's sleep. */
    async function sleeping(): Promise<number> {
      const { rows } = await watcher.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'",
      );
      return rows[0]?.n ?? 0;
    }

    /** The app's sessions on the test database that sit inside a transaction. */
    async function idleInTransaction(): Promise<number> {
      const { rows } = await watcher.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and state like 'idle in transaction%' and pid <> pg_backend_pid()",
      );
      return rows[0]?.n ?? 0;
    }

    before(async () => {
      if (option.skip !== undefined) return;
      running = await startAppBehindProxy('postgresql', {
        title: 'frozen server',
        mode,
        pool: POOL,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        queryTimeoutMs: QUERY_TIMEOUT_MS,
        logger: quiet,
      });
      ({ db, proxy, adapter, server } = running);
      watcher = new pg.Client({ connectionString: db.url });
      await watcher.connect();
      const created = async (path: string, json: unknown) => {
        const response = await server.request(path, { method: 'POST', json });
        assert.equal(response.status, 201, await response.clone().text());
        return ((await response.json()) as { id: number }).id;
      };
      tag = await created('/labels', { name: 'a' });
      author = await created('/authors', { name: 'Ann' });
      book = await created('/books', { title: 'b', author, tags: [tag] });
      // A write of a title starting with "slow" takes 300 ms on the server: the freeze can begin
      // while its statement runs, inside its transaction, the server's statement limit far off.
      await watcher.query(
        "create function slow_write() returns trigger language plpgsql as $$ begin if new.title like 'slow%' then perform pg_sleep(0.3); end if; return new; end $$",
      );
      await watcher.query(
        'create trigger slow_write before insert or update on books for each row execute function slow_write()',
      );
    });
    after(async () => {
      if (option.skip !== undefined) return;
      await watcher?.end();
      await running?.close();
    });

    it(
      'more freezes than connections: 503 within the bound during each, every request served at once after',
      option,
      async (t) => {
        const recoveries: number[] = [];
        for (let round = 1; round <= FREEZES; round++) {
          const writes = await slowWrites(round);
          proxy.freeze();
          const frozenAt = performance.now();
          let during: Answer[];
          try {
            // The read takes the pool's third connection; the others wait for one.
            during = await Promise.all([...writes, ...traffic(round)]);
            await sleep(FREEZE_MS - (performance.now() - frozenAt));
          } finally {
            proxy.thaw();
          }
          const thawedAt = performance.now();
          for (const answer of during) {
            assert.equal(answer.status, 503, `round ${round}, during the freeze: ${JSON.stringify(answer)}`);
            assert.ok(
              answer.ms < ANSWER_WITHIN_MS + SLACK_MS,
              `round ${round}, during the freeze: ${JSON.stringify(answer)} (bound ${ANSWER_WITHIN_MS} ms)`,
            );
          }
          const served = await Promise.all(traffic(round + 100));
          recoveries.push(Math.round(performance.now() - thawedAt));
          for (const answer of served) {
            assert.ok(answer.status < 300, `round ${round}, after the thaw: ${JSON.stringify(answer)}`);
            assert.ok(answer.ms < 1_000, `round ${round}, after the thaw: ${JSON.stringify(answer)}`);
          }
          // The server aborts the transactions of the ended connections once it reads their close.
          const deadline = Date.now() + 2_000;
          let stuck = await idleInTransaction();
          while (stuck > 0 && Date.now() < deadline) {
            await sleep(50);
            stuck = await idleInTransaction();
          }
          assert.equal(stuck, 0, `round ${round}: sessions left idle in transaction`);
          const state = await poolState(adapter);
          assert.equal(
            state.out,
            0,
            `round ${round}: connections still checked out: ${JSON.stringify(state)}`,
          );
        }
        // Noted, not asserted: how long the first requests after each thaw took, all together.
        t.diagnostic(`${mode}: requests after each thaw served within ${recoveries.join(', ')} ms`);
      },
    );

    it('a BEGIN the frozen server never answers: the connection goes back to the pool', option, async () => {
      // MikroORM's transactions (Kysely's) give a connection back only after a BEGIN that succeeded.
      for (let round = 1; round <= FREEZES; round++) {
        // An idle connection in the pool, so that the BEGIN is sent rather than a connection awaited.
        await adapter.orm.em.fork().findOne(Book, book);
        proxy.freeze();
        try {
          const started = performance.now();
          await assert.rejects(
            adapter.orm.em.fork().transactional((em) => em.findOne(Book, book)),
            /Query read timeout/,
          );
          assert.ok(performance.now() - started < ANSWER_WITHIN_MS + SLACK_MS, `round ${round}: too slow`);
        } finally {
          proxy.thaw();
        }
        const deadline = Date.now() + 2_000;
        let state = await poolState(adapter);
        while (state.out > 0 && Date.now() < deadline) {
          await sleep(50);
          state = await poolState(adapter);
        }
        assert.equal(state.out, 0, `round ${round}: connections still checked out: ${JSON.stringify(state)}`);
        assert.equal(await idleInTransaction(), 0, `round ${round}: sessions left idle in transaction`);
      }
      const found = await adapter.orm.em.fork().transactional((em) => em.findOne(Book, book));
      assert.equal(found?.id, book);
    });
  });
}
