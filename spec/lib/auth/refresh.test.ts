/**
 * Refresh tokens and logout (issue 16) through HTTP: `/login` answers a refresh token stored only
 * as a hash; `POST /refresh` rotates it and a used token presented again revokes its family;
 * expiry, `POST /logout`, `POST /logout-all` (the old access token stops working), password
 * changes and `revoke_sessions`. Run with the adapter store on every database target, and with
 * the Redis and the default in-memory stores on SQLite.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import Koa from 'koa';
import { Application } from '../../../lib/application.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { AdapterRefreshStore } from '../../../lib/auth/sessions/adapter-store.js';
import { MemoryRefreshStore } from '../../../lib/auth/sessions/memory-store.js';
import { RedisRefreshStore } from '../../../lib/auth/sessions/redis-store.js';
import { parseRefreshToken, sessionUser, successorId } from '../../../lib/auth/sessions/refresh-tokens.js';
import type { RefreshTokenStore } from '../../../lib/auth/sessions/store.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { serve } from '../../support/http.js';
import { Post, User } from './support/entities.js';
import { BASE_OPTIONS, call, memoryLogger, registerUser } from './support/harness.js';
import { RefreshToken } from './support/refresh-entities.js';
import {
  accessStatus,
  loggedInUser,
  login,
  pairOf,
  refresh,
  type SessionFixture,
  startSessionApp,
} from './support/sessions-harness.js';
import { unreachableRedis } from './support/unreachable-redis.js';

const REDIS_URL = process.env.KMA_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisAvailable(): Promise<{ skip?: string }> {
  const client = new Redis(REDIS_URL, {
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return {};
  } catch (error) {
    if (process.env.CI === 'true')
      throw new Error(`CI=true requires Redis at ${REDIS_URL}: ${(error as Error).message}`);
    return { skip: `Redis at ${REDIS_URL} does not answer` };
  } finally {
    client.disconnect();
  }
}

/**
 * A token for a record written straight into the store (e.g. one that expired an hour ago), issued
 * now: a record issued before its user existed is refused whatever its expiry (reused-keys.test.ts).
 */
/** The table of the test's user model. */
const USERS = 'users';

async function plantToken(fx: SessionFixture, user: number, expiresAt: number): Promise<string> {
  const id = randomBytes(16).toString('base64url');
  const secret = randomBytes(32).toString('base64url');
  const inserted = await fx.auth.sessions.store.insert(
    { adapter: fx.adapter },
    {
      id,
      family: id,
      user: sessionUser(USERS, String(user)),
      secretHash: createHash('sha256').update(secret).digest('base64url'),
      issuedAt: Date.now(),
      expiresAt,
    },
  );
  assert.ok(inserted);
  return `${id}.${secret}`;
}

/** The behaviour every store must give, on one running application. */
function sessionBehaviour(fixture: () => SessionFixture): void {
  it('login answers an opaque refresh token beside the access token', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    assert.equal(alice.body.token_type, 'bearer');
    assert.equal(typeof alice.body.refresh_expires_in, 'number');
    assert.ok(parseRefreshToken(alice.refresh_token) !== undefined, alice.refresh_token);
    assert.ok(alice.refresh_token.split('.')[1]?.length === 43, '32 random bytes of secret');
  });

  it('refresh rotates: a new working access token and a different refresh token', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    const response = await refresh(server, alice.refresh_token);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const next = pairOf(response.body);
    assert.notEqual(next.refresh_token, alice.refresh_token);
    assert.equal(await accessStatus(server, alice.id, next.access_token), 200);
    const again = await refresh(server, next.refresh_token);
    assert.equal(again.status, 200, 'the successor rotates in turn');
  });

  it('a used refresh token presented again answers 401 refresh_token_reused and revokes the family', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    const other = await login(server, alice.username);
    const next = pairOf((await refresh(server, alice.refresh_token)).body);
    const replay = await refresh(server, alice.refresh_token);
    assert.equal(replay.status, 401);
    assert.equal(replay.body.code, 'refresh_token_reused');
    assert.ok(replay.headers.get('www-authenticate')?.startsWith('Bearer'));
    const successor = await refresh(server, next.refresh_token);
    assert.equal(successor.status, 401, 'the successor of a reused token is revoked too');
    assert.equal(successor.body.code, 'invalid_refresh_token');
    assert.equal((await refresh(server, other.refresh_token)).status, 200, 'another login is untouched');
  });

  it('of concurrent refreshes with one token at most one succeeds, and reuse is detected', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    const results = await Promise.all(Array.from({ length: 4 }, () => refresh(server, alice.refresh_token)));
    const ok = results.filter((r) => r.status === 200);
    assert.ok(ok.length <= 1, `successes: ${ok.length}`);
    assert.ok(results.some((r) => r.body.code === 'refresh_token_reused'));
    for (const winner of ok)
      assert.equal((await refresh(server, String(winner.body.refresh_token))).status, 401);
  });

  it('an expired refresh token answers 401 refresh_token_expired', async () => {
    const fx = fixture();
    const alice = await loggedInUser(fx.server);
    const token = await plantToken(fx, alice.id, Date.now() - 3600_000);
    const response = await refresh(fx.server, token);
    assert.equal(response.status, 401);
    assert.equal(response.body.code, 'refresh_token_expired');
    const alive = await plantToken(fx, alice.id, Date.now() + 3600_000);
    assert.equal((await refresh(fx.server, alive)).status, 200, 'the same kind of record, not expired');
  });

  it('unknown, forged and malformed refresh tokens answer 401 invalid_refresh_token; a missing one 422', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    const [id] = alice.refresh_token.split('.');
    const forged = `${id}.${randomBytes(32).toString('base64url')}`;
    const guessedSuccessor = `${successorId(String(id))}.${randomBytes(32).toString('base64url')}`;
    for (const token of [
      forged,
      guessedSuccessor,
      'not-a-token',
      `${alice.refresh_token}x`,
      alice.access_token,
    ]) {
      const response = await refresh(server, token);
      assert.equal(response.status, 401, token);
      assert.equal(response.body.code, 'invalid_refresh_token');
    }
    assert.equal((await refresh(server, alice.refresh_token)).status, 200, 'failed guesses revoke nothing');
    assert.equal((await call(server, 'POST', '/refresh', { json: {} })).status, 422);
    assert.equal((await call(server, 'POST', '/refresh', { json: { refresh_token: 5 } })).status, 422);
  });

  it('takes the OAuth2 refresh form', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    const response = await call(server, 'POST', '/refresh', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(alice.refresh_token)}`,
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
  });

  it('logout revokes the family with 204 and is idempotent', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    const next = pairOf((await refresh(server, alice.refresh_token)).body);
    const out = await call(server, 'POST', '/logout', { json: { refresh_token: next.refresh_token } });
    assert.equal(out.status, 204);
    assert.equal((await refresh(server, next.refresh_token)).body.code, 'invalid_refresh_token');
    const again = await call(server, 'POST', '/logout', { json: { refresh_token: next.refresh_token } });
    assert.equal(again.status, 204);
    const unknown = await call(server, 'POST', '/logout', { json: { refresh_token: 'whatever' } });
    assert.equal(unknown.status, 204);
    assert.equal((await call(server, 'POST', '/logout', { json: {} })).status, 422);
  });

  it('logout-all makes the old access token 401 and revokes every refresh token of the user', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    const second = await login(server, alice.username);
    const bob = await loggedInUser(server);
    assert.equal((await call(server, 'POST', '/logout-all', {})).status, 401, 'needs a bearer token');
    const out = await call(server, 'POST', '/logout-all', { token: second.access_token });
    assert.equal(out.status, 204, JSON.stringify(out.body));
    assert.equal(await accessStatus(server, alice.id, alice.access_token), 401);
    assert.equal(await accessStatus(server, alice.id, second.access_token), 401);
    for (const token of [alice.refresh_token, second.refresh_token]) {
      assert.equal((await refresh(server, token)).body.code, 'invalid_refresh_token');
    }
    assert.equal(
      await accessStatus(server, bob.id, bob.access_token),
      200,
      'other users keep their sessions',
    );
    assert.equal((await refresh(server, bob.refresh_token)).status, 200);
    const fresh = await login(server, alice.username);
    assert.equal(await accessStatus(server, alice.id, fresh.access_token), 200);
    assert.equal((await refresh(server, fresh.refresh_token)).status, 200);
  });

  it('change-password revokes older refresh tokens and answers a working new one', async () => {
    const { server } = fixture();
    const alice = await loggedInUser(server);
    const changed = await call(server, 'POST', '/change-password', {
      token: alice.access_token,
      json: { current_password: 'password-1', new_password: 'password-2' },
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.equal((await refresh(server, alice.refresh_token)).body.code, 'invalid_refresh_token');
    const response = await refresh(server, String(changed.body.refresh_token));
    assert.equal(response.status, 200, JSON.stringify(response.body));
  });

  it('revoke_sessions revokes the refresh tokens too', async () => {
    const fx = fixture();
    const alice = await loggedInUser(fx.server);
    assert.equal(await fx.auth.revoke_sessions(alice.id), true);
    assert.equal((await refresh(fx.server, alice.refresh_token)).body.code, 'invalid_refresh_token');
    assert.equal(await accessStatus(fx.server, alice.id, alice.access_token), 401);
  });

  it('a refresh token of a deleted user answers 401 invalid_refresh_token', async () => {
    const fx = fixture();
    const alice = await loggedInUser(fx.server);
    assert.equal(await fx.adapter.delete(fx.adapter.openSession(), User, alice.id), true);
    assert.equal((await refresh(fx.server, alice.refresh_token)).body.code, 'invalid_refresh_token');
  });
}

for (const target of databaseTargets()) {
  describe(
    `refresh sessions in the database (AdapterRefreshStore) on ${target}`,
    await requireTarget(target),
    () => {
      let fx: SessionFixture;
      before(async () => {
        fx = await startSessionApp(target, () => ({
          refresh_store: new AdapterRefreshStore({ model: RefreshToken }),
        }));
      });
      after(() => fx?.close());
      sessionBehaviour(() => fx);

      it('stores only a hash of the secret, bound to the user and a family', async () => {
        const alice = await loggedInUser(fx.server);
        const parts = parseRefreshToken(alice.refresh_token);
        assert.ok(parts);
        const row = await fx.adapter.get(fx.adapter.openSession(), RefreshToken, parts.id);
        assert.ok(row);
        // The user's table and key: a store two routers on other user models share keeps them apart.
        assert.equal(row.user_id, `${USERS}:${String(alice.id)}`);
        assert.equal(row.family, parts.id);
        assert.equal(row.secret_hash, createHash('sha256').update(parts.secret).digest('base64url'));
        assert.ok(!JSON.stringify(row).includes(parts.secret), 'the secret itself is nowhere');
      });

      it('purgeExpired deletes expired rows only', async () => {
        const alice = await loggedInUser(fx.server);
        const store = fx.auth.sessions.store as AdapterRefreshStore;
        const expired = parseRefreshToken(await plantToken(fx, alice.id, Date.now() - 1000));
        assert.ok(expired);
        assert.ok((await store.purgeExpired({ adapter: fx.adapter })) >= 1);
        assert.equal(await fx.adapter.get(fx.adapter.openSession(), RefreshToken, expired.id), undefined);
        assert.equal((await refresh(fx.server, alice.refresh_token)).status, 200);
      });
    },
  );
}

describe('refresh sessions in Redis (RedisRefreshStore)', await redisAvailable(), () => {
  let fx: SessionFixture;
  let store: RedisRefreshStore;
  before(async () => {
    store = new RedisRefreshStore({ url: REDIS_URL, prefix: `kma:test:${randomBytes(4).toString('hex')}:` });
    fx = await startSessionApp('sqlite-memory', () => ({ refresh_store: store }));
  });
  after(async () => {
    await fx?.close();
    await store?.close();
  });
  sessionBehaviour(() => fx);
});

describe('refresh sessions in a Redis that cannot be reached', () => {
  let fx: SessionFixture;
  const client = unreachableRedis();
  before(async () => {
    fx = await startSessionApp('sqlite-memory', () => ({ refresh_store: new RedisRefreshStore({ client }) }));
  });
  after(async () => {
    await fx?.close();
    client.disconnect();
  });

  it('answers a login 503 with Retry-After, naming the session store', async () => {
    const user = await registerUser(fx.server);
    const response = await call(fx.server, 'POST', '/login', {
      json: { username: user.username, password: 'password-1' },
    });
    assert.equal(response.status, 503);
    assert.equal(response.headers.get('retry-after'), '5');
    assert.equal(response.body.code, 'service_unavailable');
    assert.match(String(response.body.detail), /session store \(Redis\)/);
  });
});

describe('refresh sessions with the default in-memory store', () => {
  let fx: SessionFixture;
  before(async () => {
    fx = await startSessionApp('sqlite-memory');
  });
  after(() => fx?.close());
  sessionBehaviour(() => fx);

  it('is a MemoryRefreshStore', () => {
    assert.ok(fx.auth.sessions.store instanceof MemoryRefreshStore);
  });
});

describe('refresh options and documentation', () => {
  it('refuses a bad store, a bad lifetime, and a model that is not a refresh-token model', () => {
    assert.throws(
      () => new AuthRouter({ ...BASE_OPTIONS, refresh_store: {} as unknown as RefreshTokenStore }),
      ConfigurationError,
    );
    assert.throws(() => new AuthRouter({ ...BASE_OPTIONS, refresh_token_lifetime: 5 }), ConfigurationError);
    assert.throws(
      () => new AuthRouter({ ...BASE_OPTIONS, refreshTokenLifetime: 3600, refresh_token_lifetime: 7200 }),
      ConfigurationError,
    );
    assert.throws(() => new AdapterRefreshStore({ model: Post }), ConfigurationError);
    class Loose extends FrameworkModel {}
    assert.throws(() => new AdapterRefreshStore({ model: Loose }), ConfigurationError);
  });

  it('refuses at registration a refresh-token model the ORM does not know', async () => {
    const fx = await startSessionApp('sqlite-memory');
    try {
      class Unregistered extends (
        await import('../../../lib/auth/sessions/refresh-token-model.js')
      ).RefreshTokenMixin(FrameworkModel) {}
      const app = new Application({ title: 'x', adapter: fx.adapter, logger: memoryLogger(), health: false });
      const auth = new AuthRouter({
        ...BASE_OPTIONS,
        refresh_store: new AdapterRefreshStore({ model: Unregistered }),
      });
      assert.throws(() => auth.register_routes(app), ConfigurationError);
    } finally {
      await fx.close();
    }
  });

  it('serves /refresh, /logout and /logout-all through auth.middleware() on a plain Koa app', async () => {
    const fx = await startSessionApp('sqlite-memory');
    const auth = new AuthRouter({
      ...BASE_OPTIONS,
      adapter: fx.adapter,
      refresh_store: new AdapterRefreshStore({ model: RefreshToken }),
    });
    const koa = new Koa();
    koa.use(auth.middleware());
    const server = await serve(koa.callback());
    try {
      const alice = await loggedInUser(fx.server);
      const pair = await login(server, alice.username);
      const rotated = await refresh(server, pair.refresh_token);
      assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
      const next = pairOf(rotated.body);
      assert.equal(
        (await call(server, 'POST', '/logout', { json: { refresh_token: next.refresh_token } })).status,
        204,
      );
      // Without the framework's error middleware, Koa answers the problem as plain text.
      const refused = await server.request('/refresh', {
        method: 'POST',
        json: { refresh_token: next.refresh_token },
      });
      assert.equal(refused.status, 401);
      assert.equal((await call(server, 'POST', '/logout-all', { token: next.access_token })).status, 204);
      assert.equal(await accessStatus(fx.server, alice.id, next.access_token), 401);
    } finally {
      await server.close();
      await fx.close();
    }
  });

  it('warns in production when refresh tokens stay in the default in-memory store', async () => {
    const fx = await startSessionApp('sqlite-memory');
    const saved = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      const logged = (store?: RefreshTokenStore): string[] => {
        const logger = memoryLogger();
        const app = new Application({ title: 'x', adapter: fx.adapter, logger, health: false });
        new AuthRouter({
          ...BASE_OPTIONS,
          ...(store === undefined ? {} : { refresh_store: store }),
        }).register_routes(app);
        return logger.lines.filter((line) => line.includes('refresh tokens are kept in memory'));
      };
      assert.equal(logged().length, 1);
      assert.equal(logged(new AdapterRefreshStore({ model: RefreshToken })).length, 0);
    } finally {
      process.env.NODE_ENV = saved;
      await fx.close();
    }
  });

  it('documents /refresh, /logout and /logout-all, and the login response has refresh_token', async () => {
    const fx = await startSessionApp('sqlite-memory');
    try {
      const doc = (await call(fx.server, 'GET', '/openapi.json')).body as {
        paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>>;
        components: { schemas: Record<string, { required?: string[] }> };
      };
      assert.ok(doc.paths['/refresh']?.post?.responses['200']);
      assert.ok(doc.paths['/refresh']?.post?.responses['401']);
      assert.ok(doc.paths['/logout']?.post?.responses['204']);
      assert.ok(doc.paths['/logout-all']?.post?.security, 'logout-all needs the bearer token');
      assert.ok(doc.components.schemas.AccessToken?.required?.includes('refresh_token'));
    } finally {
      await fx.close();
    }
  });
});
