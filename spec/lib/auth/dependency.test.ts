/**
 * The auth dependency over HTTP: what a bearer token must be, and that the user is reloaded on
 * every request (deletion, promotion and demotion take effect at once), on every database target.
 */
import assert from 'node:assert/strict';
import { createSecretKey, generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { User } from './support/entities.js';
import {
  type AuthFixture,
  adminWithToken,
  call,
  loginToken,
  SECRET,
  startAuthApp,
  userWithToken,
} from './support/harness.js';

const KEY = createSecretKey(Buffer.from(SECRET));
const CLAIMS = { issuer: 'koa-model-api', audience: 'koa-model-api' } as const;

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function expectInvalid(
  response: { status: number; headers: Headers; body: Record<string, unknown> },
  what: string,
): void {
  assert.equal(response.status, 401, what);
  assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/, what);
  assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8', what);
}

for (const target of databaseTargets()) {
  describe(`auth dependency on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    let user: { id: number; username: string; token: string };
    before(async () => {
      fx = await startAuthApp(target);
      user = await userWithToken(fx.server);
    });
    after(() => fx?.close());

    const me = (token: string) => call(fx.server, 'GET', `/users/${user.id}`, { token });

    it('accepts the token of /login and puts the user in ctx.state.user', async () => {
      const response = await me(user.token);
      assert.equal(response.status, 200);
      assert.equal(response.body.username, user.username);
    });

    it('answers 401 with WWW-Authenticate: Bearer without a token', async () => {
      const response = await call(fx.server, 'GET', `/users/${user.id}`);
      expectInvalid(response, 'no token');
      assert.equal(response.headers.get('www-authenticate'), 'Bearer');
      assert.equal(response.body.code, 'unauthorized');
    });

    it('takes the token from the Bearer header only: not Basic, not the query, not a cookie', async () => {
      const basic = await call(fx.server, 'GET', `/users/${user.id}`, {
        headers: { authorization: `Basic ${user.token}` },
      });
      expectInvalid(basic, 'Basic');
      // Another scheme carries no bearer token: no error code (RFC 6750 §3.1), as without a header.
      assert.equal(basic.body.code, 'unauthorized');
      assert.equal(basic.headers.get('www-authenticate'), 'Bearer');
      const query = await call(
        fx.server,
        'GET',
        `/users/${user.id}?access_token=${user.token}&token=${user.token}`,
      );
      expectInvalid(query, 'query');
      const cookie = await call(fx.server, 'GET', `/users/${user.id}`, {
        headers: { cookie: `token=${user.token}; jwt=${user.token}` },
      });
      expectInvalid(cookie, 'cookie');
      const lower = await call(fx.server, 'GET', `/users/${user.id}`, {
        headers: { authorization: `bearer ${user.token}` },
      });
      assert.equal(lower.status, 200, 'the scheme name is case-insensitive (RFC 9110)');
    });

    it('checks the shape of the header for a token it already knows', async () => {
      assert.equal((await me(user.token)).status, 200, 'the token is remembered from now on');
      const header = async (authorization: string) => {
        const response = await call(fx.server, 'GET', `/users/${user.id}`, { headers: { authorization } });
        return [response.status, response.body.code, response.body.detail];
      };
      const shape = [401, 'invalid_token', 'The Authorization header must be "Bearer <token>".'];
      assert.deepEqual(await header(`Bearer ${user.token} extra`), shape, 'a second word after the token');
      assert.deepEqual(await header(`Bearer  ${user.token}`), shape, 'two spaces after the scheme');
      assert.deepEqual(
        await header(`Bearer ${user.token}x`),
        [401, 'invalid_token', 'The token is invalid.'],
        'the token with a character more',
      );
      assert.equal((await header(`BEARER ${user.token}`))[0], 200, 'another case of the scheme');
    });

    it('refuses alg none', async () => {
      const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: String(user.id), exp: 4_102_444_800, iss: 'koa-model-api', aud: 'koa-model-api' })}.`;
      expectInvalid(await me(token), 'alg none');
    });

    it('refuses a token signed with a wrong secret, another algorithm, or tampered with', async () => {
      const wrong = jwt.sign({}, 'another-secret-that-is-also-long-enough-0123', {
        ...CLAIMS,
        subject: String(user.id),
        expiresIn: 60,
      });
      expectInvalid(await me(wrong), 'wrong secret');
      const hs512 = jwt.sign({}, KEY, {
        ...CLAIMS,
        algorithm: 'HS512',
        subject: String(user.id),
        expiresIn: 60,
      });
      expectInvalid(await me(hs512), 'HS512 is not the configured algorithm');
      const [header, , signature] = user.token.split('.');
      const admin = await adminWithToken(fx);
      const forged = `${header}.${b64({ sub: String(admin.id), exp: 4_102_444_800, ...{ iss: 'koa-model-api', aud: 'koa-model-api' } })}.${signature}`;
      expectInvalid(await me(forged), 'payload swapped');
      expectInvalid(await me('not.a.jwt'), 'garbage');
    });

    it('refuses a sub that is not the key as the plugin writes it (02, 2.0, +2), even correctly signed', async () => {
      const sign = (subject: string) => jwt.sign({}, KEY, { ...CLAIMS, subject, expiresIn: 60 });
      assert.equal((await me(sign(String(user.id)))).status, 200);
      for (const subject of [`0${user.id}`, `${user.id}.0`, `+${user.id}`, ` ${user.id}`])
        expectInvalid(await me(sign(subject)), subject);
    });

    it('refuses an expired token and one without exp', async () => {
      const expired = jwt.sign({ exp: Math.floor(Date.now() / 1000) - 5 }, KEY, {
        ...CLAIMS,
        subject: String(user.id),
      });
      const response = await me(expired);
      expectInvalid(response, 'expired');
      assert.equal(response.body.code, 'invalid_token');
      assert.match(String(response.body.detail), /expired/);
      const endless = jwt.sign({}, KEY, { ...CLAIMS, subject: String(user.id) });
      expectInvalid(await me(endless), 'no exp');
    });

    it('refuses a token that worked a moment ago once it has expired (verified tokens are remembered, not their expiry)', async () => {
      const exp = Math.floor(Date.now() / 1000) + 1;
      const shortLived = jwt.sign({ exp }, KEY, { ...CLAIMS, subject: String(user.id) });
      assert.equal((await me(shortLived)).status, 200, 'valid before exp');
      assert.equal((await me(shortLived)).status, 200, 'valid again from memory');
      await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
      const response = await me(shortLived);
      expectInvalid(response, 'expired after use');
      assert.match(String(response.body.detail), /expired/);
    });

    it('refuses a token that is not valid yet, even after a valid token of the same user', async () => {
      assert.equal((await me(user.token)).status, 200);
      const early = jwt.sign(
        { nbf: Math.floor(Date.now() / 1000) + 600, exp: Math.floor(Date.now() / 1000) + 3600 },
        KEY,
        {
          ...CLAIMS,
          subject: String(user.id),
        },
      );
      const response = await me(early);
      expectInvalid(response, 'nbf in the future');
      assert.match(String(response.body.detail), /not valid yet/);
    });

    it('refuses another issuer or audience, and a token without sub', async () => {
      const issuer = jwt.sign({}, KEY, {
        issuer: 'someone-else',
        audience: 'koa-model-api',
        subject: String(user.id),
        expiresIn: 60,
      });
      expectInvalid(await me(issuer), 'issuer');
      const audience = jwt.sign({}, KEY, {
        issuer: 'koa-model-api',
        audience: 'another-api',
        subject: String(user.id),
        expiresIn: 60,
      });
      expectInvalid(await me(audience), 'audience');
      const noSub = jwt.sign({}, KEY, { ...CLAIMS, expiresIn: 60 });
      expectInvalid(await me(noSub), 'no sub');
      const badSub = jwt.sign({}, KEY, { ...CLAIMS, subject: 'abc', expiresIn: 60 });
      expectInvalid(await me(badSub), 'sub that is no key');
    });

    it("stops a deleted user's token at once", async () => {
      const admin = await adminWithToken(fx);
      const doomed = await userWithToken(fx.server);
      assert.equal(
        (await call(fx.server, 'GET', `/users/${doomed.id}`, { token: doomed.token })).status,
        200,
      );
      assert.equal(
        (await call(fx.server, 'DELETE', `/users/${doomed.id}`, { token: admin.token })).status,
        204,
      );
      const response = await call(fx.server, 'GET', `/users/${user.id}`, { token: doomed.token });
      expectInvalid(response, 'deleted user');
      assert.match(String(response.body.detail), /no longer exists/);
    });

    /** The checks of the routes that read a record, in order: the caller, then the id, then the record. */
    async function assertCallerFirst(): Promise<void> {
      const admin = await adminWithToken(fx);
      const owner = await userWithToken(fx.server);
      const created = await call(fx.server, 'POST', '/posts', {
        token: owner.token,
        json: { title: 'kept' },
      });
      assert.equal(created.status, 201);
      const post = `/posts/${created.body.id}`;
      assert.equal((await call(fx.server, 'GET', post, { token: owner.token })).status, 200);
      const missing = await call(fx.server, 'GET', '/posts/987654', { token: owner.token });
      assert.equal(missing.status, 404);
      assert.match(String(missing.body.detail), /No Post with id "987654"/);
      assert.equal((await call(fx.server, 'GET', '/posts/not-an-id', { token: owner.token })).status, 404);
      const doomed = await userWithToken(fx.server);
      assert.equal((await call(fx.server, 'GET', post, { token: doomed.token })).status, 200);
      assert.equal(
        (await call(fx.server, 'DELETE', `/users/${doomed.id}`, { token: admin.token })).status,
        204,
      );
      // The post exists and GET has no policy: a 401 can only come from the caller's check, and
      // neither a missing record nor a malformed id may answer before it.
      for (const [method, path] of [
        ['GET', post],
        ['GET', '/posts/987654'],
        ['GET', '/posts/not-an-id'],
        ['PUT', post],
        ['DELETE', post],
      ] as const) {
        const response = await call(fx.server, method, path, {
          token: doomed.token,
          ...(method === 'PUT' ? { json: { title: 'changed' } } : {}),
        });
        expectInvalid(response, `${method} ${path} by a deleted user`);
        assert.match(String(response.body.detail), /no longer exists/);
      }
    }

    it('checks the caller before the id and the record on the routes that read one', async () => {
      await assertCallerFirst();
    });

    it('applies a promotion and a demotion to an existing token at once', async () => {
      const admin = await adminWithToken(fx);
      const member = await userWithToken(fx.server);
      const createTag = (name: string) =>
        call(fx.server, 'POST', '/tags', { token: member.token, json: { name } });
      assert.equal((await createTag('before')).status, 403);
      assert.equal(
        (await call(fx.server, 'POST', `/admin/${member.id}/make-admin`, { token: admin.token })).status,
        200,
      );
      assert.equal((await createTag('promoted')).status, 201, 'same token, now an admin');
      const session = fx.adapter.openSession();
      await fx.adapter.update(session, User, member.id, { is_admin: false });
      assert.equal((await createTag('demoted')).status, 403, 'same token, no longer an admin');
    });

    it('verifies RS256 and ES256 tokens of a key-pair configuration, and nothing else', async () => {
      for (const pair of [
        generateKeyPairSync('rsa', { modulusLength: 2048 }),
        generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
      ]) {
        const signed = await fx.variant({ secret: undefined, private_key: pair.privateKey });
        const token = await loginToken(signed.server, user.username);
        const header = jwt.decode(token, { complete: true })?.header.alg;
        assert.ok(header === 'RS256' || header === 'ES256');
        assert.equal(
          (await call(signed.server, 'GET', `/users/${user.id}`, { token })).status,
          200,
          String(header),
        );
        expectInvalid(
          await call(signed.server, 'GET', `/users/${user.id}`, { token: user.token }),
          'an HS256 token',
        );
        expectInvalid(await me(token), `an ${header} token on the HS256 app`);
        const pem = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
        const confused = jwt.sign({}, pem, {
          ...CLAIMS,
          algorithm: 'HS256',
          subject: String(user.id),
          expiresIn: 60,
        });
        expectInvalid(
          await call(signed.server, 'GET', `/users/${user.id}`, { token: confused }),
          'HS256 signed with the public key',
        );
      }
    });

    it('accepts tokens of a previous secret during rotation', async () => {
      const rotated = await fx.variant({
        secret: 'the-next-secret-that-is-long-enough-0123456',
        previous_secrets: [SECRET],
      });
      assert.equal(
        (await call(rotated.server, 'GET', `/users/${user.id}`, { token: user.token })).status,
        200,
      );
      const fresh = await loginToken(rotated.server, user.username);
      expectInvalid(await me(fresh), 'the old app does not know the new secret');
    });
  });
}
