/**
 * The JWT rules of issue 15 through the auth dependency, on every database target: a `crit`
 * header and an `iat` beyond the 60 s leeway give 401 `invalid_token`, also for a token that was
 * accepted before (the verified-token memory never skips a rule), and a token of the previous
 * format (no `iat_ms`) keeps working until its user's tokens are revoked.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import { IAT_LEEWAY_SECONDS } from '../../../lib/auth/tokens.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { type AuthFixture, call, SECRET, startAuthApp, userWithToken } from './support/harness.js';

/** A token signed with the suite's real secret, with the default issuer and audience. */
function token(
  sub: number,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): string {
  return jwt.sign({ sub: String(sub), ...claims }, SECRET, {
    algorithm: 'HS256',
    expiresIn: 600,
    issuer: 'koa-model-api',
    audience: 'koa-model-api',
    header: { alg: 'HS256', typ: 'JWT', ...header },
  });
}

for (const target of databaseTargets()) {
  describe(`JWT rules on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    let user: { id: number; username: string; token: string };
    before(async () => {
      fx = await startAuthApp(target);
      user = await userWithToken(fx.server);
    });
    after(() => fx?.close());

    const get = (bearer: string) => call(fx.server, 'GET', `/users/${user.id}`, { token: bearer });

    it('accepts the control token signed the same way', async () => {
      assert.equal((await get(token(user.id))).status, 200);
    });

    it('refuses a crit header, whatever it names', async () => {
      for (const crit of [['exp'], ['http://example.com/ext'], [], 'b64']) {
        const response = await get(token(user.id, {}, { crit }));
        assert.equal(response.status, 401, JSON.stringify(crit));
        assert.equal(response.body.code, 'invalid_token');
        assert.match(String(response.body.detail), /crit/);
      }
    });

    it(`refuses an iat more than ${IAT_LEEWAY_SECONDS} s in the future, accepts one within`, async () => {
      const now = Math.floor(Date.now() / 1000);
      const ahead = await get(token(user.id, { iat: now + 3600 }));
      assert.equal(ahead.status, 401);
      assert.match(String(ahead.body.detail), /future/);
      const msAhead = await get(token(user.id, { iat_ms: Date.now() + 3_600_000 }));
      assert.equal(msAhead.status, 401);
      assert.equal((await get(token(user.id, { iat: now + 20 }))).status, 200);
    });

    it('keeps accepting a token without iat_ms until the user is revoked, then refuses it', async () => {
      const other = await userWithToken(fx.server);
      // Dated in whole seconds: this second (a token dated before its user existed is refused).
      const legacy = token(other.id, { iat: Math.floor(Date.now() / 1000) });
      const path = `/users/${other.id}`;
      assert.equal((await call(fx.server, 'GET', path, { token: legacy })).status, 200);
      await fx.auth.revoke_sessions(other.id);
      const refused = await call(fx.server, 'GET', path, { token: legacy });
      assert.equal(refused.status, 401);
      assert.match(String(refused.body.detail), /revoked/);
    });
  });
}
