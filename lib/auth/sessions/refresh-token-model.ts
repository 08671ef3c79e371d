/**
 * `RefreshTokenMixin(Base)`: the columns of the refresh-token table the adapter store writes to.
 * Like `AuthMixin`, it only lists columns; the adapter adds them when the ORM discovers the
 * entity, so the table is created (or updated) with the others. The model itself declares the
 * primary key, a string `id` of at least 43 characters, and is added to the ORM's entities.
 */
import {
  MIXIN_FIELDS,
  type MixinFieldSpec,
  mixinFieldsOf,
  PROTECTED_FIELDS,
  protectedFieldsOf,
} from '../../model/framework-model.js';
import type { ModelClass } from '../../types.js';

/** Length of a record id (base64url of 16 random bytes, or of a truncated SHA-256). */
export const REFRESH_ID_LENGTH = 22;

/** The columns `RefreshTokenMixin` adds. Times are ISO 8601 UTC text, as `tokens_valid_after`. */
export const REFRESH_TOKEN_FIELDS: Readonly<Record<string, MixinFieldSpec>> = Object.freeze({
  family: Object.freeze({ type: 'string', nullable: false, hidden: false, length: 43 }),
  user_id: Object.freeze({ type: 'string', nullable: false, hidden: false, length: 255 }),
  secret_hash: Object.freeze({ type: 'string', nullable: false, hidden: true, length: 64 }),
  issued_at: Object.freeze({ type: 'string', nullable: false, hidden: false, length: 32 }),
  expires_at: Object.freeze({ type: 'string', nullable: false, hidden: false, length: 32 }),
});

/** The instance fields of a refresh-token model. */
export interface RefreshTokenFields {
  /** The token's public id (primary key). */
  id: string;
  /** The family: the id of the login's first token. */
  family: string;
  /** The user's primary key, as text. */
  user_id: string;
  /** SHA-256 of the token's secret half (base64url); hidden. */
  secret_hash: string;
  /** Issue time, ISO 8601. */
  issued_at: string;
  /** Expiry time, ISO 8601. */
  expires_at: string;
}

/** The constructor side `RefreshTokenMixin` adds. */
// biome-ignore lint/suspicious/noExplicitAny: a mixin constructor takes whatever its base takes
export type RefreshTokenModelConstructor = abstract new (...args: any[]) => Omit<RefreshTokenFields, 'id'>;

/**
 * Makes `Base` the refresh-token model of the adapter store.
 * @example
 * @Entity() class RefreshToken extends RefreshTokenMixin(FrameworkModel) { @PrimaryKey({ type: 'string', length: 64 }) id!: string; }
 */
export function RefreshTokenMixin<TBase extends ModelClass>(
  Base: TBase,
): TBase & RefreshTokenModelConstructor {
  abstract class RefreshTokenModel extends Base {
    declare family: string;
    declare user_id: string;
    declare secret_hash: string;
    declare issued_at: string;
    declare expires_at: string;

    static readonly [MIXIN_FIELDS]: Readonly<Record<string, MixinFieldSpec>> = Object.freeze({
      ...mixinFieldsOf(Base),
      ...REFRESH_TOKEN_FIELDS,
    });
    // Nothing of a refresh token is ever written by a client (were the model served at all).
    static readonly [PROTECTED_FIELDS]: readonly string[] = Object.freeze([
      ...new Set([...protectedFieldsOf(Base), ...Object.keys(REFRESH_TOKEN_FIELDS)]),
    ]);
  }
  return RefreshTokenModel;
}

/** Whether a model class was built with `RefreshTokenMixin`. */
export function hasRefreshTokenMixin(model: ModelClass): boolean {
  return Object.hasOwn(mixinFieldsOf(model), 'secret_hash');
}
