/**
 * Where refresh tokens live. A store keeps one record per issued refresh token, keyed by the
 * token's public id; the secret half is kept only as a SHA-256 hash. The one operation that must
 * be atomic is `insert`: rotation claims a token by inserting its successor under an id derived
 * from the parent's, so of two concurrent rotations of one token exactly one succeeds and the
 * other is seen as reuse. Every store here (memory, adapter, Redis) gets that from a primary key
 * or `SET NX`, nothing more.
 */
import { hasMethods } from '../../options/methods.js';
import type { OrmAdapter } from '../../types.js';

/** One stored refresh token. Times are milliseconds since the epoch. */
export interface RefreshRecord {
  /** The public id: the part of the token before the dot; the primary key. */
  readonly id: string;
  /** The family (login) the token belongs to: the id of the family's first token. */
  readonly family: string;
  /** The user's primary key, as a string. */
  readonly user: string;
  /** SHA-256 of the secret half, base64url. */
  readonly secretHash: string;
  /** When the token was issued: compared with the user's `tokens_valid_after`. */
  readonly issuedAt: number;
  /** When the token stops working. */
  readonly expiresAt: number;
}

/** What a store may need of the request: the adapter (the adapter store writes through it). */
export interface StoreScope {
  /** The adapter of the request or of the programmatic call. */
  readonly adapter: OrmAdapter;
}

/** Where refresh tokens are kept. */
export interface RefreshTokenStore {
  /** A short name for logs (`memory`, `adapter`, `redis`). */
  readonly kind: string;
  /** Stores a record; `false` (and nothing written) when a record with that id exists. Atomic. */
  insert(scope: StoreScope, record: RefreshRecord): Promise<boolean>;
  /** The record with that id, or `undefined`. */
  find(scope: StoreScope, id: string): Promise<RefreshRecord | undefined>;
  /** Deletes every record of a family. */
  revokeFamily(scope: StoreScope, family: string): Promise<void>;
  /** Deletes every record of a user. */
  revokeUser(scope: StoreScope, user: string): Promise<void>;
  /** Checks the store can work with this adapter (called at registration); throws `ConfigurationError`. */
  check?(scope: StoreScope): void;
}

/** Whether a value implements `RefreshTokenStore`. */
export function isRefreshTokenStore(value: unknown): value is RefreshTokenStore {
  return hasMethods<RefreshTokenStore>(value, ['insert', 'find', 'revokeFamily', 'revokeUser']);
}
