/**
 * Several instances on one database: two processes of the example's routes on one PostgreSQL
 * database with the Redis throttle store. A user registered on one logs in on the other;
 * ownership holds across both; concurrent registrations of one username leave one row; both
 * starting at once with ensure_admin make one admin; the login throttle counts across both.
 * Refresh sessions (issue 16) hold across two instances with the refresh tokens in PostgreSQL and
 * in Redis: rotation on the other instance, reuse detection, logout and logout-all.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import { blogEntities } from '../../examples/blog/entities.js';
import { RefreshToken } from '../lib/auth/support/refresh-entities.js';
import {
  describeResponse,
  type HttpRequest,
  type HttpResponse,
  objectOf,
  send,
} from '../security/support/client.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../support/databases.js';
import { INSTANCE_FIXTURE, type Started, startProcess, stopProcess } from './support/processes.js';
import { deleteKeys, redisUnavailable } from './support/redis.js';

const REDIS_URL = process.env.KMA_REDIS_URL ?? 'redis://127.0.0.1:6379';
const ADMIN = { username: 'root_admin', password: 'root admin password', email: 'root@example.com' };
const PASSWORD = 'instance password 1';

async function query(url: string, sql: string): Promise<Record<string, unknown>[]> {
  const adapter = await MikroOrmAdapter.connect({ url, entities: blogEntities });
  try {
    return (await adapter.orm.em.getConnection().execute(sql, [], 'all')) as Record<string, unknown>[];
  } finally {
    await adapter.close();
  }
}

function register(username: string): HttpRequest {
  return {
    method: 'POST',
    path: '/register',
    json: { username, email: `${username}@example.com`, password: PASSWORD },
  };
}

function login(username: string, password = PASSWORD): HttpRequest {
  return { method: 'POST', path: '/login', json: { username, password } };
}

function expectStatus(response: HttpResponse, status: number): void {
  assert.equal(response.status, status, describeResponse(response));
}

async function redisSkip(): Promise<{ skip?: string }> {
  const reason = await redisUnavailable(REDIS_URL);
  if (reason === undefined) return {};
  if (process.env.CI === 'true') throw new Error(`CI=true requires Redis: ${reason}`);
  return { skip: reason };
}

/** Starts processes together; when one fails, the others are stopped before the error is thrown. */
async function startAll(envs: readonly Record<string, string>[], startMs = 30_000): Promise<Started[]> {
  // Every process waits for the same moment before it connects (loading takes a varying time).
  const START_AT = String(Date.now() + 4_000);
  const outcomes = await Promise.allSettled(
    envs.map((env) => startProcess(INSTANCE_FIXTURE, { ...env, START_AT }, startMs)),
  );
  const started = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed !== undefined) {
    await Promise.all(started.map((process) => stopProcess(process)));
    throw failed.reason;
  }
  return started;
}

const postgres = await requireTarget('postgresql');
const redis = postgres.skip === undefined ? await redisSkip() : {};

describe('two instances on one PostgreSQL database with the Redis throttle store', {
  ...postgres,
  ...redis,
}, () => {
  let database: TestDatabase;
  let a: Started | undefined;
  let b: Started | undefined;
  const prefix = `kma:test:${randomBytes(6).toString('hex')}:`;

  before(async () => {
    database = await createTestDatabase('postgresql');
    // The schema first: concurrent schema updates at start are a separate case (below).
    await (
      await MikroOrmAdapter.connect({ url: database.url, entities: blogEntities, schema: 'create' })
    ).close();
    const env = {
      SCHEMA: 'none',
      DATABASE_URL: database.url,
      JWT_SECRET: 'instances-suite-secret-of-more-than-32-bytes',
      REDIS_URL,
      THROTTLE_PREFIX: prefix,
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_EMAIL: ADMIN.email,
    };
    // Both at once: their ensure_admin calls race each other.
    [a, b] = await startAll([env, env]);
  });

  after(async () => {
    await Promise.all([stopProcess(a), stopProcess(b)]);
    await database?.drop();
    await deleteKeys(REDIS_URL, prefix);
  });

  it('both starting at once with ensure_admin make exactly one admin', async () => {
    const rows = await query(
      database.url,
      `select id, is_admin from users where username = '${ADMIN.username}'`,
    );
    assert.equal(rows.length, 1, 'one admin row');
    assert.ok(rows[0]?.is_admin, 'holding the admin flag');
    const created = [a, b].map(
      (started) => /ensure_admin created=(true|false)/.exec(started?.output() ?? '')?.[1],
    );
    assert.deepEqual(created.sort(), ['false', 'true'], 'one instance created it, the other found it');
  });

  it('a user registered on one instance logs in on the other, and either token works on both', async () => {
    const base = [a?.base as string, b?.base as string] as const;
    expectStatus(await send(base[0], register('crossing')), 201);
    const onB = await send(base[1], login('crossing'));
    expectStatus(onB, 200);
    const token = String(objectOf(onB).access_token);
    for (const url of base)
      expectStatus(
        await send(url, { method: 'GET', path: '/posts', headers: { authorization: `Bearer ${token}` } }),
        200,
      );
  });

  it('ownership is enforced across both instances', async () => {
    const [first, second] = [a?.base as string, b?.base as string];
    const [owner, other] = await Promise.all(
      ['owner_x', 'other_x'].map(async (name, index) => {
        const url = index === 0 ? first : second;
        expectStatus(await send(url, register(name)), 201);
        const response = await send(url, login(name));
        return { authorization: `Bearer ${String(objectOf(response).access_token)}` };
      }),
    );
    const created = await send(first, {
      method: 'POST',
      path: '/posts',
      headers: owner,
      json: { title: 'on A' },
    });
    expectStatus(created, 201);
    const path = `/posts/${String(objectOf(created).id)}`;
    expectStatus(
      await send(second, { method: 'PUT', path, headers: other, json: { title: 'stolen on B' } }),
      403,
    );
    expectStatus(await send(first, { method: 'DELETE', path, headers: other }), 403);
    expectStatus(
      await send(second, { method: 'PUT', path, headers: owner, json: { title: 'edited on B' } }),
      200,
    );
    const read = await send(first, { method: 'GET', path, headers: other });
    assert.equal(objectOf(read).title, 'edited on B');
  });

  it('a promotion on one instance takes effect at once on the other', async () => {
    const [first, second] = [a?.base as string, b?.base as string];
    const adminToken = String(
      objectOf(await send(first, login(ADMIN.username, ADMIN.password))).access_token,
    );
    const user = await send(second, register('promoted_x'));
    const userToken = String(objectOf(await send(second, login('promoted_x'))).access_token);
    const target = `/labels`;
    expectStatus(
      await send(second, {
        method: 'POST',
        path: target,
        headers: { authorization: `Bearer ${userToken}` },
        json: { name: 'before' },
      }),
      403,
    );
    expectStatus(
      await send(first, {
        method: 'POST',
        path: `/admin/${String(objectOf(user).id)}/make-admin`,
        headers: { authorization: `Bearer ${adminToken}` },
      }),
      200,
    );
    expectStatus(
      await send(second, {
        method: 'POST',
        path: target,
        headers: { authorization: `Bearer ${userToken}` },
        json: { name: 'after' },
      }),
      201,
    );
  });

  it('concurrent registrations of one username across both instances leave exactly one row', async () => {
    const bases = [a?.base as string, b?.base as string];
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        send(bases[index % 2] as string, {
          method: 'POST',
          path: '/register',
          json: { username: 'contested', email: `contested_${index}@example.com`, password: PASSWORD },
        }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    assert.deepEqual(statuses, [201, ...Array(9).fill(409)], responses.map(describeResponse).join('\n'));
    const rows = await query(database.url, `select id from users where username = 'contested'`);
    assert.equal(rows.length, 1);
  });

  it('the login throttle counts attempts made on both instances', async () => {
    const [first, second] = [a?.base as string, b?.base as string];
    expectStatus(await send(first, register('throttled_x')), 201);
    const answers: HttpResponse[] = [];
    // Five wrong passwords, alternating instances, then the sixth attempt and the right password.
    for (let attempt = 0; attempt < 6; attempt += 1)
      answers.push(
        await send(attempt % 2 === 0 ? first : second, login('throttled_x', `wrong guess ${attempt}`)),
      );
    answers.push(await send(first, login('throttled_x')));
    for (const response of answers.slice(0, 5)) expectStatus(response, 401);
    for (const response of answers.slice(5)) {
      expectStatus(response, 429);
      assert.match(String(response.headers['retry-after']), /^\d+$/);
    }
  });
});

describe('instances starting at once on an empty PostgreSQL database', { ...postgres, ...redis }, () => {
  it('all come up when each updates the schema at start', async () => {
    for (let round = 0; round < 1; round += 1) {
      const database = await createTestDatabase('postgresql');
      const prefix = `kma:test:${randomBytes(6).toString('hex')}:`;
      const env = {
        SCHEMA: 'update',
        DATABASE_URL: database.url,
        JWT_SECRET: 'instances-suite-secret-of-more-than-32-bytes',
        REDIS_URL,
        THROTTLE_PREFIX: prefix,
      };
      try {
        const started = await startAll([env, env, env], 15_000);
        await Promise.all(started.map((process) => stopProcess(process)));
      } finally {
        await database.drop();
        await deleteKeys(REDIS_URL, prefix);
      }
    }
  });
});

const SESSION_FIXTURE = new URL('./fixtures/session-instance.js', import.meta.url).pathname;

for (const store of ['adapter', 'redis'] as const) {
  describe(`refresh sessions on two instances over PostgreSQL, refresh tokens in ${store === 'adapter' ? 'PostgreSQL' : 'Redis'}`, {
    ...postgres,
    ...redis,
  }, () => {
    let database: TestDatabase;
    let a: Started | undefined;
    let b: Started | undefined;
    const prefix = `kma:test:${randomBytes(6).toString('hex')}:`;
    let counter = 0;

    before(async () => {
      database = await createTestDatabase('postgresql');
      await (
        await MikroOrmAdapter.connect({
          url: database.url,
          entities: [...blogEntities, RefreshToken],
          schema: 'create',
        })
      ).close();
      const env = {
        DATABASE_URL: database.url,
        JWT_SECRET: 'instances-suite-secret-of-more-than-32-bytes',
        REDIS_URL,
        PREFIX: prefix,
        REFRESH_STORE: store,
      };
      const outcomes = await Promise.allSettled([
        startProcess(SESSION_FIXTURE, env),
        startProcess(SESSION_FIXTURE, env),
      ]);
      [a, b] = outcomes.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : undefined));
      const failed = outcomes.find(
        (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected',
      );
      if (failed !== undefined) throw failed.reason;
    });

    after(async () => {
      await Promise.all([stopProcess(a), stopProcess(b)]);
      await database?.drop();
      await deleteKeys(REDIS_URL, prefix);
    });

    /** A fresh user logged in on `base`: the login answer. */
    async function loggedIn(base: string): Promise<Record<string, unknown>> {
      counter += 1;
      const name = `session_${store}_${counter}`;
      expectStatus(await send(base, register(name)), 201);
      const response = await send(base, login(name));
      expectStatus(response, 200);
      return objectOf(response);
    }

    function refresh(refreshToken: unknown): HttpRequest {
      return { method: 'POST', path: '/refresh', json: { refresh_token: refreshToken } };
    }

    function bearer(token: unknown): { authorization: string } {
      return { authorization: `Bearer ${String(token)}` };
    }

    it('a refresh token from one instance rotates on the other; its reuse there revokes the family', async () => {
      const [first, second] = [a?.base as string, b?.base as string];
      const pair = await loggedIn(first);
      const rotated = await send(second, refresh(pair.refresh_token));
      expectStatus(rotated, 200);
      const next = objectOf(rotated);
      expectStatus(
        await send(first, { method: 'GET', path: '/posts', headers: bearer(next.access_token) }),
        200,
      );
      const replay = await send(first, refresh(pair.refresh_token));
      expectStatus(replay, 401);
      assert.equal(objectOf(replay).code, 'refresh_token_reused');
      expectStatus(await send(second, refresh(next.refresh_token)), 401);
    });

    it('of concurrent refreshes of one token on both instances at most one succeeds', async () => {
      const [first, second] = [a?.base as string, b?.base as string];
      const pair = await loggedIn(first);
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, index) =>
          send(index % 2 === 0 ? first : second, refresh(pair.refresh_token)),
        ),
      );
      const ok = answers.filter((response) => response.status === 200);
      assert.ok(ok.length <= 1, answers.map(describeResponse).join('\n'));
      assert.ok(answers.some((response) => objectOf(response).code === 'refresh_token_reused'));
    });

    it('logout on one instance ends the session on the other', async () => {
      const [first, second] = [a?.base as string, b?.base as string];
      const pair = await loggedIn(first);
      expectStatus(
        await send(second, { method: 'POST', path: '/logout', json: { refresh_token: pair.refresh_token } }),
        204,
      );
      const refused = await send(first, refresh(pair.refresh_token));
      expectStatus(refused, 401);
      assert.equal(objectOf(refused).code, 'invalid_refresh_token');
    });

    it('logout-all on one instance revokes access and refresh tokens on the other', async () => {
      const [first, second] = [a?.base as string, b?.base as string];
      const pair = await loggedIn(first);
      expectStatus(
        await send(second, { method: 'GET', path: '/posts', headers: bearer(pair.access_token) }),
        200,
      );
      expectStatus(
        await send(first, { method: 'POST', path: '/logout-all', headers: bearer(pair.access_token) }),
        204,
      );
      expectStatus(
        await send(second, { method: 'GET', path: '/posts', headers: bearer(pair.access_token) }),
        401,
      );
      expectStatus(await send(second, refresh(pair.refresh_token)), 401);
    });
  });
}
