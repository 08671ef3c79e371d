/**
 * The single-use tokens of password reset and email verification. A token is `<user id>.<secret>`:
 * the id finds the row by primary key (no scan of a hidden column), the secret is 32 random bytes.
 * Only a SHA-256 digest is stored, of the secret together with what the token is bound to (the
 * email address, and for a reset the current password hash): a changed address or password makes
 * a pending link worthless without any clean-up, and so does the reset it was for.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of randomness in a token's secret. */
export const TOKEN_SECRET_BYTES = 32;

/** A token as sent in the link, and the digest stored. */
export interface IssuedToken {
  /** `<id>.<secret>`, base64url secret: what the link carries. */
  readonly token: string;
  /** Hex SHA-256 of the secret and its bindings: what the database keeps. */
  readonly digest: string;
}

/** The hex SHA-256 of a secret bound to `bindings` (NUL-separated, so each split has one encoding). */
export function tokenDigest(secret: string, bindings: readonly string[]): string {
  return createHash('sha256')
    .update([secret, ...bindings].join('\u0000'))
    .digest('hex');
}

/** A fresh token for the user `id`, bound to `bindings`. */
export function issueToken(id: string, bindings: readonly string[]): IssuedToken {
  const secret = randomBytes(TOKEN_SECRET_BYTES).toString('base64url');
  return { token: `${id}.${secret}`, digest: tokenDigest(secret, bindings) };
}

/** The id and secret of a presented token, or `undefined` when it cannot be one. */
export function parseToken(token: string): { id: string; secret: string } | undefined {
  const dot = token.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const secret = token.slice(dot + 1);
  // 32 bytes are 43 base64url characters; anything else was never issued.
  if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
  return { id: token.slice(0, dot), secret };
}

/** Whether a stored digest matches a secret and its bindings (constant time). */
export function digestMatches(stored: unknown, secret: string, bindings: readonly string[]): boolean {
  if (typeof stored !== 'string' || stored.length !== 64) return false;
  const expected = Buffer.from(tokenDigest(secret, bindings), 'hex');
  const actual = Buffer.from(stored, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** Whether a stored expiry (ISO text) is still in the future at `now`. */
export function notExpired(stored: unknown, now: number): boolean {
  if (typeof stored !== 'string' && !(stored instanceof Date)) return false;
  const at = stored instanceof Date ? stored.getTime() : Date.parse(stored);
  return Number.isFinite(at) && at > now;
}
