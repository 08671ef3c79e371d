/**
 * Password reset and email verification under attack (issue 16): a reset token works once and
 * expires, a reset ends every session, `/forgot-password` says the same about known and unknown
 * addresses (body and timing), it is throttled per address, tokens cannot be forged, and a client
 * cannot mark itself verified. The links are read from the development transport (ConsoleMailer);
 * the SMTP path is tested end to end in spec/lib/auth/account.test.ts.
 */
import assert from 'node:assert/strict';
import type { AccountService } from '../../../lib/auth/account/account-service.js';
import { mountAccountRoutes } from '../../../lib/auth/account/account-setup.js';
import { ConsoleMailer } from '../../../lib/auth/mail/mailer.js';
import { expectStatus, type SecurityCase } from '../support/cases.js';
import type { HttpRequest, HttpResponse } from '../support/client.js';
import type { World } from '../support/world.js';

interface WorldAccount {
  readonly service: AccountService;
  readonly mailer: ConsoleMailer;
}

const mounted = new WeakMap<World, WorldAccount>();

/**
 * The account routes of the world's app: the app's own once it wires them with the console
 * transport (`auth.account`), else mounted here on first use with that transport.
 */
function accountOf(world: World): WorldAccount {
  let account = mounted.get(world);
  if (account === undefined) {
    const wired = (world.blog.auth as { account?: AccountService }).account;
    if (wired !== undefined && wired.options.mailer instanceof ConsoleMailer) {
      account = { service: wired, mailer: wired.options.mailer };
    } else {
      const mailer = new ConsoleMailer(world.logger);
      account = { service: mountAccountRoutes(world.blog.app, world.blog.auth, { mailer }), mailer };
    }
    mounted.set(world, account);
  }
  return account;
}

/** The token of the newest message to `email`, once the background work is done. */
async function mailedToken(world: World, email: string): Promise<string> {
  const { service, mailer } = accountOf(world);
  await service.idle();
  const mail = [...mailer.sent].reverse().find((message) => message.to === email);
  assert.ok(mail !== undefined, `a message to ${email}`);
  const match = /[?&]token=([^\s&]+)/.exec(mail.text);
  assert.ok(match !== null, mail.text);
  return decodeURIComponent(match[1] as string);
}

function forgot(email: string): HttpRequest {
  return { method: 'POST', path: '/forgot-password', json: { email } };
}

/** Mounts the routes if needed, asks for a reset of `email`, and checks the 202. */
async function askReset(world: World, email: string): Promise<void> {
  accountOf(world);
  expectStatus(await world.send(forgot(email)), 202);
}

function reset(token: string, password: string): HttpRequest {
  return { method: 'POST', path: '/reset-password', json: { token, password } };
}

/** The account cases. */
export const accountCases: readonly SecurityCase[] = [
  {
    name: 'a password reset token works once, and the reset revokes every earlier token',
    group: 'authorization',
    requests: async (world) => {
      const victim = await world.user('acct_reuse');
      const email = `${victim.username}@example.com`;
      await askReset(world, email);
      const token = await mailedToken(world, email);
      return [
        reset(token, 'reset password 1'),
        reset(token, 'attacker password 2'),
        { method: 'GET', path: `/users/${victim.id}`, headers: world.bearer(victim) },
        { method: 'POST', path: '/login', json: { username: victim.username, password: 'reset password 1' } },
      ];
    },
    expect: (responses) => {
      const [first, reuse, oldToken, login] = responses as HttpResponse[];
      expectStatus(first as HttpResponse, 204);
      expectStatus(reuse as HttpResponse, 400, 'invalid_reset_token');
      expectStatus(oldToken as HttpResponse, 401);
      expectStatus(login as HttpResponse, 200);
    },
  },
  {
    name: 'an expired password reset token is refused and changes nothing',
    group: 'authorization',
    requests: async (world) => {
      const victim = await world.user('acct_expired');
      const email = `${victim.username}@example.com`;
      await askReset(world, email);
      const token = await mailedToken(world, email);
      await world.blog.adapter.update(
        world.blog.adapter.openSession(),
        world.blog.auth.userModel,
        victim.id,
        {
          reset_token_expires: new Date(Date.now() - 1000).toISOString(),
        },
      );
      return [
        reset(token, 'late password 1'),
        { method: 'POST', path: '/login', json: { username: victim.username, password: victim.password } },
      ];
    },
    expect: (responses) => {
      const [late, login] = responses as HttpResponse[];
      expectStatus(late as HttpResponse, 400, 'invalid_reset_token');
      expectStatus(login as HttpResponse, 200);
    },
  },
  {
    name: 'a forged reset token (right user id, guessed secret) is refused',
    group: 'authorization',
    requests: async (world) => {
      const victim = await world.user('acct_forged');
      const email = `${victim.username}@example.com`;
      await askReset(world, email);
      await accountOf(world).service.idle();
      return [
        reset(`${victim.id}.${'A'.repeat(43)}`, 'forged password 1'),
        reset(`${victim.id}.`, 'forged password 1'),
        reset(`${victim.id}`, 'forged password 1'),
      ];
    },
    expect: (responses) => {
      for (const response of responses) expectStatus(response, 400, 'invalid_reset_token');
    },
  },
  {
    name: '/forgot-password answers a known and an unknown address alike, and mails only the known one',
    group: 'login',
    requests: async (world) => {
      const known = await world.user('acct_enum');
      accountOf(world);
      return [forgot(`${known.username}@example.com`), forgot('acct-nobody@example.com')];
    },
    expect: async (responses, world) => {
      const [known, unknown] = responses as HttpResponse[];
      expectStatus(known as HttpResponse, 202);
      expectStatus(unknown as HttpResponse, 202);
      assert.equal(unknown?.text, known?.text);
      const { service, mailer } = accountOf(world);
      await service.idle();
      assert.equal(mailer.sent.filter((mail) => mail.to === 'acct-nobody@example.com').length, 0);
      assert.ok(mailer.sent.some((mail) => mail.to === 'u_acct_enum@example.com'));
    },
  },
  {
    name: '/forgot-password takes the same time for known and unknown addresses',
    group: 'login',
    requests: async (world) => {
      const requests: HttpRequest[] = [];
      for (let i = 0; i < 6; i += 1) {
        const user = await world.user(`acct_time${i}`);
        requests.push(forgot(`${user.username}@example.com`), forgot(`acct-ghost-${i}@example.com`));
      }
      accountOf(world);
      return requests;
    },
    expect: (responses) => {
      for (const response of responses) expectStatus(response, 202);
      const median = (values: number[]) =>
        [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
      const known = median(responses.filter((_, i) => i % 2 === 0).map((response) => response.ms));
      const unknown = median(responses.filter((_, i) => i % 2 === 1).map((response) => response.ms));
      // The answer never waits for the lookup or the mail; a generous bound for a loaded machine.
      assert.ok(Math.abs(known - unknown) < 25, `median known ${known} ms, unknown ${unknown} ms`);
    },
  },
  {
    name: '/forgot-password is throttled per email address (whatever its case)',
    group: 'login',
    requests: (world) => {
      accountOf(world);
      return [
        'acct-flood@example.com',
        'ACCT-flood@example.com',
        'acct-flood@EXAMPLE.com',
        'Acct-Flood@example.com',
      ].map(forgot);
    },
    expect: (responses) => {
      const statuses = responses.map((response) => response.status);
      assert.deepEqual(statuses, [202, 202, 202, 429]);
      assert.ok(Number((responses[3] as HttpResponse).headers['retry-after']) >= 1);
    },
  },
  {
    name: 'a user cannot mark their own email verified through the user routes',
    group: 'mass-assignment',
    requests: async (world) => {
      const user = await world.user('acct_verified');
      accountOf(world);
      return [
        { method: 'PATCH', path: `/users/${user.id}`, headers: world.bearer(user), json: { verified: true } },
        { method: 'POST', path: '/verify-email', json: { token: `${user.id}.${'B'.repeat(43)}` } },
      ];
    },
    expect: async (responses, world) => {
      const [patch, forged] = responses as HttpResponse[];
      expectStatus(patch as HttpResponse, [200, 422]);
      expectStatus(forged as HttpResponse, 400, 'invalid_verification_token');
      const row = await world.userRow((await world.user('acct_verified')).id);
      assert.ok(row !== undefined && !row.verified, 'still unverified');
    },
  },
];
