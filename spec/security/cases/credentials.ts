/**
 * Account takeover with a stolen token (issue 15, item 3) and the JWT details of item 6: the
 * generated user routes never set a password, the email needs the current password, a password
 * change revokes every older token, and a `crit` header or an `iat` in the future is refused.
 * Each case works on its own user (`world.user(label)`), so failed password checks never throttle
 * the users other cases log in as.
 */
import assert from 'node:assert/strict';
import { expectAll, expectStatus, expectUnauthorized, type SecurityCase, single } from '../support/cases.js';
import { describeResponse, type HttpRequest, type HttpResponse, objectOf } from '../support/client.js';
import { hmacToken, now } from '../support/forge.js';
import { type Actor, ADMIN, PASSWORD, SECRET, type World } from '../support/world.js';

const HIJACKED = 'hijacked password 1';
/** A bcrypt hash (cost 4) an attacker made. */
const FOREIGN_HASH = '$2b$04$VLeEV0yXUT8g7PYLqkuCu.0Khu6ZpnIuz9ORBIkY6XBrlQEIeKRkW';

function login(username: string, password: string): HttpRequest {
  return { method: 'POST', path: '/login', json: { username, password } };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** POST /admin/{alice}/make-admin with a token: an accepted token would break the admin invariant. */
function promoteAlice(world: World, token: string): HttpRequest {
  return { method: 'POST', path: `/admin/${world.alice.id}/make-admin`, headers: bearer(token) };
}

/** The stored row of an actor, which must exist. */
async function row(world: World, actor: Actor): Promise<Record<string, unknown>> {
  const stored = await world.userRow(actor.id);
  assert.ok(stored !== undefined, `user ${actor.username} exists`);
  return stored;
}

/** The credential cases. */
export const credentialCases: readonly SecurityCase[] = [
  {
    name: 'a stolen token cannot set the password through PATCH or PUT /users/{own id}',
    group: 'mass-assignment',
    requests: async (world) => {
      const victim = await world.user('cred_pw');
      const path = `/users/${victim.id}`;
      return [
        { method: 'PATCH', path, headers: bearer(victim.token), json: { password: HIJACKED } },
        {
          method: 'PUT',
          path,
          headers: bearer(victim.token),
          json: {
            username: victim.username,
            email: `${victim.username}@example.com`,
            password: HIJACKED,
            hashed_password: FOREIGN_HASH,
          },
        },
        login(victim.username, HIJACKED),
        login(victim.username, PASSWORD),
      ];
    },
    expect: async (responses, world) => {
      const [patch, put, hijacked, owner] = responses as HttpResponse[];
      expectStatus(patch as HttpResponse, [200, 422]);
      expectStatus(put as HttpResponse, [200, 422]);
      expectStatus(hijacked as HttpResponse, 401, 'invalid_credentials');
      expectStatus(owner as HttpResponse, 200);
      const stored = await row(world, await world.user('cred_pw'));
      assert.notEqual(stored.hashed_password, FOREIGN_HASH);
      assert.match(String(stored.hashed_password), /^\$2[aby]\$/);
    },
  },
  {
    name: 'a stolen token cannot change the email without the current password',
    group: 'authorization',
    requests: async (world) => {
      const victim = await world.user('cred_email');
      const path = `/users/${victim.id}`;
      const email = 'attacker@example.com';
      return [
        { method: 'PATCH', path, headers: bearer(victim.token), json: { email } },
        {
          method: 'PATCH',
          path,
          headers: bearer(victim.token),
          json: { email, current_password: 'guess 1234' },
        },
        { method: 'PATCH', path, headers: bearer(victim.token), json: { email, current_password: '' } },
        {
          method: 'PUT',
          path,
          headers: bearer(victim.token),
          json: { username: victim.username, email, current_password: ['x'] },
        },
      ];
    },
    expect: async (responses, world) => {
      const [missing, wrong, empty, put] = responses as HttpResponse[];
      expectStatus(missing as HttpResponse, 422, 'validation_failed');
      expectStatus(wrong as HttpResponse, 403, 'invalid_current_password');
      expectStatus(empty as HttpResponse, 422, 'validation_failed');
      expectStatus(put as HttpResponse, 422, 'validation_failed');
      const victim = await world.user('cred_email');
      assert.equal((await row(world, victim)).email, `${victim.username}@example.com`);
    },
  },
  {
    name: 'a password change revokes every token issued before it; the new token works',
    group: 'authorization',
    requests: async (world) => {
      const victim = await world.user('cred_revoke');
      return [
        {
          method: 'POST',
          path: '/change-password',
          headers: bearer(victim.token),
          json: { current_password: PASSWORD, new_password: 'a changed password 2' },
        },
        { method: 'GET', path: `/users/${victim.id}`, headers: bearer(victim.token) },
        { method: 'PATCH', path: `/users/${victim.id}`, headers: bearer(victim.token), json: { age: 44 } },
      ];
    },
    expect: async (responses, world) => {
      const [changed, read, write] = responses as HttpResponse[];
      expectStatus(changed as HttpResponse, 200);
      expectUnauthorized(read as HttpResponse);
      expectUnauthorized(write as HttpResponse);
      const victim = await world.user('cred_revoke');
      const fresh = String(objectOf(changed as HttpResponse).access_token);
      const again = await world.send({ method: 'GET', path: `/users/${victim.id}`, headers: bearer(fresh) });
      expectStatus(again, 200);
    },
  },
  {
    name: '/change-password with a wrong, missing or over-long current password changes nothing',
    group: 'authorization',
    requests: async (world) => {
      const victim = await world.user('cred_wrong');
      const headers = bearer(victim.token);
      return [
        {
          method: 'POST',
          path: '/change-password',
          headers,
          json: { current_password: 'guess 1234', new_password: HIJACKED },
        },
        { method: 'POST', path: '/change-password', headers, json: { new_password: HIJACKED } },
        {
          method: 'POST',
          path: '/change-password',
          headers,
          json: { current_password: 'x'.repeat(100), new_password: HIJACKED },
        },
        {
          method: 'POST',
          path: '/change-password',
          json: { current_password: PASSWORD, new_password: HIJACKED },
        },
        login(victim.username, HIJACKED),
        { method: 'GET', path: `/users/${victim.id}`, headers },
      ];
    },
    expect: (responses) => {
      const [wrong, missing, long, anonymous, hijacked, read] = responses as HttpResponse[];
      expectStatus(wrong as HttpResponse, 403, 'invalid_current_password');
      expectStatus(missing as HttpResponse, 422, 'validation_failed');
      expectStatus(long as HttpResponse, 422, 'validation_failed');
      expectUnauthorized(anonymous as HttpResponse);
      expectStatus(hijacked as HttpResponse, 401, 'invalid_credentials');
      expectStatus(read as HttpResponse, 200);
    },
  },
  {
    name: "Bob cannot set Alice's password through /admin/{id}/password, nor can an admin set their own",
    group: 'authorization',
    requests: (world) => [
      {
        method: 'POST',
        path: `/admin/${world.alice.id}/password`,
        headers: world.bearer(world.bob),
        json: { new_password: HIJACKED },
      },
      {
        method: 'POST',
        path: `/admin/${world.admin.id}/password`,
        headers: world.bearer(world.admin),
        json: { new_password: HIJACKED },
      },
    ],
    expect: async (responses, world) => {
      const [byBob, ownByAdmin] = responses as HttpResponse[];
      expectStatus(byBob as HttpResponse, 403, 'forbidden');
      expectStatus(ownByAdmin as HttpResponse, 403, 'forbidden');
      // Both keep their tokens: nothing was revoked.
      expectStatus(
        await world.send({ method: 'GET', path: '/users', headers: world.bearer(world.alice) }),
        200,
      );
      expectStatus(
        await world.send({ method: 'GET', path: '/users', headers: world.bearer(world.admin) }),
        200,
      );
    },
  },
  {
    name: "a stolen admin token cannot take the admin's account through an accomplice it promotes",
    group: 'authorization',
    requests: async (world) => {
      const accomplice = await world.user('cred_accomplice');
      return [
        // The stolen token promotes an accomplice (allowed: a promotion is what admins do)…
        { method: 'POST', path: `/admin/${accomplice.id}/make-admin`, headers: world.bearer(world.admin) },
        // …whose token may then neither set the admin's password nor redirect the admin's mail.
        {
          method: 'POST',
          path: `/admin/${world.admin.id}/password`,
          headers: bearer(accomplice.token),
          json: { new_password: HIJACKED },
        },
        {
          method: 'PATCH',
          path: `/users/${world.admin.id}`,
          headers: bearer(accomplice.token),
          json: { email: 'accomplice@evil.example' },
        },
      ];
    },
    expect: async (responses, world) => {
      const [promoted, password, email] = responses as HttpResponse[];
      expectStatus(promoted as HttpResponse, 200);
      expectStatus(password as HttpResponse, 403, 'forbidden');
      expectStatus(email as HttpResponse, 422, 'validation_failed');
      expectStatus(await world.send(login(world.admin.username, world.admin.password)), 200);
      assert.equal((await world.userRow(world.admin.id))?.email, ADMIN.email);
    },
    admins: async (before, world) => new Set([...before, (await world.user('cred_accomplice')).id]),
  },
  {
    name: 'crit header naming an extension, or an empty crit list (real secret)',
    group: 'jwt',
    requests: (world) =>
      [['exp'], ['b64'], [], 'iat'].map((crit) =>
        promoteAlice(world, hmacToken(SECRET, world.claims(world.admin.id), { crit })),
      ),
    expect: (responses) => {
      assert.equal(responses.length, 4);
      for (const response of responses) {
        expectUnauthorized(response);
        assert.match(String(objectOf(response).detail), /crit/, describeResponse(response));
      }
    },
  },
  single(
    'jwt',
    'iat an hour in the future (real secret)',
    (world) => promoteAlice(world, hmacToken(SECRET, world.claims(world.admin.id, { iat: now() + 3600 }))),
    expectUnauthorized,
  ),
  single(
    'jwt',
    'iat_ms a day in the future, to outlive a revocation (real secret)',
    (world) =>
      promoteAlice(
        world,
        hmacToken(SECRET, world.claims(world.admin.id, { iat_ms: Date.now() + 86_400_000 })),
      ),
    expectUnauthorized,
  ),
  {
    name: 'after a revocation, a token forged with a later iat is still refused unless signed',
    group: 'jwt',
    requests: async (world) => {
      const victim = await world.user('cred_forged');
      const changed = await world.send({
        method: 'POST',
        path: '/change-password',
        headers: bearer(victim.token),
        json: { current_password: PASSWORD, new_password: 'a changed password 3' },
      });
      expectStatus(changed, 200);
      const [header, payload] = victim.token.split('.');
      const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<
        string,
        unknown
      >;
      const later = Buffer.from(JSON.stringify({ ...claims, iat_ms: Date.now() + 1000 })).toString(
        'base64url',
      );
      const signature = victim.token.split('.')[2];
      return [
        { method: 'GET', path: `/users/${victim.id}`, headers: bearer(`${header}.${later}.${signature}`) },
        { method: 'GET', path: `/users/${victim.id}`, headers: bearer(victim.token) },
      ];
    },
    expect: (responses) => expectAll(responses, 401),
  },
];
