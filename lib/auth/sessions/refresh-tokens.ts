/**
 * Refresh tokens: issuing a family at login, rotating on use with reuse detection, and revoking.
 * A token is `<id>.<secret>`: `id` (22 base64url characters) names the stored record, `secret`
 * (32 random bytes, base64url) is kept only as its SHA-256. A login's first id is random; each
 * successor's id is derived from its parent's, so rotating a token means inserting its one
 * possible successor: the store refuses a second insert of that id, and a token presented after
 * it was rotated (by its owner or a thief) is reuse, which revokes the whole family.
 *
 * Revoking a family first stores a marker under an id derived from the family, then deletes the
 * family's records. A rotation re-reads the marker after inserting its successor: either it sees
 * the marker and undoes itself, or it finished before the revocation began, and the deletion
 * that follows the marker removes its successor. Without the marker, a rotation that read its
 * token before the deletion could insert a successor after it, into an id the deletion freed.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../../errors.js';
import { REFRESH_ID_LENGTH } from './refresh-token-model.js';
import type { RefreshRecord, RefreshTokenStore, StoreScope } from './store.js';

/** Default lifetime of a refresh token: 30 days, in seconds. */
export const DEFAULT_REFRESH_TOKEN_LIFETIME = 30 * 24 * 3600;

/** The refresh half of a token response. */
export interface IssuedRefreshToken {
  /** The opaque refresh token; send it to `POST /refresh` or `POST /logout`. */
  readonly refresh_token: string;
  /** Seconds the refresh token stays valid. */
  readonly refresh_expires_in: number;
}

/** A token whose record, secret and expiry checked out, and its successor once rotated. */
export interface Rotation {
  /** The record of the presented token. */
  readonly record: RefreshRecord;
  /** When the successor was issued (before the user was checked): issue the access token at it too. */
  readonly issuedAt: number;
  /** The successor to hand back. */
  readonly issued: IssuedRefreshToken;
}

const TOKEN_PATTERN = new RegExp(`^([A-Za-z0-9_-]{${REFRESH_ID_LENGTH}})\\.([A-Za-z0-9_-]{43})$`);

const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('base64url');

/** The id of a family's revocation marker (never a token's: no secret hashes to the empty string). */
function markerId(family: string): string {
  return createHash('sha256')
    .update(`kma-refresh-revoked:${family}`)
    .digest('base64url')
    .slice(0, REFRESH_ID_LENGTH);
}

/** The one id a token's successor can have. */
export function successorId(id: string): string {
  return createHash('sha256')
    .update(`kma-refresh-next:${id}`)
    .digest('base64url')
    .slice(0, REFRESH_ID_LENGTH);
}

/** Splits a token into id and secret; `undefined` when it cannot be one of ours. */
export function parseRefreshToken(token: string): { id: string; secret: string } | undefined {
  const match = TOKEN_PATTERN.exec(token);
  return match === null ? undefined : { id: match[1] as string, secret: match[2] as string };
}

/** The refresh sessions of one `AuthRouter`. */
/**
 * The user a refresh record names: the user model's table and the key. Two routers on other user
 * models may share a store (one Redis prefix, one refresh-token model): a record one of them wrote
 * names no user of the other, whose `/refresh` and revocations then pass it by.
 */
export function sessionUser(table: string, key: string): string {
  return `${table}:${key}`;
}

/** The key a record's user names in this table; undefined for another table's (or an older record's). */
export function sessionUserKey(stored: string, table: string): string | undefined {
  const prefix = `${table}:`;
  return stored.startsWith(prefix) && stored.length > prefix.length ? stored.slice(prefix.length) : undefined;
}

export class RefreshSessions {
  /** Where the records live. */
  readonly store: RefreshTokenStore;
  /** Seconds a refresh token stays valid (each rotation starts a new lifetime). */
  readonly lifetime: number;

  constructor(store: RefreshTokenStore, lifetime: number) {
    this.store = store;
    this.lifetime = lifetime;
  }

  /** Starts a family (a login) for the user; `issuedAtMs` orders it against revocations. */
  async start(scope: StoreScope, user: string, issuedAtMs = Date.now()): Promise<IssuedRefreshToken> {
    for (let attempt = 0; ; attempt += 1) {
      const id = randomBytes(16).toString('base64url');
      const issued = await this.put(scope, id, id, user, issuedAtMs);
      if (issued !== undefined) return issued;
      // 128 random bits do not collide; a store that keeps refusing is broken.
      if (attempt >= 2)
        throw ApiError.internal(new Error('The refresh-token store refused three fresh ids.'));
    }
  }

  /**
   * Checks a presented token (401 `invalid_refresh_token` or `refresh_token_expired`), asks
   * `checkUser` (which throws when the user is gone or revoked the token), then rotates it.
   * A token already rotated revokes its family: 401 `refresh_token_reused`.
   */
  async rotate(
    scope: StoreScope,
    token: string,
    checkUser: (record: RefreshRecord) => Promise<void>,
  ): Promise<Rotation> {
    const record = await this.verify(scope, token);
    // Taken before the user is read: a revocation written meanwhile is later than this, so it
    // covers the tokens issued now.
    const issuedAt = Date.now();
    if (record.expiresAt <= issuedAt) throw ApiError.refreshTokenExpired();
    try {
      await checkUser(record);
    } catch (error) {
      await this.revokeFamily(scope, record.family);
      throw error;
    }
    const issued = await this.put(scope, successorId(record.id), record.family, record.user, issuedAt);
    if (issued === undefined) {
      await this.revokeFamily(scope, record.family);
      throw ApiError.refreshTokenReused();
    }
    if ((await this.store.find(scope, markerId(record.family))) !== undefined) {
      // The family was revoked while this rotation ran (a concurrent reuse): undo it.
      await this.store.revokeFamily(scope, record.family);
      throw ApiError.refreshTokenReused();
    }
    return { record, issuedAt, issued };
  }

  /** Revokes the family of a token; resolves `false` when the token is unknown or not ours. */
  async logout(scope: StoreScope, token: string): Promise<boolean> {
    let record: RefreshRecord;
    try {
      record = await this.verify(scope, token);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'invalid_refresh_token') return false;
      throw error;
    }
    await this.revokeFamily(scope, record.family);
    return true;
  }

  /** Marks a family revoked (for rotations running now), then deletes its records. */
  async revokeFamily(scope: StoreScope, family: string): Promise<void> {
    const now = Date.now();
    // The marker outlives every token of the family: none expires later than `lifetime` from now.
    // Its own family and empty user keep it out of the deletions below and of `revokeUser`.
    await this.store.insert(scope, {
      id: markerId(family),
      family: `revoked:${family}`,
      user: '',
      secretHash: '',
      issuedAt: now,
      expiresAt: now + this.lifetime * 1000,
    });
    await this.store.revokeFamily(scope, family);
  }

  /** Revokes every family of a user. */
  revokeUser(scope: StoreScope, user: string): Promise<void> {
    return this.store.revokeUser(scope, user);
  }

  /** The record of a well-formed token whose secret matches; 401 `invalid_refresh_token` otherwise. */
  private async verify(scope: StoreScope, token: string): Promise<RefreshRecord> {
    const parts = parseRefreshToken(token);
    if (parts === undefined) throw ApiError.invalidRefreshToken('The refresh token is malformed.');
    const record = await this.store.find(scope, parts.id);
    const expected = Buffer.from(record?.secretHash ?? '', 'utf8');
    const actual = Buffer.from(hashOf(parts.secret), 'utf8');
    if (record === undefined || expected.length !== actual.length || !timingSafeEqual(expected, actual)) {
      throw ApiError.invalidRefreshToken();
    }
    return record;
  }

  /** Inserts a record with a fresh secret; `undefined` when the id is taken. */
  private async put(
    scope: StoreScope,
    id: string,
    family: string,
    user: string,
    issuedAt: number,
  ): Promise<IssuedRefreshToken | undefined> {
    const secret = randomBytes(32).toString('base64url');
    const inserted = await this.store.insert(scope, {
      id,
      family,
      user,
      secretHash: hashOf(secret),
      issuedAt,
      expiresAt: issuedAt + this.lifetime * 1000,
    });
    return inserted ? { refresh_token: `${id}.${secret}`, refresh_expires_in: this.lifetime } : undefined;
  }
}
