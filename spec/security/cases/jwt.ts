/**
 * JWT tampering: every forged, altered or misplaced token is refused with 401 and the
 * `WWW-Authenticate: Bearer` challenge. Forged tokens claim the first admin and try to promote
 * Alice, so an accepted forgery would also break the admin-set invariant.
 */
import assert from 'node:assert/strict';
import { createSecretKey, randomBytes } from 'node:crypto';
import { expectStatus, expectUnauthorized, type SecurityCase, single } from '../support/cases.js';
import type { HttpRequest } from '../support/client.js';
import {
  asymmetricToken,
  attackerKeys,
  hmacToken,
  now,
  signingInput,
  unsigned,
  withEditedClaims,
} from '../support/forge.js';
import { SECRET, type World } from '../support/world.js';

/** POST /admin/{alice}/make-admin with the given Authorization header value. */
function promoteAlice(world: World, authorization: string): HttpRequest {
  return { method: 'POST', path: `/admin/${world.alice.id}/make-admin`, headers: { authorization } };
}

/** A case: a token forged by `forge` (claiming the admin) is refused. */
function forged(name: string, forge: (world: World) => string): SecurityCase {
  return single('jwt', name, (world) => promoteAlice(world, `Bearer ${forge(world)}`), expectUnauthorized);
}

/** `none` in each of its 16 casings. */
const NONE_CASINGS = Array.from({ length: 16 }, (_, mask) =>
  [...'none'].map((letter, index) => ((mask >> index) & 1 ? letter.toUpperCase() : letter)).join(''),
);
const DEFAULT_SECRETS = [
  'secret',
  'changeme',
  'your-256-bit-secret',
  'koa-model-api',
  'JWT_SECRET',
  'jwt-secret',
  '',
];

/** The JWT cases. */
export const jwtCases: readonly SecurityCase[] = [
  single(
    'jwt',
    'control: a token signed with the real secret and valid claims is accepted',
    (world) => ({
      method: 'GET',
      path: '/users',
      headers: { authorization: `Bearer ${hmacToken(SECRET, world.claims(world.alice.id))}` },
    }),
    (response) => expectStatus(response, 200),
  ),
  {
    name: 'alg "none" in every one of its 16 casings, with an empty signature',
    group: 'jwt',
    requests: (world) =>
      NONE_CASINGS.map((alg) =>
        promoteAlice(world, `Bearer ${unsigned({ alg, typ: 'JWT' }, world.claims(world.admin.id))}`),
      ),
    expect: (responses) => {
      assert.equal(responses.length, 16);
      responses.forEach(expectUnauthorized);
    },
  },
  forged('alg "none" carrying the signature of a real token', (world) => {
    const real = hmacToken(SECRET, world.claims(world.alice.id));
    return `${signingInput({ alg: 'none', typ: 'JWT' }, world.claims(world.admin.id))}.${real.split('.')[2]}`;
  }),
  forged('algorithm confusion: HS256 keyed with an RSA public key PEM', (world) => {
    const pem = attackerKeys().rsa.publicKey.export({ type: 'spki', format: 'pem' });
    return hmacToken(pem, world.claims(world.admin.id));
  }),
  forged('algorithm confusion: RS256 signed with an attacker RSA key', (world) =>
    asymmetricToken(attackerKeys().rsa.privateKey, world.claims(world.admin.id)),
  ),
  forged('algorithm confusion: ES256 signed with an attacker P-256 key', (world) =>
    asymmetricToken(attackerKeys().ec.privateKey, world.claims(world.admin.id)),
  ),
  forged('HS512 signed with the real secret (only HS256 is configured)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id), { alg: 'HS512' }),
  ),
  forged('HS384 signed with the real secret (only HS256 is configured)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id), { alg: 'HS384' }),
  ),
  forged('HS256 signed with a wrong random secret', (world) =>
    hmacToken(randomBytes(48), world.claims(world.admin.id)),
  ),
  {
    name: 'HS256 signed with default or guessable secrets',
    group: 'jwt',
    requests: (world) =>
      DEFAULT_SECRETS.map((secret) =>
        promoteAlice(
          world,
          `Bearer ${hmacToken(secret === '' ? createSecretKey(Buffer.alloc(0)) : secret, world.claims(world.admin.id))}`,
        ),
      ),
    expect: (responses) => responses.forEach(expectUnauthorized),
  },
  forged("edited claims: Alice's real token with sub changed to the admin", (world) =>
    withEditedClaims(world.alice.token, (claims) => ({ ...claims, sub: String(world.admin.id) })),
  ),
  forged("edited claims: Alice's real token with is_admin and a later exp added", (world) =>
    withEditedClaims(world.alice.token, (claims) => ({ ...claims, is_admin: true, exp: now() + 86_400 })),
  ),
  forged('expired token (exp in the past, real secret)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id, { iat: now() - 7200, exp: now() - 60 })),
  ),
  forged('token not valid yet (nbf an hour ahead, real secret)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id, { nbf: now() + 3600 })),
  ),
  forged('token without exp (real secret)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id, { exp: undefined })),
  ),
  forged('token with a string exp (real secret)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id, { exp: String(now() + 600) })),
  ),
  forged('wrong issuer (real secret)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id, { iss: 'someone-else' })),
  ),
  forged('wrong audience (real secret)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id, { aud: 'another-api' })),
  ),
  forged('no sub claim (real secret)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id, { sub: undefined })),
  ),
  forged('sub as a JSON number instead of a string (real secret)', (world) =>
    hmacToken(SECRET, world.claims(world.admin.id, { sub: world.admin.id })),
  ),
  forged('sub of a user that does not exist (real secret)', (world) =>
    hmacToken(SECRET, world.claims(2_000_000_000)),
  ),
  forged('sub with SQL in it (real secret)', (world) =>
    hmacToken(SECRET, world.claims(`${world.admin.id} OR 1=1`)),
  ),
  forged('sub beyond 64 bits (real secret)', (world) =>
    hmacToken(SECRET, world.claims('18446744073709551617')),
  ),
  forged('hostile kid: path traversal to an empty file, signed with an empty key', (world) =>
    hmacToken(createSecretKey(Buffer.alloc(0)), world.claims(world.admin.id), {
      kid: '../../../../../../dev/null',
    }),
  ),
  forged('hostile kid: SQL injection choosing a known key', (world) =>
    hmacToken('x', world.claims(world.admin.id), { kid: "nothing' UNION SELECT 'x' --" }),
  ),
  forged('hostile jku: attacker JWKS URL with an attacker RS256 signature', (world) =>
    asymmetricToken(attackerKeys().rsa.privateKey, world.claims(world.admin.id), {
      jku: 'https://attacker.example/.well-known/jwks.json',
      kid: 'attacker',
    }),
  ),
  forged('embedded jwk: attacker public key in the header', (world) =>
    asymmetricToken(attackerKeys().rsa.privateKey, world.claims(world.admin.id), {
      jwk: attackerKeys().rsa.publicKey.export({ format: 'jwk' }),
    }),
  ),
  forged('hostile x5u: attacker certificate URL', (world) =>
    asymmetricToken(attackerKeys().rsa.privateKey, world.claims(world.admin.id), {
      x5u: 'https://attacker.example/cert.pem',
    }),
  ),
  {
    name: 'malformed Authorization headers',
    group: 'jwt',
    requests: (world) =>
      [
        'Bearer',
        'Bearer ',
        'Bearer  x',
        `Bearer\t${world.alice.token}`,
        'Basic YWxpY2U6Y29ycmVjdCBob3JzZSBiYXR0ZXJ5',
        `Token ${world.alice.token}`,
        `JWT ${world.alice.token}`,
        `Bearer ${world.alice.token} extra`,
        `Bearer ${world.alice.token}, Bearer ${world.bob.token}`,
        'Bearer a.b',
        'Bearer x.y.z',
        'Bearer ....',
        `Bearer ${world.alice.token}.`,
        `Bearer ${world.alice.token.slice(0, -2)}`,
        `Bearer ${'A'.repeat(8000)}`,
        `Bearer ${Buffer.from('{"alg":"HS256"}').toString('base64url')}`,
      ].map((authorization) => ({ method: 'GET', path: '/users', headers: { authorization } })),
    expect: (responses) => responses.forEach(expectUnauthorized),
  },
  {
    name: 'two Authorization headers: a valid one after a forged one',
    group: 'jwt',
    requests: (world) => [
      {
        method: 'POST',
        path: `/admin/${world.alice.id}/make-admin`,
        headers: [
          ['authorization', `Bearer ${unsigned({ alg: 'none' }, world.claims(world.admin.id))}`],
          ['authorization', `Bearer ${world.bob.token}`],
        ],
      },
    ],
    expect: (responses) => {
      const response = responses[0];
      assert.ok(response !== undefined);
      // Node keeps the first Authorization header: the forged one. Either way, no promotion.
      expectStatus(response, [401, 403]);
    },
  },
  single(
    'jwt',
    'the scheme name is case-insensitive (RFC 7235): "bearer <token>" works',
    (world) => ({ method: 'GET', path: '/users', headers: { authorization: `bearer ${world.alice.token}` } }),
    (response) => expectStatus(response, 200),
  ),
  {
    name: 'a valid token in the query string or a cookie is ignored',
    group: 'jwt',
    requests: (world) => [
      { method: 'GET', path: `/users?access_token=${world.admin.token}` },
      { method: 'GET', path: `/users?token=${world.admin.token}` },
      { method: 'GET', path: `/users?jwt=${world.admin.token}` },
      { method: 'POST', path: `/admin/${world.alice.id}/make-admin?access_token=${world.admin.token}` },
      {
        method: 'GET',
        path: '/users',
        headers: {
          cookie: `jwt=${world.admin.token}; token=${world.admin.token}; access_token=${world.admin.token}`,
        },
      },
    ],
    expect: (responses) => responses.forEach(expectUnauthorized),
  },
];
