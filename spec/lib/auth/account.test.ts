/**
 * Password reset and email verification end to end on every database target (issue 16), with the
 * messages sent by nodemailer through a real SMTP server on loopback and read back from it: the
 * reset revokes every session and its link works once and expires; `/forgot-password` answers the
 * same, in the same time, for known and unknown addresses; verification sets `verified`, which
 * clients cannot write; `require_verified_email` refuses unverified logins with 403.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import type { AccountOptions } from '../../../lib/auth/account/account-options.js';
import type { AccountService } from '../../../lib/auth/account/account-service.js';
import { mountAccountRoutes } from '../../../lib/auth/account/account-setup.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { RedisThrottleStore } from '../../../lib/auth/throttle/redis-store.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { authEntities, User } from './support/entities.js';
import { BASE_OPTIONS, call, loginToken, memoryLogger, registerUser } from './support/harness.js';
import { type SmtpSink, startSmtpSink, tokenOf } from './support/smtp-sink.js';
import { unreachableRedis } from './support/unreachable-redis.js';

/** Generous limits: the throttle has its own test. */
const OPEN_LIMITS = {
  forgot_email: { attempts: 1000, window: 60 },
  forgot_address: { attempts: 1000, window: 60 },
  reset_address: { attempts: 1000, window: 60 },
  verify_address: { attempts: 1000, window: 60 },
  verify_request: { attempts: 1000, window: 60 },
};

interface AccountApp {
  readonly server: TestServer;
  readonly account: AccountService;
  readonly app: Application;
}

/** The reference app with the account routes sending through `sink`. */
async function startApp(
  adapter: MikroOrmAdapter,
  sink: SmtpSink,
  options: AccountOptions = {},
  proxy = false,
): Promise<AccountApp> {
  const app = new Application({ title: 'account', adapter, logger: memoryLogger(), health: false, proxy });
  const auth = new AuthRouter(BASE_OPTIONS);
  auth.register_routes(app);
  new CrudRouter({ model: User, secure: true, auth_dependency: auth.get_auth_dependency() }).register_routes(
    app,
  );
  const account = mountAccountRoutes(app, auth, {
    smtp_url: sink.url,
    mail_from: 'accounts@example.com',
    reset_url: 'https://app.example.com/reset',
    verify_url: 'https://app.example.com/verify',
    throttle: OPEN_LIMITS,
    ...options,
  });
  return { server: await serve(app.callback()), account, app };
}

/** The stored row (hidden columns included). */
async function stored(adapter: MikroOrmAdapter, id: number): Promise<Record<string, unknown>> {
  const row = await adapter.get(adapter.openSession(), User, id);
  assert.ok(row !== undefined);
  return row;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

for (const target of databaseTargets().filter((name) => name !== 'sqlite-file')) {
  describe(`password reset and email verification on ${target}`, await requireTarget(target), () => {
    let database: TestDatabase;
    let adapter: MikroOrmAdapter;
    let sink: SmtpSink;
    let fx: AccountApp;
    const extra: AccountApp[] = [];
    before(async () => {
      database = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: database.url,
        entities: authEntities,
        schema: 'create',
      });
      sink = await startSmtpSink();
      fx = await startApp(adapter, sink);
    });
    after(async () => {
      for (const app of [fx, ...extra]) {
        await app?.account.idle();
        await app?.server.close();
        await app?.account.options.mailer.close?.();
      }
      await sink?.close();
      await adapter?.close();
      await database?.drop();
    });

    /** Asks for a reset of `email` and returns the token of the message that arrives. */
    async function resetToken(app: AccountApp, email: string): Promise<string> {
      const arrival = sink.next(email);
      const asked = await call(app.server, 'POST', '/forgot-password', { json: { email } });
      assert.equal(asked.status, 202, JSON.stringify(asked.body));
      return tokenOf(await arrival);
    }

    it('forgot → mail → reset: old tokens get 401, the new password logs in, the old one does not', async () => {
      const user = await registerUser(fx.server);
      const email = `${user.username}@example.com`;
      const oldToken = await loginToken(fx.server, user.username);
      const arrival = sink.next(email);
      const asked = await call(fx.server, 'POST', '/forgot-password', { json: { email } });
      assert.equal(asked.status, 202);
      assert.equal(asked.headers.get('cache-control'), 'no-store');
      const mail = await arrival;
      assert.equal(mail.subject, 'Reset your password');
      assert.match(mail.decoded, /https:\/\/app\.example\.com\/reset\?token=/);
      const token = tokenOf(mail);
      const row = await stored(adapter, user.id);
      assert.match(String(row.reset_token_hash), /^[0-9a-f]{64}$/);
      assert.ok(
        !String(row.reset_token_hash).includes(token.split('.')[1] as string),
        'only a digest is stored',
      );

      const reset = await call(fx.server, 'POST', '/reset-password', {
        json: { token, password: 'brand-new-pass' },
      });
      assert.equal(reset.status, 204, JSON.stringify(reset.body));
      assert.equal((await call(fx.server, 'GET', `/users/${user.id}`, { token: oldToken })).status, 401);
      assert.equal(
        (
          await call(fx.server, 'POST', '/login', {
            json: { username: user.username, password: 'password-1' },
          })
        ).status,
        401,
      );
      const fresh = await loginToken(fx.server, user.username, 'brand-new-pass');
      assert.equal((await call(fx.server, 'GET', `/users/${user.id}`, { token: fresh })).status, 200);
      assert.equal((await stored(adapter, user.id)).reset_token_hash, null);
    });

    it('refuses a reset token the second time, and an older link once a newer one was used', async () => {
      const user = await registerUser(fx.server);
      const email = `${user.username}@example.com`;
      const first = await resetToken(fx, email);
      const second = await resetToken(fx, email);
      const used = await call(fx.server, 'POST', '/reset-password', {
        json: { token: second, password: 'second-pass' },
      });
      assert.equal(used.status, 204);
      for (const token of [second, first]) {
        const again = await call(fx.server, 'POST', '/reset-password', {
          json: { token, password: 'third-pass!' },
        });
        assert.equal(again.status, 400);
        assert.equal(again.body.code, 'invalid_reset_token');
        assert.equal(again.headers.get('cache-control'), 'no-store');
      }
      await loginToken(fx.server, user.username, 'second-pass');
    });

    it('lets exactly one of five simultaneous resets with the same token through', async () => {
      const user = await registerUser(fx.server);
      const token = await resetToken(fx, `${user.username}@example.com`);
      const passwords = ['parallel-pw-0', 'parallel-pw-1', 'parallel-pw-2', 'parallel-pw-3', 'parallel-pw-4'];
      const responses = await Promise.all(
        passwords.map((password) =>
          call(fx.server, 'POST', '/reset-password', { json: { token, password } }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      assert.deepEqual(
        [...statuses].sort(),
        [204, 400, 400, 400, 400],
        JSON.stringify(responses.map((r) => r.body)),
      );
      const winner = passwords[statuses.indexOf(204)] as string;
      await loginToken(fx.server, user.username, winner);
    });

    it('refuses an expired reset token', async () => {
      const user = await registerUser(fx.server);
      const token = await resetToken(fx, `${user.username}@example.com`);
      await adapter.update(adapter.openSession(), User, user.id, {
        reset_token_expires: new Date(Date.now() - 1000).toISOString(),
      });
      const late = await call(fx.server, 'POST', '/reset-password', {
        json: { token, password: 'too-late-pass' },
      });
      assert.equal(late.status, 400);
      assert.equal(late.body.code, 'invalid_reset_token');
      await loginToken(fx.server, user.username, 'password-1');
    });

    it('expires reset links after reset_token_ttl seconds', async () => {
      const short = await startApp(adapter, sink, { reset_token_ttl: 1 });
      extra.push(short);
      const user = await registerUser(short.server);
      const token = await resetToken(short, `${user.username}@example.com`);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const late = await call(short.server, 'POST', '/reset-password', {
        json: { token, password: 'too-late-pass' },
      });
      assert.equal(late.body.code, 'invalid_reset_token');
    });

    it('applies the password rule before using the token, which stays usable', async () => {
      const user = await registerUser(fx.server);
      const token = await resetToken(fx, `${user.username}@example.com`);
      for (const password of ['short', 'é'.repeat(37)]) {
        const weak = await call(fx.server, 'POST', '/reset-password', { json: { token, password } });
        assert.equal(weak.status, 422, password);
        assert.equal((weak.body.errors as { path: string }[])[0]?.path, 'password');
      }
      const ok = await call(fx.server, 'POST', '/reset-password', {
        json: { token, password: 'long-enough-now' },
      });
      assert.equal(ok.status, 204);
    });

    it('refuses malformed and forged tokens with 400 or 422, never 500', async () => {
      const user = await registerUser(fx.server);
      const forged = `${user.id}.${'A'.repeat(43)}`;
      for (const token of [forged, 'nonsense', `999999.${'A'.repeat(43)}`, `x.${'A'.repeat(43)}`]) {
        const response = await call(fx.server, 'POST', '/reset-password', {
          json: { token, password: 'valid-password' },
        });
        assert.equal(response.status, 400, token);
        assert.equal(response.body.code, 'invalid_reset_token');
      }
      for (const json of [
        {},
        { token: 5, password: 'valid-password' },
        [],
        { token: 'a'.repeat(300), password: 'x-valid-pass' },
      ]) {
        assert.equal(
          (await call(fx.server, 'POST', '/reset-password', { json })).status,
          422,
          JSON.stringify(json),
        );
      }
      assert.equal(
        (await call(fx.server, 'POST', '/forgot-password', { json: { email: 'not-an-address' } })).status,
        422,
      );
    });

    it('answers an unknown address like a known one: 202, the same body, and no mail', async () => {
      const user = await registerUser(fx.server);
      const known = await call(fx.server, 'POST', '/forgot-password', {
        json: { email: `${user.username}@example.com` },
      });
      const unknown = await call(fx.server, 'POST', '/forgot-password', {
        json: { email: 'nobody-here@example.com' },
      });
      assert.equal(unknown.status, known.status);
      assert.deepEqual(unknown.body, known.body);
      await fx.account.idle();
      assert.equal(sink.countFor('nobody-here@example.com'), 0);
      assert.equal(sink.countFor(`${user.username}@example.com`) >= 1, true);
    });

    it('takes the same time for known and unknown addresses (timing does not reveal an account)', async () => {
      const users = [];
      for (let i = 0; i < 12; i += 1) users.push(await registerUser(fx.server));
      const knownTimes: number[] = [];
      const unknownTimes: number[] = [];
      for (const [i, user] of users.entries()) {
        for (const [email, times] of [
          [`${user.username}@example.com`, knownTimes],
          [`unknown-${i}-${user.username}@example.com`, unknownTimes],
        ] as const) {
          const started = performance.now();
          const response = await call(fx.server, 'POST', '/forgot-password', { json: { email } });
          times.push(performance.now() - started);
          assert.equal(response.status, 202);
          // Each request measured alone: the mail of the previous one is not competing with it.
          await fx.account.idle();
        }
      }
      const difference = Math.abs(median(knownTimes) - median(unknownTimes));
      // Sending mail takes several milliseconds and a lookup one or more: a response that waited for
      // either would differ by that much. The bound is generous for a shared, loaded machine.
      assert.ok(difference < 25, `median known ${median(knownTimes)} ms, unknown ${median(unknownTimes)} ms`);
    });

    it('throttles /forgot-password per email address with 429 and Retry-After', async () => {
      const strict = await startApp(adapter, sink, {
        throttle: { forgot_email: { attempts: 2, window: 60 } },
      });
      extra.push(strict);
      const email = 'throttled@example.com';
      for (let i = 0; i < 2; i += 1) {
        assert.equal(
          (await call(strict.server, 'POST', '/forgot-password', { json: { email } })).status,
          202,
        );
      }
      const refused = await call(strict.server, 'POST', '/forgot-password', {
        json: { email: 'THROTTLED@example.com' },
      });
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal(
        (await call(strict.server, 'POST', '/forgot-password', { json: { email: 'other@example.com' } }))
          .status,
        202,
      );
    });

    it('mails only an address that is the stored one in some case, so each has one counter', async () => {
      // MariaDB's utf8mb4_general_ci finds `vic.accent@example.com` for each look-alike below,
      // which /forgot-password would count on a counter of its own (3 mails each).
      const strict = await startApp(adapter, sink, {
        throttle: { forgot_email: { attempts: 3, window: 60 } },
      });
      extra.push(strict);
      const stored = 'vic.accent@example.com';
      await registerUser(fx.server, { email: stored });
      for (const email of ['vić.accent@example.com', 'vic.accent@exämple.com', 'VIC.ÄCCENT@EXAMPLE.COM']) {
        for (const path of ['/forgot-password', '/verify-email/request']) {
          const asked = await call(strict.server, 'POST', path, { json: { email } });
          assert.equal(asked.status, 202, `${path} ${email}`);
        }
      }
      await strict.account.idle();
      assert.equal(sink.countFor(stored), 0, 'no mail for another address');
      for (const email of ['VIC.ACCENT@EXAMPLE.COM', 'Vic.Accent@example.com', stored]) {
        assert.equal(
          (await call(strict.server, 'POST', '/forgot-password', { json: { email } })).status,
          202,
        );
      }
      const refused = await call(strict.server, 'POST', '/forgot-password', { json: { email: stored } });
      assert.equal(refused.status, 429);
      await strict.account.idle();
      assert.equal(sink.countFor(stored), 3, 'the three spellings of the stored address share its counter');
    });

    it('answers 503 naming the throttle store when its Redis cannot be reached', async () => {
      const client = unreachableRedis();
      try {
        const down = await startApp(adapter, sink, { throttle_store: new RedisThrottleStore({ client }) });
        extra.push(down);
        const response = await call(down.server, 'POST', '/forgot-password', {
          json: { email: 'anyone@example.com' },
        });
        assert.equal(response.status, 503);
        assert.equal(response.body.detail, 'The throttle store (Redis) is unavailable; retry later.');
        assert.equal(response.headers.get('retry-after'), '5');
      } finally {
        client.disconnect();
      }
    });

    it('throttles /reset-password per client address', async () => {
      const strict = await startApp(adapter, sink, {
        throttle: { reset_address: { attempts: 3, window: 60 } },
      });
      extra.push(strict);
      const statuses = [];
      for (let i = 0; i < 4; i += 1) {
        const response = await call(strict.server, 'POST', '/reset-password', {
          json: { token: `1.${'B'.repeat(43)}`, password: 'valid-password' },
        });
        statuses.push(response.status);
      }
      assert.deepEqual(statuses, [400, 400, 400, 429]);
    });

    it('counts an IPv6 client of /reset-password with the rest of its /64', async () => {
      const strict = await startApp(
        adapter,
        sink,
        { throttle: { reset_address: { attempts: 2, window: 60 } } },
        true,
      );
      extra.push(strict);
      const statuses = [];
      for (const address of ['2001:db8:a:b::1', '2001:db8:a:b::2', '2001:db8:a:b:c::3', '2001:db8:a:c::1']) {
        const response = await call(strict.server, 'POST', '/reset-password', {
          headers: { 'x-forwarded-for': address },
          json: { token: `1.${'B'.repeat(43)}`, password: 'valid-password' },
        });
        statuses.push(response.status);
      }
      assert.deepEqual(
        statuses,
        [400, 400, 429, 400],
        'the third address shares the block; the fourth does not',
      );
    });

    it('verifies an email address: request with a bearer token, mail, confirm, once', async () => {
      const user = await registerUser(fx.server);
      assert.equal(user.verified, false, 'the registration shows verified: false');
      const email = `${user.username}@example.com`;
      const token = await loginToken(fx.server, user.username);
      const arrival = sink.next(email);
      const requested = await call(fx.server, 'POST', '/verify-email/request', { token });
      assert.equal(requested.status, 202, JSON.stringify(requested.body));
      const mail = await arrival;
      assert.equal(mail.subject, 'Confirm your email address');
      const link = tokenOf(mail);
      const confirmed = await call(fx.server, 'POST', '/verify-email', { json: { token: link } });
      assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
      assert.deepEqual(confirmed.body, { verified: true });
      const shown = await call(fx.server, 'GET', `/users/${user.id}`, { token });
      assert.equal(shown.body.verified, true);
      const again = await call(fx.server, 'POST', '/verify-email', { json: { token: link } });
      assert.equal(again.status, 400);
      assert.equal(again.body.code, 'invalid_verification_token');
      assert.equal((await call(fx.server, 'POST', '/verify-email/request', { token })).status, 409);
    });

    it('never lets a client write verified: registration and PATCH leave it false', async () => {
      const user = await registerUser(fx.server, { verified: true });
      assert.equal(user.verified, false);
      const token = await loginToken(fx.server, user.username);
      const patched = await call(fx.server, 'PATCH', `/users/${user.id}`, {
        token,
        json: { verified: true },
      });
      assert.ok(patched.status === 200 || patched.status === 422, String(patched.status));
      assert.equal(
        (await stored(adapter, user.id)).verified === true || (await stored(adapter, user.id)).verified === 1,
        false,
      );
    });

    it('with require_verified_email refuses unverified logins with 403 email_not_verified, until verified', async () => {
      const strict = await startApp(adapter, sink, { require_verified_email: true });
      extra.push(strict);
      const user = await registerUser(strict.server);
      const email = `${user.username}@example.com`;
      const refused = await call(strict.server, 'POST', '/login', {
        json: { username: user.username, password: 'password-1' },
      });
      assert.equal(refused.status, 403);
      assert.equal(refused.body.code, 'email_not_verified');
      const wrong = await call(strict.server, 'POST', '/login', {
        json: { username: user.username, password: 'wrong-pass' },
      });
      assert.equal(wrong.status, 401, 'a wrong password still says nothing about verification');
      // No token yet: the link is asked for by address, answered like /forgot-password.
      const arrival = sink.next(email);
      const asked = await call(strict.server, 'POST', '/verify-email/request', { json: { email } });
      assert.equal(asked.status, 202);
      const confirmed = await call(strict.server, 'POST', '/verify-email', {
        json: { token: tokenOf(await arrival) },
      });
      assert.equal(confirmed.status, 200);
      await loginToken(strict.server, user.username);
    });

    it('answers 503 when the SMTP server is down for a verification, and logs no token for a reset', async () => {
      const down = await startApp(adapter, sink, { smtp_url: 'smtp://127.0.0.1:1' });
      extra.push(down);
      const user = await registerUser(down.server);
      const token = await loginToken(down.server, user.username);
      const requested = await call(down.server, 'POST', '/verify-email/request', { token });
      assert.equal(requested.status, 503);
      assert.equal(requested.body.code, 'service_unavailable');
      const asked = await call(down.server, 'POST', '/forgot-password', {
        json: { email: `${user.username}@example.com` },
      });
      assert.equal(asked.status, 202, 'the answer does not depend on the mail');
      await down.account.idle();
      const lines = (down.app.logger as ReturnType<typeof memoryLogger>).lines.join('\n');
      assert.match(lines, /forgot-password failed/);
      const stored = await adapter.get(adapter.openSession(), User, user.id);
      assert.ok(stored !== undefined && !lines.includes(String(stored.reset_token_hash)));
      assert.doesNotMatch(lines, /token=/);
    });

    it('documents the four routes in the OpenAPI document', async () => {
      const doc = (await call(fx.server, 'GET', '/openapi.json')).body as { paths: Record<string, unknown> };
      for (const path of ['/forgot-password', '/reset-password', '/verify-email/request', '/verify-email']) {
        assert.ok(doc.paths[path] !== undefined, path);
      }
    });
  });
}
