/**
 * The MikroORM adapter behind PgBouncer in transaction pooling mode (Debian's 1.18, a pool of 3
 * server connections), started by this test, with default options: the conformance suite passes
 * through it in both execution modes, a concurrent mixed load on the example blog gets no 5xx (the
 * adapter meets its named statements lost by the pooler, answers all the same and turns them off
 * with one warning), and when the admin console reconnects or kills the pool mid-load every request
 * answers as usual or 503, never 500. The same load on a direct connection keeps named statements.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isConnectionError } from '../../../adapters/mikro-orm/errors.js';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { runConformanceSuite } from '../../../conformance/index.js';
import { createBlogApp } from '../../../examples/blog/app.js';
import type { Logger } from '../../../lib/index.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';
import { describeResponse, objectOf, send } from '../../security/support/client.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { type LoadAnswer, runMixedLoad, statusCounts, unexpected } from '../../support/mixed-load.js';
import { Pgbouncer, requirePgbouncer } from '../../support/pgbouncer.js';
import { countStatements, nativePool, preparedOnServer, watchWarnings } from './named-statements.js';

const SECRET = 'pgbouncer-suite-secret-of-more-than-32-bytes-0123456789';
const quietLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** The database name of a test database's URL. */
function databaseName(db: TestDatabase): string {
  return new URL(db.url).pathname.slice(1);
}

function summary(answers: readonly LoadAnswer[]): string {
  return JSON.stringify(statusCounts(answers));
}

/** The example blog with default options on `databaseUrl`, served on loopback, and a user's token. */
async function startBlog(
  databaseUrl: string,
): Promise<{ blog: Awaited<ReturnType<typeof createBlogApp>>; server: TestServer; token: string }> {
  const blog = await createBlogApp(
    { host: '127.0.0.1', port: 0, databaseUrl, jwtSecret: SECRET, admin: undefined, production: false },
    quietLogger,
  );
  const server = await serve(blog.app.callback());
  const registered = await send(server.url, {
    method: 'POST',
    path: '/register',
    json: { username: 'pooled', email: 'pooled@example.com', password: 'pooled password 1' },
  });
  assert.equal(registered.status, 201, describeResponse(registered));
  const token = blog.auth.tokens.issue(String(objectOf(registered).id)).access_token;
  return { blog, server, token };
}

describe('pooler failures', () => {
  const failure = (message: string, code?: string) =>
    Object.assign(new Error(message), code === undefined ? {} : { code });

  it("count as the database being unavailable in PgBouncer's wording, with or without its SQLSTATE", () => {
    for (const message of [
      'server conn crashed?',
      'pgbouncer cannot connect to server',
      'server login has been failing, try again later (server_login_retry)',
      'no more connections allowed (max_client_conn)',
      'query_wait_timeout',
      'database removed',
      'Client was closed and is not queryable',
    ]) {
      assert.ok(isConnectionError(failure(message)), message);
      assert.ok(isConnectionError(failure(message, '08P01')), `${message} (08P01)`);
    }
    assert.ok(isConnectionError(failure('terminating connection due to idle-session timeout', '57P05')));
    assert.ok(isConnectionError(failure('cannot execute INSERT in a read-only transaction', '25006')));
    assert.ok(isConnectionError(failure('read ECONNRESET', 'ECONNRESET')));
    assert.ok(!isConnectionError(failure('prepared statement "kma_1" already exists', '42P05')));
  });
});

describe('MikroOrmAdapter behind PgBouncer in transaction pooling mode', await requirePgbouncer(), () => {
  let bouncer: Pgbouncer | undefined;

  before(async () => {
    bouncer = await Pgbouncer.start({ poolMode: 'transaction', defaultPoolSize: 3 });
  });
  after(async () => {
    await bouncer?.stop();
  });

  for (const mode of ['fast', 'plain'] as const) {
    describe(`conformance in ${mode} mode`, () => {
      runConformanceSuite({
        name: `mikro-orm:postgresql via pgbouncer (${mode})`,
        async setup() {
          assert.ok(bouncer !== undefined, 'PgBouncer did not start');
          const db = await createTestDatabase('postgresql');
          try {
            const adapter = await MikroOrmAdapter.connect({
              url: bouncer.url(databaseName(db)),
              entities: [...mikroOrmFixtureEntities],
              schema: 'create',
              ...(mode === 'plain' ? { mode } : {}),
            });
            return {
              adapter,
              models: fixtureModels,
              teardown: async () => {
                await adapter.close();
                await db.drop();
              },
            };
          } catch (error) {
            await db.drop();
            throw error;
          }
        },
      });
    });
  }

  describe('the example blog under a concurrent mixed load', () => {
    let db: TestDatabase | undefined;
    let blog: Awaited<ReturnType<typeof createBlogApp>> | undefined;
    let server: TestServer | undefined;
    let token = '';
    let watch: ReturnType<typeof watchWarnings> | undefined;

    before(async () => {
      assert.ok(bouncer !== undefined, 'PgBouncer did not start');
      // From the first statement on: the switch may come while the blog creates its schema.
      watch = watchWarnings();
      db = await createTestDatabase('postgresql');
      ({ blog, server, token } = await startBlog(bouncer.url(databaseName(db))));
    });

    after(async () => {
      await watch?.stop();
      await server?.close();
      await blog?.app.close();
      await db?.drop();
    });

    it('answers 640 mixed requests, 20 in flight, with no 5xx and no unexpected status', async () => {
      assert.ok(server !== undefined);
      const started = performance.now();
      const answers = await runMixedLoad({
        base: server.url,
        token,
        requests: 640,
        inFlight: 20,
        tag: 'steady',
      });
      const seconds = (performance.now() - started) / 1000;
      assert.equal(answers.length, 640);
      assert.deepEqual(unexpected(answers), [], summary(answers));
      const succeeded = answers.filter(({ response }) => response.status < 400).length;
      // The rest are 404s: reads and writes of rows the load itself deleted a moment before.
      assert.ok(succeeded >= 500, `only ${succeeded} of 640 succeeded: ${summary(answers)}`);
      console.log(`pgbouncer steady load: ${summary(answers)} in ${seconds.toFixed(1)} s`);
      assert.ok(seconds < 60, `the load took ${seconds.toFixed(1)} s`);
    });

    it('met the pooler with named statements, switched them off with one warning, and runs unnamed since', async () => {
      assert.ok(server !== undefined && blog !== undefined && watch !== undefined);
      await new Promise((resolve) => setImmediate(resolve));
      const warnings = watch.warnings.map((warning) => warning.message);
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0] ?? '', /(42P05|26000) prepared statement "kma_[0-9a-f]+"/);
      const spy = countStatements(await nativePool(blog.adapter));
      let answers: LoadAnswer[];
      try {
        answers = await runMixedLoad({
          base: server.url,
          token,
          requests: 100,
          inFlight: 10,
          tag: 'unnamed',
        });
      } finally {
        spy.restore();
      }
      assert.deepEqual(unexpected(answers), [], summary(answers));
      assert.equal(spy.counts.named, 0, JSON.stringify(spy.counts));
      assert.ok(spy.counts.unnamed > 0, JSON.stringify(spy.counts));
      assert.equal(watch.warnings.length, 1);
    });

    it('answers 503 with Retry-After while PgBouncer refuses the database, and serves again once it accepts it', async () => {
      assert.ok(server !== undefined && bouncer !== undefined && db !== undefined);
      const name = databaseName(db);
      // DISABLE refuses new clients (08P01 "database … is disabled"); KILL drops the pooled ones.
      await bouncer.admin(`DISABLE ${name}`);
      try {
        await bouncer.admin(`KILL ${name}`);
        await bouncer.admin(`RESUME ${name}`).catch(() => undefined);
        const refused = await runMixedLoad({
          base: server.url,
          token,
          requests: 20,
          inFlight: 5,
          tag: 'refused',
        });
        for (const { response } of refused) {
          assert.equal(response.status, 503, describeResponse(response));
          assert.match(String(response.headers['retry-after']), /^\d+$/, describeResponse(response));
          assert.ok(response.ms < 5_000, `answered after ${Math.round(response.ms)} ms`);
        }
      } finally {
        await bouncer.admin(`ENABLE ${name}`);
      }
      const served = await runMixedLoad({
        base: server.url,
        token,
        requests: 20,
        inFlight: 5,
        tag: 'enabled',
      });
      assert.deepEqual(unexpected(served), [], summary(served));
    });

    it('answers only as usual or 503 with Retry-After while the admin console reconnects and kills the pool', async () => {
      assert.ok(server !== undefined && bouncer !== undefined && db !== undefined);
      const name = databaseName(db);
      const pooler = bouncer;
      const commands: Promise<unknown>[] = [];
      const answers = await runMixedLoad({
        base: server.url,
        token,
        requests: 480,
        inFlight: 20,
        tag: 'disturbed',
        onAnswer: (answered) => {
          if (answered === 80) commands.push(pooler.admin(`RECONNECT ${name}`));
          if (answered === 200) {
            // KILL drops every client and server connection of the database; PgBouncer then holds
            // new clients until RESUME (1.18), which comes a moment later.
            commands.push(
              pooler
                .admin(`KILL ${name}`)
                .then(() => new Promise((resolve) => setTimeout(resolve, 300)))
                .then(() => pooler.admin(`RESUME ${name}`).catch(() => undefined)),
            );
          }
        },
      });
      await Promise.all(commands);
      assert.equal(answers.length, 480);
      assert.deepEqual(unexpected(answers, true), [], summary(answers));
      for (const { response } of answers.filter(({ response }) => response.status === 503)) {
        assert.match(String(response.headers['retry-after']), /^\d+$/, describeResponse(response));
      }
      // Once the pool is back, the application serves again without a restart.
      const deadline = Date.now() + 10_000;
      let last: LoadAnswer[] = [];
      do {
        last = await runMixedLoad({
          base: server.url,
          token,
          requests: 40,
          inFlight: 10,
          tag: `after-${Date.now()}`,
        });
      } while (unexpected(last).length > 0 && Date.now() < deadline);
      assert.deepEqual(unexpected(last), [], `after the kill: ${summary(last)}`);
      console.log(`pgbouncer disturbed load: ${summary(answers)}`);
    });
  });
});

describe('the example blog on a direct PostgreSQL connection', await requireTarget('postgresql'), () => {
  let db: TestDatabase | undefined;
  let started: Awaited<ReturnType<typeof startBlog>> | undefined;

  before(async () => {
    db = await createTestDatabase('postgresql');
    started = await startBlog(db.url);
  });
  after(async () => {
    await started?.server.close();
    await started?.blog.app.close();
    await db?.drop();
  });

  it('answers the same load with named statements the server keeps, and warns nothing', async () => {
    assert.ok(started !== undefined);
    const pool = await nativePool(started.blog.adapter);
    const watch = watchWarnings();
    const spy = countStatements(pool);
    let answers: LoadAnswer[];
    try {
      answers = await runMixedLoad({
        base: started.server.url,
        token: started.token,
        requests: 640,
        inFlight: 20,
        tag: 'direct',
      });
    } finally {
      spy.restore();
    }
    assert.deepEqual(await watch.stop(), []);
    assert.deepEqual(unexpected(answers), [], summary(answers));
    assert.equal(spy.counts.unnamed, 0, JSON.stringify(spy.counts));
    assert.ok(spy.counts.named > 0, JSON.stringify(spy.counts));
    assert.ok((await preparedOnServer(pool)).length > 0, 'no kma_ statement prepared on the server');
  });
});
