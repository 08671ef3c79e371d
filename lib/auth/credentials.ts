/**
 * Credential changes shared by the change-password route, the admin reset, the email check of
 * the user routes and `AuthRouter.set_password`/`revoke_sessions`: checking a current password
 * (throttled like a login), and storing a new hash together with a revocation time, so every
 * token issued before the change is refused from the next request on.
 */
import { ApiError } from '../errors.js';
import type { AppContext, OrmAdapter, RawRecord, RecordId } from '../types.js';
import { PASSWORD_MAX_BYTES } from './password-policy.js';
import type { AuthRuntime } from './runtime.js';
import { sessionUser } from './sessions/refresh-tokens.js';
import { revocationText } from './user-binding.js';
import { usernameRulesOf } from './username.js';

/** Name of the input field that carries the current password. */
export const CURRENT_PASSWORD_FIELD = 'current_password';

/**
 * What a user created through the generated user routes stores as its hash: no scheme recognises
 * it, so every login fails (at the cost of a real check) until the password is set through
 * `POST /admin/{id}/password` or `set_password`.
 */
export const UNUSABLE_PASSWORD = '!unset';

/** The JSON Schema of a `current_password` input field. */
export const CURRENT_PASSWORD_SCHEMA = Object.freeze({
  type: 'string',
  minLength: 1,
  maxLength: PASSWORD_MAX_BYTES,
  writeOnly: true,
  description:
    "The password the user has now; required to change the email address (the account routes' `email_field`, default `email`), and an administrator's username (never stored).",
});

/** Refuses a current password that is missing or cannot be one (422 naming `path`). */
export function requirePasswordText(value: unknown, path: string, missing = 'is required'): string {
  if (value === undefined) throw ApiError.validation([{ path, message: missing }]);
  if (typeof value !== 'string' || value === '') {
    throw ApiError.validation([{ path, message: 'must be a non-empty string' }]);
  }
  if (Buffer.byteLength(value, 'utf8') > PASSWORD_MAX_BYTES) {
    throw ApiError.validation([{ path, message: `must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8` }]);
  }
  return value;
}

/**
 * Checks `password` against the stored user's hash. A wrong one counts as a failed login of that
 * username from the request's address (so a stolen token cannot guess faster than a login can)
 * and answers 403 `invalid_current_password`: the token is fine, so not a 401.
 */
export async function checkCurrentPassword(
  runtime: AuthRuntime,
  ctx: AppContext,
  usernameField: string,
  row: Readonly<RawRecord>,
  password: string,
): Promise<void> {
  // The login's own key, so that a legacy mixed-case row shares its login's counter.
  const username = usernameRulesOf(runtime).lookupKey(String(row[usernameField]));
  await runtime.throttle?.attempt(username, ctx.ip);
  const check = await runtime.passwords.check(password, row.hashed_password);
  if (!check.ok) throw ApiError.invalidCurrentPassword();
  await runtime.throttle?.succeeded(username, ctx.ip);
}

/** The outcome of storing a credential change. */
export interface StoredChange {
  /** The updated row, or `undefined` when no user has that key. */
  readonly row: RawRecord | undefined;
  /** The revocation time written, in milliseconds: tokens issued at or before it are refused. */
  readonly revokedAt: number;
}

/**
 * Writes the revocation time (and a new hash, when given) in one update, then deletes the user's
 * refresh tokens (those issued before the time are refused anyway; this frees their storage and
 * covers a store shared with a router whose user model differs). A token issued in the same
 * millisecond as the change is refused too; a token for the caller is issued one ms after.
 *
 * Logins and refreshes date their tokens before they read the user, so a revocation time taken
 * after the write landed is later than every token earned against the row it replaced. The time
 * in the first write is taken before it lands (a login may read the old row in between), so once
 * it has, the time is written again when the clock moved. With `db` in a transaction of the
 * caller's, "landed" means that transaction's commit, which this cannot wait for.
 */
export async function storeRevocation(
  runtime: AuthRuntime,
  adapter: OrmAdapter,
  session: unknown,
  id: RecordId,
  hashedPassword?: string,
): Promise<StoredChange> {
  const written = Date.now();
  let row = await adapter.update(session, runtime.userModel, id, {
    ...(hashedPassword === undefined ? {} : { hashed_password: hashedPassword }),
    tokens_valid_after: revocationText(written),
  });
  if (row === undefined) return { row, revokedAt: written };
  // Every read of the old row happened before now; the time of a token earned by one is not later.
  const revokedAt = Math.max(Date.now(), written);
  if (revokedAt > written) {
    row =
      (await adapter.update(session, runtime.userModel, id, {
        tokens_valid_after: revocationText(revokedAt),
      })) ?? row;
  }
  const table = runtime.binding(adapter).model.table;
  await runtime.sessions?.revokeUser({ adapter }, sessionUser(table, String(id)));
  return { row, revokedAt };
}
