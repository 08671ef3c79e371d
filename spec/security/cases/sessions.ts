/**
 * Refresh tokens and logout (issue 16): a rotated refresh token replayed (a stolen copy) revokes
 * its family, concurrent refreshes of one token yield at most one new pair, guessed or malformed
 * refresh tokens are refused without harm, refresh and access tokens are not interchangeable, and
 * logout-all and a password change end every session. Each case logs in its own user
 * (`world.user(label)`), so nothing here touches the sessions of the users other cases rely on.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { expectAll, expectStatus, type SecurityCase } from '../support/cases.js';
import { describeResponse, type HttpRequest, type HttpResponse, objectOf, send } from '../support/client.js';
import { PASSWORD, type World } from '../support/world.js';

/** The pair a fresh `/login` of the labelled user answers. */
async function loginPair(world: World, label: string): Promise<{ access: string; refresh: string }> {
  const actor = await world.user(label);
  const response = await send(world.server.url, {
    method: 'POST',
    path: '/login',
    json: { username: actor.username, password: PASSWORD },
  });
  assert.equal(response.status, 200, describeResponse(response));
  const body = objectOf(response);
  return { access: String(body.access_token), refresh: String(body.refresh_token) };
}

function refresh(token: unknown): HttpRequest {
  return { method: 'POST', path: '/refresh', json: { refresh_token: token } };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** The same token id with a secret the attacker made up. */
function forged(token: string): string {
  return `${token.split('.')[0]}.${randomBytes(32).toString('base64url')}`;
}

/** The session cases. */
export const sessionCases: readonly SecurityCase[] = [
  {
    name: 'a refresh token replayed after its rotation is refused and revokes its whole family',
    group: 'jwt',
    requests: async (world) => {
      const pair = await loginPair(world, 'sess_replay');
      const rotated = await send(world.server.url, refresh(pair.refresh));
      assert.equal(rotated.status, 200, describeResponse(rotated));
      return [refresh(pair.refresh), refresh(objectOf(rotated).refresh_token)];
    },
    expect: (responses) => {
      const [replay, successor] = responses as HttpResponse[];
      expectStatus(replay as HttpResponse, 401, 'refresh_token_reused');
      expectStatus(successor as HttpResponse, 401, 'invalid_refresh_token');
    },
  },
  {
    name: 'concurrent refreshes with one refresh token yield at most one new pair',
    group: 'jwt',
    parallel: true,
    requests: async (world) => {
      const pair = await loginPair(world, 'sess_race');
      return Array.from({ length: 6 }, () => refresh(pair.refresh));
    },
    expect: (responses) => {
      const ok = responses.filter((response) => response.status === 200);
      assert.ok(ok.length <= 1, responses.map(describeResponse).join('\n'));
      for (const response of responses.filter((r) => r.status !== 200)) expectStatus(response, 401);
      assert.ok(responses.some((response) => objectOf(response).code === 'refresh_token_reused'));
    },
  },
  {
    name: 'a refresh token with a known id and a guessed secret is refused and revokes nothing',
    group: 'jwt',
    requests: async (world) => {
      const pair = await loginPair(world, 'sess_guess');
      return [
        refresh(forged(pair.refresh)),
        { method: 'POST', path: '/logout', json: { refresh_token: forged(pair.refresh) } },
        refresh(pair.refresh),
      ];
    },
    expect: (responses) => {
      const [guess, logout, owner] = responses as HttpResponse[];
      expectStatus(guess as HttpResponse, 401, 'invalid_refresh_token');
      expectStatus(logout as HttpResponse, 204);
      expectStatus(owner as HttpResponse, 200);
    },
  },
  {
    name: 'refresh tokens and access tokens are not interchangeable',
    group: 'jwt',
    requests: async (world) => {
      const pair = await loginPair(world, 'sess_swap');
      return [
        { method: 'GET', path: '/posts', headers: bearer(pair.refresh) },
        refresh(pair.access),
        { method: 'POST', path: '/logout-all', headers: bearer(pair.refresh) },
      ];
    },
    expect: (responses) => {
      const [asBearer, asRefresh, logoutAll] = responses as HttpResponse[];
      expectStatus(asBearer as HttpResponse, 401, 'invalid_token');
      expectStatus(asRefresh as HttpResponse, 401, 'invalid_refresh_token');
      expectStatus(logoutAll as HttpResponse, 401, 'invalid_token');
    },
  },
  {
    name: 'malformed refresh tokens are refused with 401 or 422, never 500',
    group: 'input',
    requests: () =>
      [
        'x'.repeat(10_000),
        '.',
        `${'a'.repeat(22)}.${'b'.repeat(43)}\u0000`,
        `\u202e${'a'.repeat(21)}.${'b'.repeat(43)}`,
        ['a', 'b'],
        { $ne: null },
        null,
        42,
        '',
      ].map((token) => refresh(token)),
    expect: (responses) => expectAll(responses, [401, 422]),
  },
  {
    name: 'logout-all ends every session: the access token it was sent with and every refresh token',
    group: 'authorization',
    requests: async (world) => {
      const phone = await loginPair(world, 'sess_all');
      const laptop = await loginPair(world, 'sess_all');
      return [
        { method: 'POST', path: '/logout-all', headers: bearer(phone.access) },
        { method: 'GET', path: '/posts', headers: bearer(phone.access) },
        { method: 'GET', path: '/posts', headers: bearer(laptop.access) },
        refresh(phone.refresh),
        refresh(laptop.refresh),
      ];
    },
    expect: (responses) => {
      const [out, phone, laptop, phoneRefresh, laptopRefresh] = responses as HttpResponse[];
      expectStatus(out as HttpResponse, 204);
      expectStatus(phone as HttpResponse, 401, 'invalid_token');
      expectStatus(laptop as HttpResponse, 401, 'invalid_token');
      expectStatus(phoneRefresh as HttpResponse, 401, 'invalid_refresh_token');
      expectStatus(laptopRefresh as HttpResponse, 401, 'invalid_refresh_token');
    },
  },
  {
    name: 'a password change revokes every refresh token issued before it',
    group: 'authorization',
    requests: async (world) => {
      const pair = await loginPair(world, 'sess_pw');
      const changed = await send(world.server.url, {
        method: 'POST',
        path: '/change-password',
        headers: bearer(pair.access),
        json: { current_password: PASSWORD, new_password: 'another password 2' },
      });
      assert.equal(changed.status, 200, describeResponse(changed));
      return [refresh(pair.refresh), refresh(objectOf(changed).refresh_token)];
    },
    expect: (responses) => {
      const [old, fresh] = responses as HttpResponse[];
      expectStatus(old as HttpResponse, 401, 'invalid_refresh_token');
      expectStatus(fresh as HttpResponse, 200);
    },
  },
];
