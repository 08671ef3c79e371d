/**
 * Floods and lockout abuse (issue 15): `/register` is throttled per address and answers a taken
 * name with 409 before any hash; the hashing queue is bounded (503 with `Retry-After` when full);
 * a flood of duplicate registrations leaves a login's latency within 2× idle; failed logins from
 * one address never lock the account for its owner at another. On every database target.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { BcryptHasher, type PasswordHasher } from '../../../lib/auth/hashers.js';
import { HashingThreads } from '../../../lib/auth/hashing-threads.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import type { TestServer } from '../../support/http.js';
import { type AuthFixture, call, registerUser, startAuthApp } from './support/harness.js';

/** A hasher that counts the hashes it computes. */
function countingHasher(inner: PasswordHasher): PasswordHasher & { hashes: number } {
  const counter = {
    hashes: 0,
    scheme: inner.scheme,
    recognizes: (stored: string) => inner.recognizes(stored),
    verify: (password: string, stored: string) => inner.verify(password, stored),
    isOutdated: (stored: string) => inner.isOutdated(stored),
    hash: (password: string) => {
      counter.hashes += 1;
      return inner.hash(password);
    },
  };
  return counter;
}

/** POST JSON from a given loopback source address (Linux routes all of 127/8 to the loopback). */
function postFrom(
  server: TestServer,
  localAddress: string,
  path: string,
  json: unknown,
): Promise<{ status: number; retryAfter: string | undefined }> {
  const body = JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const req = request(
      `${server.url}${path}`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Milliseconds of one correct login. */
async function timedLogin(server: TestServer, username: string, password: string): Promise<number> {
  const started = performance.now();
  const response = await call(server, 'POST', '/login', { json: { username, password } });
  assert.equal(response.status, 200);
  return performance.now() - started;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

for (const target of databaseTargets()) {
  describe(`floods and lockout abuse on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    before(async () => {
      fx = await startAuthApp(target);
    });
    after(() => fx?.close());

    it('answers a taken username or email with 409 without computing a hash', async () => {
      const hasher = countingHasher(new BcryptHasher({ cost: 4 }));
      const counted = await fx.variant({ password_hasher: hasher, bcrypt_cost: undefined });
      const taken = await registerUser(counted.server);
      const before = hasher.hashes;
      const byName = await call(counted.server, 'POST', '/register', {
        json: {
          username: taken.username.toUpperCase(),
          email: 'fresh-1@example.com',
          password: 'password-1',
        },
      });
      assert.equal(byName.status, 409);
      assert.deepEqual(byName.body.errors, [{ path: 'username', message: 'already exists' }]);
      const byEmail = await call(counted.server, 'POST', '/register', {
        json: { username: 'fresh_name_1', email: String(taken.email), password: 'password-1' },
      });
      assert.equal(byEmail.status, 409);
      assert.equal(hasher.hashes, before, 'no hash for a registration that cannot succeed');
    });

    it('throttles valid registrations per client address, duplicates included', async () => {
      const limited = await fx.variant({});
      const taken = await registerUser(limited.server);
      const statuses: number[] = [];
      for (let i = 0; i < 51; i++) {
        const response = await call(limited.server, 'POST', '/register', {
          json: { username: taken.username, email: `again-${i}@example.com`, password: 'password-1' },
        });
        statuses.push(response.status);
      }
      assert.ok(
        statuses.slice(0, 49).every((status) => status === 409),
        statuses.join(','),
      );
      assert.deepEqual(statuses.slice(49), [429, 429]);
      // A body refused with 422 is not counted, and another address has a budget of its own.
      const invalid = await call(limited.server, 'POST', '/register', { json: { username: 'x' } });
      assert.equal(invalid.status, 422);
      const elsewhere = await postFrom(limited.server, '127.0.0.2', '/register', {
        username: taken.username,
        email: 'elsewhere@example.com',
        password: 'password-1',
      });
      assert.equal(elsewhere.status, 409);
    });

    it('keeps a correct login within 2x its idle latency (plus scheduling slack) under 60 parallel duplicate registrations', async () => {
      // A real cost, so that 60 hashes (the flaw) would cost seconds: the gap is the evidence.
      const flooded = await fx.variant({ bcrypt_cost: 10 });
      const user = await registerUser(flooded.server);
      await timedLogin(flooded.server, user.username, 'password-1');
      const idle = median(
        await [0, 1, 2, 3, 4].reduce<Promise<number[]>>(
          async (all) => [...(await all), await timedLogin(flooded.server, user.username, 'password-1')],
          Promise.resolve([]),
        ),
      );
      const flood = Array.from({ length: 60 }, () =>
        call(flooded.server, 'POST', '/register', {
          json: {
            username: user.username,
            email: `dup-${user.username}@example.com`,
            password: 'password-1',
          },
        }),
      );
      const during = await timedLogin(flooded.server, user.username, 'password-1');
      const answers = await Promise.all(flood);
      assert.ok(
        answers.every((answer) => answer.status === 409 || answer.status === 429),
        answers.map((answer) => answer.status).join(','),
      );
      // 2x idle plus room for two cores shared with other CI steps (one login measured 439 ms against
      // 96 ms idle there, another 523 ms against 59 ms in a full local run); 60 hashes in the way (the
      // flaw) take about two seconds at cost 10, so 800 ms of slack still tells them apart.
      assert.ok(
        during <= 2 * idle + 800,
        `login took ${during.toFixed(0)} ms under the flood, ${idle.toFixed(0)} ms idle`,
      );
    });

    it('answers 503 with Retry-After when the hashing queue is full, and serves again once it drains', async () => {
      const threads = new HashingThreads({ size: 1, maxQueue: 1 });
      try {
        const tight = await fx.variant({
          password_hasher: new BcryptHasher({ cost: 10, threads }),
          bcrypt_cost: undefined,
        });
        const answers = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            call(tight.server, 'POST', '/register', {
              json: {
                username: `queued_${target}_${i}`,
                email: `queued-${i}@example.com`,
                password: 'password-1',
              },
            }),
          ),
        );
        const busy = answers.filter((answer) => answer.status === 503);
        assert.ok(busy.length > 0, answers.map((answer) => answer.status).join(','));
        assert.ok(answers.every((answer) => answer.status === 201 || answer.status === 503));
        for (const answer of busy) {
          assert.equal(answer.body.code, 'service_unavailable');
          assert.ok(Number(answer.headers.get('retry-after')) >= 1);
          assert.equal(answer.headers.get('cache-control'), 'no-store');
        }
        const later = await call(tight.server, 'POST', '/register', {
          json: {
            username: `queued_${target}_later`,
            email: 'queued-later@example.com',
            password: 'password-1',
          },
        });
        assert.equal(later.status, 201);
      } finally {
        await threads.close();
      }
    });

    it('never locks the account for its owner at another address', async () => {
      const guarded = await fx.variant({});
      const victim = await registerUser(guarded.server);
      const attempts = [];
      for (let i = 0; i < 7; i++) {
        attempts.push(
          await postFrom(guarded.server, '127.0.0.3', '/login', {
            username: victim.username,
            password: `guess-${i}-x`,
          }),
        );
      }
      assert.deepEqual(
        attempts.map((attempt) => attempt.status),
        [401, 401, 401, 401, 401, 429, 429],
      );
      assert.ok(Number(attempts[6]?.retryAfter) >= 1);
      // The owner, elsewhere, logs in; so does the right password from a third address.
      const owner = await call(guarded.server, 'POST', '/login', {
        json: { username: victim.username, password: 'password-1' },
      });
      assert.equal(owner.status, 200);
      const third = await postFrom(guarded.server, '127.0.0.4', '/login', {
        username: victim.username,
        password: 'password-1',
      });
      assert.equal(third.status, 200);
    });
  });
}
