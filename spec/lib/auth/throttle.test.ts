import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { LoginThrottle, resolveLimits } from '../../../lib/auth/throttle/login-throttle.js';
import { MemoryThrottleStore } from '../../../lib/auth/throttle/memory-store.js';
import { RedisThrottleStore } from '../../../lib/auth/throttle/redis-store.js';
import type { ThrottleStore } from '../../../lib/auth/throttle/store.js';
import { ApiError, ConfigurationError } from '../../../lib/errors.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { type AuthFixture, call, startAuthApp } from './support/harness.js';
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

describe('MemoryThrottleStore', () => {
  it('counts attempts in a fixed window and starts a new one when it ends', async () => {
    let now = 1_000_000;
    const store = new MemoryThrottleStore({ now: () => now });
    assert.deepEqual(await store.hit('k', 60), { count: 1, retryAfterSeconds: 60 });
    now += 30_500;
    assert.deepEqual(await store.hit('k', 60), { count: 2, retryAfterSeconds: 30 });
    now += 29_500;
    assert.deepEqual(await store.hit('k', 60), { count: 1, retryAfterSeconds: 60 }, 'a new window');
  });

  it('takes an attempt back, never below zero, and resets', async () => {
    const store = new MemoryThrottleStore();
    await store.hit('k', 60);
    await store.undo('k');
    await store.undo('k');
    assert.equal((await store.hit('k', 60)).count, 1);
    await store.reset('k');
    assert.equal((await store.hit('k', 60)).count, 1);
    await store.undo('unknown');
  });

  it('keeps at most maxKeys counters, dropping ended windows and then the oldest', async () => {
    let now = 0;
    const store = new MemoryThrottleStore({ maxKeys: 3, now: () => now });
    for (let i = 0; i < 1000; i++) await store.hit(`key${i}`, 60);
    assert.equal(store.size, 3);
    assert.equal((await store.hit('key999', 60)).count, 2, 'the newest counters survive');
    now += 61_000;
    await store.hit('fresh', 60);
    assert.equal(store.size, 1, 'ended windows go first');
    assert.throws(() => new MemoryThrottleStore({ maxKeys: 0 }), ConfigurationError);
  });

  it('when full, keeps a counter of many attempts while fresh keys of one attempt come and go', async () => {
    const store = new MemoryThrottleStore({ maxKeys: 3 });
    // An account guessed at five times, then guesses spread over a thousand fresh addresses.
    for (let i = 0; i < 5; i++) await store.hit('user:alice', 900);
    for (let i = 0; i < 1000; i++) await store.hit(`address:${i}`, 900);
    assert.equal(store.size, 3);
    assert.equal((await store.hit('user:alice', 900)).count, 6, 'the account counter was never pushed out');
    // Fresh keys hit twice each: still fewer than the account's.
    for (let i = 0; i < 1000; i++) {
      await store.hit(`twice:${i}`, 900);
      await store.hit(`twice:${i}`, 900);
    }
    assert.equal((await store.hit('user:alice', 900)).count, 7);
  });
});

describe('LoginThrottle', () => {
  const limits = resolveLimits({
    username: { attempts: 3, window: 60 },
    address: { attempts: 5, window: 120 },
  });

  async function tooMany(run: () => Promise<void>): Promise<ApiError> {
    try {
      await run();
    } catch (error) {
      assert.ok(error instanceof ApiError);
      return error;
    }
    assert.fail('expected a 429');
  }

  it('refuses the attempt after the (username, address) limit with 429 and Retry-After', async () => {
    const throttle = new LoginThrottle(new MemoryThrottleStore(), limits);
    for (let i = 0; i < 3; i++) await throttle.attempt('alice', '10.0.0.1');
    const error = await tooMany(() => throttle.attempt('alice', '10.0.0.1'));
    assert.equal(error.status, 429);
    assert.equal(error.headers['Retry-After'], '60');
    await throttle.attempt('bob', '10.0.0.1');
  });

  it('never locks an account for its owner at another address (lockout abuse)', async () => {
    const throttle = new LoginThrottle(new MemoryThrottleStore(), limits);
    for (let i = 0; i < 3; i++) await throttle.attempt('alice', '203.0.113.9');
    await tooMany(() => throttle.attempt('alice', '203.0.113.9'));
    // The owner, elsewhere, is counted on a pair of their own.
    await throttle.attempt('alice', '10.0.0.2');
    await throttle.succeeded('alice', '10.0.0.2');
  });

  it('counts a name as given: the caller passes the stored normal form', async () => {
    const throttle = new LoginThrottle(new MemoryThrottleStore(), limits);
    for (let i = 0; i < 3; i++) await throttle.attempt('alice', '10.0.0.1');
    await throttle.attempt('Alice', '10.0.0.1');
  });

  it('counts registrations per address', async () => {
    const throttle = new LoginThrottle(
      new MemoryThrottleStore(),
      resolveLimits({ register: { attempts: 2, window: 3600 } }),
    );
    await throttle.registration('10.0.0.1');
    await throttle.registration('10.0.0.1');
    const error = await tooMany(() => throttle.registration('10.0.0.1'));
    assert.equal(error.headers['Retry-After'], '3600');
    await throttle.registration('10.0.0.2');
  });

  it('limits one address across usernames, and a success forgives its own attempt', async () => {
    const throttle = new LoginThrottle(new MemoryThrottleStore(), limits);
    for (let i = 0; i < 4; i++) await throttle.attempt(`user${i}`, '10.0.0.1');
    await throttle.attempt('good', '10.0.0.1');
    await throttle.succeeded('good', '10.0.0.1');
    await throttle.attempt('user9', '10.0.0.1');
    const error = await tooMany(() => throttle.attempt('user10', '10.0.0.1'));
    assert.equal(error.headers['Retry-After'], '120');
  });

  it('clears the username counter on success', async () => {
    const throttle = new LoginThrottle(new MemoryThrottleStore(), limits);
    for (let i = 0; i < 3; i++) await throttle.attempt('carol', '10.0.0.1');
    await throttle.succeeded('carol', '10.0.0.1');
    await throttle.attempt('carol', '10.0.0.1');
  });

  it('fails closed with 503 when the store cannot answer', async () => {
    const broken: ThrottleStore = {
      hit: () => Promise.reject(new Error('down')),
      undo: () => Promise.reject(new Error('down')),
      reset: () => Promise.reject(new Error('down')),
    };
    const error = await tooMany(() => new LoginThrottle(broken, limits).attempt('dave', '10.0.0.1'));
    assert.equal(error.status, 503);
    // The store, not the database: an operator reading the answer looks at the right server.
    assert.equal(error.message, 'The throttle store is unavailable; retry later.');
    assert.equal(error.headers['Retry-After'], '5');
  });

  it('names Redis in the 503 of a Redis store that cannot be reached', async () => {
    const client = unreachableRedis();
    try {
      const store = new RedisThrottleStore({ client });
      const error = await tooMany(() => new LoginThrottle(store, limits).attempt('dave', '10.0.0.1'));
      assert.equal(error.code, 'service_unavailable');
      assert.equal(error.message, 'The throttle store (Redis) is unavailable; retry later.');
      assert.equal(error.headers['Retry-After'], '5');
    } finally {
      client.disconnect();
    }
  });

  it('checks the limits', () => {
    assert.deepEqual(resolveLimits(undefined), {
      username: { attempts: 5, window: 900 },
      address: { attempts: 100, window: 900 },
      register: { attempts: 50, window: 900 },
    });
    assert.throws(() => resolveLimits({ register: { attempts: 0, window: 60 } }), ConfigurationError);
    assert.throws(() => resolveLimits({ username: { attempts: 0, window: 60 } }), ConfigurationError);
    assert.throws(() => resolveLimits({ address: { attempts: 1, window: 0.5 } }), ConfigurationError);
  });
});

describe('RedisThrottleStore (local Redis)', await redisAvailable(), () => {
  const prefix = `kma:test:${randomBytes(6).toString('hex')}:`;
  let first: RedisThrottleStore;
  let second: RedisThrottleStore;
  let admin: Redis;

  before(() => {
    first = new RedisThrottleStore({ url: REDIS_URL, prefix });
    admin = new Redis(REDIS_URL);
    second = new RedisThrottleStore({ client: admin, prefix });
  });

  after(async () => {
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    await first.close();
    await second.close();
    await admin.quit();
  });

  it('shares counters between instances, with a window set on the first attempt', async () => {
    assert.deepEqual(await first.hit('k', 60), { count: 1, retryAfterSeconds: 60 });
    assert.equal((await second.hit('k', 60)).count, 2);
    const ttl = await admin.pttl(`${prefix}k`);
    assert.ok(ttl > 58_000 && ttl <= 60_000, `ttl ${ttl}`);
  });

  it('counts parallel attempts exactly', async () => {
    const hits = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? first : second).hit('p', 60)),
    );
    assert.deepEqual(
      hits.map((hit) => hit.count).sort((a, b) => a - b),
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it('undoes never below zero and resets', async () => {
    await first.hit('u', 60);
    await first.undo('u');
    await second.undo('u');
    assert.equal(await admin.get(`${prefix}u`), '0');
    assert.equal((await first.hit('u', 60)).count, 1);
    await first.reset('u');
    assert.equal(await admin.exists(`${prefix}u`), 0);
  });

  it('drives the login throttle across instances', async () => {
    const limits = resolveLimits({ username: { attempts: 2, window: 30 } });
    const a = new LoginThrottle(first, limits);
    const b = new LoginThrottle(second, limits);
    await a.attempt('erin', '10.1.1.1');
    await b.attempt('erin', '10.1.1.1');
    await assert.rejects(a.attempt('erin', '10.1.1.1'), (error: ApiError) => error.status === 429);
    // Another address keeps its own pair counter.
    await b.attempt('erin', '10.1.1.2');
  });

  it('needs exactly one of client or url', () => {
    assert.throws(() => new RedisThrottleStore({}), ConfigurationError);
    assert.throws(() => new RedisThrottleStore({ url: 'http://x' }), ConfigurationError);
  });
});

for (const target of databaseTargets()) {
  describe(`a throttle store that cannot be reached, on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    const client = unreachableRedis();
    before(async () => {
      fx = await startAuthApp(target, { throttle: { store: new RedisThrottleStore({ client }) } });
    });
    after(async () => {
      client.disconnect();
      await fx?.close();
    });

    it('refuses logins and registrations with 503 naming the throttle store, not the database', async () => {
      for (const [path, json] of [
        ['/login', { username: 'nobody', password: 'password-1' }],
        ['/register', { username: 'newcomer', email: 'newcomer@example.com', password: 'password-1' }],
      ] as const) {
        const response = await call(fx.server, 'POST', path, { json });
        assert.equal(response.status, 503, path);
        assert.equal(response.body.code, 'service_unavailable');
        assert.equal(response.body.detail, 'The throttle store (Redis) is unavailable; retry later.');
        assert.equal(response.headers.get('retry-after'), '5');
      }
    });
  });
}
