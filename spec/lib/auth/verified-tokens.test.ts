import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AccessTokenClaims } from '../../../lib/auth/tokens.js';
import { VerifiedTokens } from '../../../lib/auth/verified-tokens.js';

const claims = (exp: number, extra: Record<string, unknown> = {}): AccessTokenClaims =>
  ({ sub: '1', exp, ...extra }) as AccessTokenClaims;

describe('VerifiedTokens', () => {
  it('gives back the claims of a remembered token while it is valid, and nothing for an unknown one', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('a.b.c', claims(200));
    assert.deepEqual(tokens.get('a.b.c', 100), claims(200));
    assert.equal(tokens.get('a.b.d', 100), undefined);
  });

  it('forgets a token at its exp second, as jsonwebtoken counts it (now >= exp is expired)', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('t', claims(200));
    assert.notEqual(tokens.get('t', 199), undefined);
    assert.equal(tokens.get('t', 200), undefined);
    assert.equal(tokens.size, 0);
  });

  it('does not answer for a token whose nbf is still ahead', () => {
    const tokens = new VerifiedTokens();
    tokens.remember('t', claims(500, { nbf: 300 }));
    assert.equal(tokens.get('t', 299), undefined);
  });

  it('keeps at most its bound, forgetting the oldest first', () => {
    const tokens = new VerifiedTokens(3);
    for (const name of ['a', 'b', 'c', 'd']) tokens.remember(name, claims(1000));
    assert.equal(tokens.size, 3);
    assert.equal(tokens.get('a', 1), undefined);
    assert.notEqual(tokens.get('d', 1), undefined);
  });
});
