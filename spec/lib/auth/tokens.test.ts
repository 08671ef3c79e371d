import assert from 'node:assert/strict';
import { createHmac, createSecretKey, generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import jwt from 'jsonwebtoken';
import { resolveTokenKeys } from '../../../lib/auth/keys.js';
import {
  IAT_LEEWAY_SECONDS,
  issuedAtMs,
  requireClaims,
  TokenRuleError,
  TokenService,
} from '../../../lib/auth/tokens.js';
import { ConfigurationError } from '../../../lib/errors.js';

const SECRET = 'a-test-secret-that-is-long-enough-0123456789';
const settings = { lifetime: 3600, issuer: 'test-issuer', audience: 'test-audience' };
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });

function hsService(secret = SECRET, previousSecrets?: string[]): TokenService {
  return new TokenService(resolveTokenKeys({ secret, previousSecrets }, {}), settings);
}

function b64(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

describe('key resolution', () => {
  it('turns the secret into a KeyObject once', () => {
    const keys = resolveTokenKeys({ secret: SECRET }, {});
    assert.equal(keys.algorithm, 'HS256');
    assert.equal(keys.signingKey?.type, 'secret');
    assert.equal(keys.verifyKeys[0], keys.signingKey);
    assert.equal(keys.ephemeral, false);
  });

  it('reads JWT_SECRET when no secret is given', () => {
    const keys = resolveTokenKeys({}, { JWT_SECRET: SECRET });
    assert.equal(keys.ephemeral, false);
    assert.ok(keys.signingKey?.equals(createSecretKey(Buffer.from(SECRET))));
  });

  it('refuses a secret shorter than 32 bytes, from the option or the environment', () => {
    assert.throws(() => resolveTokenKeys({ secret: 'x'.repeat(31) }, {}), /at least 32 bytes/);
    assert.throws(
      () => resolveTokenKeys({}, { JWT_SECRET: 'short' }),
      /JWT_SECRET must be at least 32 bytes/,
    );
    assert.throws(
      () => resolveTokenKeys({ secret: SECRET, previousSecrets: ['short'] }, {}),
      ConfigurationError,
    );
  });

  it('refuses to start without a secret under NODE_ENV=production', () => {
    assert.throws(() => resolveTokenKeys({}, { NODE_ENV: 'production' }), /NODE_ENV=production/);
  });

  it('otherwise uses one random per-process secret and warns once', async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => {
      if ((warning as Error & { code?: string }).code === 'KMA_EPHEMERAL_JWT_SECRET') warnings.push(warning);
    };
    process.on('warning', listener);
    try {
      const first = resolveTokenKeys({}, { NODE_ENV: 'development' });
      const second = resolveTokenKeys({}, {});
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(first.ephemeral, true);
      assert.equal(first.signingKey, second.signingKey, 'the same secret for the whole process');
      assert.equal(warnings.length, 1);
    } finally {
      process.off('warning', listener);
    }
  });

  it('infers RS256 and ES256 from the key and derives the public key', () => {
    const rs = resolveTokenKeys({ privateKey: rsa.privateKey }, {});
    assert.equal(rs.algorithm, 'RS256');
    assert.equal(rs.verifyKeys[0]?.type, 'public');
    const es = resolveTokenKeys({ privateKey: ec.privateKey.export({ format: 'pem', type: 'pkcs8' }) }, {});
    assert.equal(es.algorithm, 'ES256');
  });

  it('refuses keys that do not fit the algorithm', () => {
    const weak = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const p384 = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    assert.throws(() => resolveTokenKeys({ privateKey: weak.privateKey }, {}), /2048 bits/);
    assert.throws(() => resolveTokenKeys({ privateKey: p384.privateKey }, {}), /P-256/);
    assert.throws(
      () => resolveTokenKeys({ algorithm: 'ES256', privateKey: rsa.privateKey }, {}),
      /cannot be used with ES256/,
    );
    assert.throws(
      () => resolveTokenKeys({ algorithm: 'HS256', privateKey: rsa.privateKey }, {}),
      /HS256 takes a `secret`/,
    );
    assert.throws(() => resolveTokenKeys({ algorithm: 'RS256', secret: SECRET }, {}), /needs private_key/);
    assert.throws(() => resolveTokenKeys({ secret: SECRET, privateKey: rsa.privateKey }, {}), /not both/);
    assert.throws(
      () => resolveTokenKeys({ algorithm: 'none' as 'HS256', secret: SECRET }, {}),
      /algorithm must be one of/,
    );
    assert.throws(
      () => resolveTokenKeys({ privateKey: 'not a pem' }, {}),
      /private_key is not a usable private key/,
    );
  });

  it('refuses a private and a public key that are not a pair', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const keys = resolveTokenKeys({ privateKey: rsa.privateKey, publicKey: other.publicKey }, {});
    assert.throws(() => new TokenService(keys, settings), /do not work together/);
  });
});

describe('TokenService', () => {
  it('issues sub, iat, exp, iss and aud', () => {
    const service = hsService();
    const issued = service.issue('42');
    assert.equal(issued.token_type, 'bearer');
    assert.equal(issued.expires_in, 3600);
    const claims = service.verify(issued.access_token);
    assert.equal(claims.sub, '42');
    assert.equal(claims.iss, 'test-issuer');
    assert.equal(claims.aud, 'test-audience');
    assert.equal(claims.exp - (claims.iat ?? 0), 3600);
    assert.equal(jwt.decode(issued.access_token, { complete: true })?.header.alg, 'HS256');
  });

  it('refuses alg none', () => {
    const service = hsService();
    const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: '1', exp: 9999999999, iss: 'test-issuer', aud: 'test-audience' })}.`;
    assert.throws(() => service.verify(none), jwt.JsonWebTokenError);
  });

  it('refuses a token signed with another secret', () => {
    const token = hsService('another-secret-that-is-long-enough-012345').issue('1').access_token;
    assert.throws(() => hsService().verify(token), /invalid signature/);
  });

  it('refuses an expired token and one without exp', () => {
    const key = createSecretKey(Buffer.from(SECRET));
    const base = {
      issuer: 'test-issuer',
      audience: 'test-audience',
      subject: '1',
      algorithm: 'HS256',
    } as const;
    const expired = jwt.sign({ exp: Math.floor(Date.now() / 1000) - 10 }, key, base);
    assert.throws(() => hsService().verify(expired), jwt.TokenExpiredError);
    const endless = jwt.sign({}, key, base);
    assert.throws(() => hsService().verify(endless), /no exp claim/);
  });

  it('refuses another issuer or audience', () => {
    const token = new TokenService(resolveTokenKeys({ secret: SECRET }, {}), {
      ...settings,
      audience: 'other',
    }).issue('1');
    assert.throws(() => hsService().verify(token.access_token), /audience invalid/);
    const foreign = new TokenService(resolveTokenKeys({ secret: SECRET }, {}), {
      ...settings,
      issuer: 'other',
    }).issue('1');
    assert.throws(() => hsService().verify(foreign.access_token), /issuer invalid/);
  });

  it('accepts tokens of a previous secret during rotation, and signs with the new one', () => {
    const old = 'the-previous-secret-that-is-long-enough-01';
    const token = hsService(old).issue('7').access_token;
    const rotated = hsService(SECRET, [old]);
    assert.equal(rotated.verify(token).sub, '7');
    assert.throws(() => hsService(SECRET).verify(token), /invalid signature/);
    assert.throws(() => hsService(old).verify(rotated.issue('7').access_token), /invalid signature/);
  });

  it('signs RS256 and ES256 and refuses an HS256 token made with the public key (algorithm confusion)', () => {
    for (const pair of [rsa, ec]) {
      const service = new TokenService(resolveTokenKeys({ privateKey: pair.privateKey }, {}), settings);
      const claims = service.verify(service.issue('5').access_token);
      assert.equal(claims.sub, '5');
      const pem = pair.publicKey.export({ format: 'pem', type: 'spki' }).toString();
      const forged = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: '1', exp: 9999999999, iss: 'test-issuer', aud: 'test-audience' })}`;
      const signature = createHmac('sha256', pem).update(forged).digest('base64url');
      assert.throws(() => service.verify(`${forged}.${signature}`), /invalid algorithm/);
    }
  });

  it('verifies with a public key alone but cannot issue', () => {
    const signer = new TokenService(resolveTokenKeys({ privateKey: ec.privateKey }, {}), settings);
    const verifier = new TokenService(resolveTokenKeys({ publicKey: ec.publicKey }, {}), settings);
    assert.equal(verifier.canIssue, false);
    assert.equal(verifier.verify(signer.issue('3').access_token).sub, '3');
    assert.throws(() => verifier.issue('3'), ConfigurationError);
  });
});

describe('token rules beyond jsonwebtoken (issue 15)', () => {
  const sign = (claims: Record<string, unknown>, header: Record<string, unknown> = {}): string =>
    jwt.sign({ sub: '1', iss: settings.issuer, aud: settings.audience, ...claims }, SECRET, {
      algorithm: 'HS256',
      expiresIn: 600,
      header: { alg: 'HS256', typ: 'JWT', ...header },
    });

  it('issues iat_ms, the issue time in milliseconds, and iat from it', () => {
    const service = hsService();
    const claims = service.verify(service.issue('7', { issuedAtMs: Date.now() - 1234 }).access_token);
    assert.equal(typeof claims.iat_ms, 'number');
    assert.equal(claims.iat, Math.floor((claims.iat_ms as number) / 1000));
    assert.equal(issuedAtMs(claims), claims.iat_ms);
    assert.equal(issuedAtMs({ sub: '1', exp: 2, iat: 5 }), 5000);
    assert.equal(issuedAtMs({ sub: '1', exp: 2 }), 0);
  });

  it('refuses a crit header naming anything, or an empty one (RFC 7515 §4.1.11)', () => {
    const service = hsService();
    for (const crit of [['exp'], ['b64'], [], 'x']) {
      assert.throws(() => service.verify(sign({}, { crit })), TokenRuleError, JSON.stringify(crit));
    }
    assert.equal(service.verify(sign({})).sub, '1');
  });

  it(`refuses an iat more than ${IAT_LEEWAY_SECONDS} s ahead, and accepts one within the leeway`, () => {
    const service = hsService();
    const now = Math.floor(Date.now() / 1000);
    assert.throws(() => service.verify(sign({ iat: now + IAT_LEEWAY_SECONDS + 5 })), /issued in the future/);
    assert.throws(() => service.verify(sign({ iat: now + 86_400 * 365 })), /issued in the future/);
    assert.equal(service.verify(sign({ iat: now + 30 })).sub, '1');
    assert.throws(
      () => service.verify(sign({ iat_ms: Date.now() + (IAT_LEEWAY_SECONDS + 5) * 1000 })),
      /issued in the future/,
    );
    assert.throws(() => service.verify(sign({ iat_ms: 'soon' })), /invalid iat_ms/);
    assert.throws(() => service.verify(sign({ iat_ms: 1.5 })), /invalid iat_ms/);
  });

  it('checks iat against the clock it is given', () => {
    const claims = { sub: '1', exp: 10_000, iat: 1_000 };
    assert.throws(() => requireClaims(claims, 1_000_000 - 61_000), TokenRuleError);
    assert.equal(requireClaims(claims, 1_000_000 - 59_000), claims);
  });
});
