/**
 * Login: no user enumeration (same answer and about the same time for an unknown user and a
 * wrong password), no operator injection, and a throttle that spoofed forwarding headers cannot
 * get around.
 */
import assert from 'node:assert/strict';
import { expectAll, expectStatus, type SecurityCase, single } from '../support/cases.js';
import { describeResponse, type HttpRequest, type HttpResponse } from '../support/client.js';
import { PASSWORD } from '../support/world.js';

function login(username: unknown, password: unknown, headers: Record<string, string> = {}): HttpRequest {
  return { method: 'POST', path: '/login', headers, json: { username, password } };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Tries per side of the timing comparison; the per-username limit (5) bounds the wrong-password side. */
const TIMING_TRIES = 5;

/** The login cases. */
export const loginCases: readonly SecurityCase[] = [
  {
    name: 'enumeration by body: unknown user and wrong password answer alike',
    group: 'login',
    requests: async (world) => {
      const known = await world.user('enum');
      return [login('nobody_at_all', 'wrong password 1'), login(known.username, 'wrong password 1')];
    },
    expect: (responses) => {
      const [unknown, wrong] = responses as [HttpResponse, HttpResponse];
      expectStatus(unknown, 401, 'invalid_credentials');
      expectStatus(wrong, 401, 'invalid_credentials');
      assert.equal(unknown.text, wrong.text, 'same body');
      assert.equal(unknown.headers['www-authenticate'], wrong.headers['www-authenticate']);
      assert.equal(unknown.headers['content-length'], wrong.headers['content-length']);
    },
  },
  {
    name: 'enumeration by timing: medians of unknown-user and wrong-password logins are close',
    group: 'login',
    requests: async (world) => {
      const known = await world.user('timing');
      // Interleaved, so drift in machine load hits both sides alike.
      return Array.from({ length: TIMING_TRIES }, (_, index) => [
        login(`ghost_${index}`, 'wrong password 1'),
        login(known.username, 'wrong password 1'),
      ]).flat();
    },
    expect: (responses) => {
      for (const response of responses) expectStatus(response, 401, 'invalid_credentials');
      const unknown = median(responses.filter((_, index) => index % 2 === 0).map((r) => r.ms));
      const wrong = median(responses.filter((_, index) => index % 2 === 1).map((r) => r.ms));
      // A missing dummy hash would make unknown users ~100x faster; the bound only needs to catch that.
      const ratio = Math.min(unknown, wrong) / Math.max(unknown, wrong);
      assert.ok(
        ratio > 0.5,
        `medians differ too much: unknown user ${unknown.toFixed(1)} ms, wrong password ${wrong.toFixed(1)} ms`,
      );
    },
  },
  {
    name: 'operator injection in a JSON login ({"$ne": null}, {"$gt": ""}, arrays)',
    group: 'login',
    requests: () => [
      login({ $ne: null }, { $ne: null }),
      login('root_admin', { $gt: '' }),
      login({ $regex: '.*' }, 'whatever password'),
      login(['root_admin'], ['x']),
      login('root_admin', null),
      login('root_admin', true),
      login({ toString: 'root_admin' }, 123456789),
    ],
    expect: (responses) => {
      for (const response of responses) {
        expectStatus(response, 422, 'validation_failed');
        assert.equal(response.headers['cache-control'], 'no-store', describeResponse(response));
      }
    },
  },
  {
    name: 'operator injection in the form-encoded login (username[$ne]=)',
    group: 'login',
    requests: () =>
      [
        'username[$ne]=x&password[$ne]=x',
        'username=root_admin&password[$gt]=',
        'username[]=root_admin&password=whatever1',
      ].map((body) => ({
        method: 'POST',
        path: '/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      })),
    expect: (responses) => expectAll(responses, 422, 'validation_failed'),
  },
  {
    name: 'SQL in the username is just an unknown user',
    group: 'login',
    requests: () => [
      login("root_admin' --", 'anything at all'),
      login("' OR '1'='1", "' OR '1'='1"),
      login('root_admin\u0000', 'anything at all'),
    ],
    expect: (responses) => expectAll(responses, 401, 'invalid_credentials'),
  },
  {
    name: 'a username longer than any column is an unknown user, not a database error',
    group: 'login',
    requests: () => [login('x'.repeat(20_000), 'anything at all')],
    expect: (responses) => expectStatus(responses[0] as HttpResponse, 401, 'invalid_credentials'),
  },
  {
    name: 'a password over 72 bytes is refused before bcrypt could truncate it',
    group: 'login',
    requests: () => [login('root_admin', `${'é'.repeat(36)}x`)],
    expect: (responses) => expectStatus(responses[0] as HttpResponse, 422, 'validation_failed'),
  },
  {
    name: 'grant_type other than password in the OAuth2 form is refused',
    group: 'login',
    requests: () => [
      {
        method: 'POST',
        path: '/login',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&username=root_admin&password=whatever1',
      },
    ],
    expect: (responses) => expectStatus(responses[0] as HttpResponse, 422, 'validation_failed'),
  },
  {
    name: 'throttling per username holds against spoofed X-Forwarded-For, X-Real-IP and Forwarded',
    group: 'login',
    requests: async (world) => {
      const victim = await world.user('throttled');
      const spoof = (index: number): Record<string, string> => ({
        'x-forwarded-for': `203.0.113.${index}, 198.51.100.${index}`,
        'x-real-ip': `192.0.2.${index}`,
        forwarded: `for=198.51.100.${index}`,
        'x-client-ip': `203.0.113.${100 + index}`,
      });
      return [
        ...Array.from({ length: 6 }, (_, index) =>
          login(victim.username, `wrong password ${index}`, spoof(index + 1)),
        ),
        login(victim.username, PASSWORD, spoof(50)),
      ];
    },
    expect: (responses) => {
      expectAll(responses.slice(0, 5), 401, 'invalid_credentials');
      for (const response of responses.slice(5)) {
        expectStatus(response, 429, 'too_many_requests');
        assert.match(String(response.headers['retry-after']), /^\d+$/, describeResponse(response));
        assert.ok(Number(response.headers['retry-after']) >= 1);
      }
    },
  },
  {
    name: 'throttling counts parallel guesses: of ten at once, at most five reach the password check',
    group: 'login',
    parallel: true,
    requests: async (world) => {
      const victim = await world.user('parallel');
      return Array.from({ length: 10 }, (_, index) => login(victim.username, `parallel guess ${index}`));
    },
    expect: (responses) => {
      const refused = responses.filter((response) => response.status === 429).length;
      const checked = responses.filter((response) => response.status === 401).length;
      assert.equal(refused + checked, 10, responses.map(describeResponse).join('\n'));
      assert.ok(checked <= 5, `${checked} parallel guesses reached the password check`);
    },
  },
  {
    name: 'throttling is not bypassed by changing the username case or Unicode form',
    group: 'login',
    requests: async (world) => {
      const victim = await world.user('casefold');
      const variants = [
        victim.username,
        victim.username.toUpperCase(),
        victim.username,
        victim.username.toUpperCase(),
        victim.username,
      ];
      return [...variants.map((name) => login(name, 'wrong password x')), login(victim.username, PASSWORD)];
    },
    expect: (responses) => {
      expectStatus(responses[responses.length - 1] as HttpResponse, 429, 'too_many_requests');
    },
  },
  single(
    'login',
    'control: the right password logs in and gets a bearer token',
    async (world) => login((await world.user('control')).username, PASSWORD),
    (response) => {
      expectStatus(response, 200);
      assert.equal((response.json as { token_type?: unknown }).token_type, 'bearer');
    },
  ),
];
