/**
 * `AuthMixin(Base)`: turns a model into the user model of the auth plugin by adding the
 * `hashed_password` and `tokens_valid_after` columns, the `verified` flag and the hidden token
 * columns of password reset and email verification and, unless the model declares another admin
 * flag itself, `is_admin`.
 */
import {
  MIXIN_FIELDS,
  type MixinFieldSpec,
  mixinFieldsOf,
  PROTECTED_FIELDS,
  protectedFieldsOf,
} from '../model/framework-model.js';
import { WRITE_HOOKS_REQUIRED } from '../model/write-hooks.js';
import type { ModelClass } from '../types.js';
import { ADMIN_FLAGS } from './admin-flag.js';

/**
 * The columns `AuthMixin` adds, each only when the model does not declare it itself. `is_admin` is
 * also left out when the model declares another admin flag (`omitWhenDeclared`): a model declaring
 * `is_staff` gets no `is_admin` column, so `is_staff` is the authority.
 */
export const AUTH_MIXIN_FIELDS: Readonly<
  Record<
    | 'hashed_password'
    | 'tokens_valid_after'
    | 'verified'
    | 'reset_token_hash'
    | 'reset_token_expires'
    | 'verify_token_hash'
    | 'verify_token_expires'
    | 'is_admin',
    MixinFieldSpec
  >
> = Object.freeze({
  hashed_password: Object.freeze({ type: 'string', nullable: false, hidden: true, length: 255 }),
  // When the user's tokens were last revoked (ISO 8601 UTC with milliseconds); tokens issued
  // at or before it are refused. Text rather than a datetime because MySQL/MariaDB keep only
  // whole seconds in a plain DATETIME. Nullable, so `schema: 'update'` adds it to existing
  // tables without a default: NULL means "never revoked".
  tokens_valid_after: Object.freeze({ type: 'string', nullable: true, hidden: true, length: 32 }),
  // Set by `POST /verify-email`; defaulted, so `schema: 'update'` gives existing users `false`.
  verified: Object.freeze({ type: 'boolean', nullable: false, hidden: false, default: false }),
  // The pending password reset and email verification (lib/auth/account): a SHA-256 digest of
  // the emailed secret, never the secret, and its expiry as ISO text (like tokens_valid_after).
  // Nullable: NULL means none pending, and older tables gain them without a default.
  reset_token_hash: Object.freeze({ type: 'string', nullable: true, hidden: true, length: 64 }),
  reset_token_expires: Object.freeze({ type: 'string', nullable: true, hidden: true, length: 32 }),
  verify_token_hash: Object.freeze({ type: 'string', nullable: true, hidden: true, length: 64 }),
  verify_token_expires: Object.freeze({ type: 'string', nullable: true, hidden: true, length: 32 }),
  is_admin: Object.freeze({
    type: 'boolean',
    nullable: false,
    hidden: false,
    default: false,
    omitWhenDeclared: Object.freeze(ADMIN_FLAGS.filter((name) => name !== 'is_admin')),
  }),
});

/**
 * Fields no client may ever write on a user model: the password hash, the revocation time, the
 * `verified` flag, the pending reset and verification tokens and every admin flag.
 */
export const AUTH_PROTECTED_FIELDS: readonly string[] = Object.freeze([
  'hashed_password',
  'tokens_valid_after',
  'verified',
  'reset_token_hash',
  'reset_token_expires',
  'verify_token_hash',
  'verify_token_expires',
  ...ADMIN_FLAGS,
]);

/** The instance fields `AuthMixin` adds. */
export interface AuthModelFields {
  /** The password hash (bcrypt or argon2id); hidden from every response. */
  hashed_password: string;
  /** When the user's tokens were last revoked (ISO 8601); hidden, set by password changes. */
  tokens_valid_after?: string | null;
  /** Whether the user proved they read mail at the address field (`email_field`, default `email`; `POST /verify-email`); not writable by clients. */
  verified?: boolean;
  /** SHA-256 digest of the pending password reset secret; hidden. */
  reset_token_hash?: string | null;
  /** When the pending password reset expires (ISO 8601); hidden. */
  reset_token_expires?: string | null;
  /** SHA-256 digest of the pending email verification secret; hidden. */
  verify_token_hash?: string | null;
  /** When the pending email verification expires (ISO 8601); hidden. */
  verify_token_expires?: string | null;
  /** The admin flag, unless the model declares `is_superuser`, `is_staff` or `is_master` instead. */
  is_admin?: boolean;
}

/** The constructor side `AuthMixin` adds (its static markers stay out of the type, so declaration emit needs no import). */
// biome-ignore lint/suspicious/noExplicitAny: a mixin constructor takes whatever its base takes
export type AuthModelConstructor = abstract new (...args: any[]) => AuthModelFields;

/**
 * Makes `Base` a user model: `class User extends AuthMixin(FrameworkModel) { … }`.
 * @example
 * @Entity() class User extends AuthMixin(FrameworkModel) { @PrimaryKey() id!: number; @Property({ unique: true }) username!: string; }
 */
export function AuthMixin<TBase extends ModelClass>(Base: TBase): TBase & AuthModelConstructor {
  abstract class AuthModel extends Base {
    declare hashed_password: string;
    declare tokens_valid_after?: string | null;
    declare verified?: boolean;
    declare reset_token_hash?: string | null;
    declare reset_token_expires?: string | null;
    declare verify_token_hash?: string | null;
    declare verify_token_expires?: string | null;
    declare is_admin?: boolean;

    static readonly [MIXIN_FIELDS]: Readonly<Record<string, MixinFieldSpec>> = Object.freeze({
      ...mixinFieldsOf(Base),
      ...AUTH_MIXIN_FIELDS,
    });
    static readonly [PROTECTED_FIELDS]: readonly string[] = Object.freeze([
      ...new Set([...protectedFieldsOf(Base), ...AUTH_PROTECTED_FIELDS]),
    ]);
    // A CrudRouter on a user model without the auth plugin's write hooks is refused when created.
    static readonly [WRITE_HOOKS_REQUIRED] = 'the auth plugin (AuthRouter)';
  }
  return AuthModel;
}

/** Whether a model class was built with `AuthMixin` (directly or through a parent). */
export function hasAuthMixin(model: ModelClass): boolean {
  return Object.hasOwn(mixinFieldsOf(model), 'hashed_password');
}
