/**
 * The write hooks the auth plugin puts on its user model, so every `CrudRouter` on it keeps the
 * credentials out of reach: no body sets a password (it is not an input field; `hashed_password`
 * and `tokens_valid_after` are protected), a created user gets an unusable password, and a change
 * of the email address needs the target's `current_password` unless an administrator changes
 * another user. The address is the field the account routes mail reset links to (`emailField`):
 * guarding any other would let a stolen token redirect the reset mail (security review 9).
 */
import { ApiError } from '../errors.js';
import type { WriteHooks, WriteMode } from '../model/write-hooks.js';
import type { AppContext, RawRecord } from '../types.js';
import type { CredentialRuntime } from './credential-routes.js';
import {
  CURRENT_PASSWORD_FIELD,
  CURRENT_PASSWORD_SCHEMA,
  checkCurrentPassword,
  requirePasswordText,
  UNUSABLE_PASSWORD,
} from './credentials.js';
import { EMAIL_ADDRESS_PATTERN, EMAIL_MAX_LENGTH } from './email-address.js';
import { assertEmailAddress, assertUsableUsername, newUserRevocation } from './user-binding.js';
import { usernameRulesOf } from './username.js';

/** The flag AuthMixin adds for a verified email address; an email change clears it. */
const VERIFIED_FIELD = 'verified';

/** Refuses an email change of `target` unless the caller may make it (see the file header). */
async function guardEmailChange(
  runtime: CredentialRuntime,
  ctx: AppContext,
  target: Readonly<RawRecord>,
  currentPassword: unknown,
  emailField: string,
): Promise<void> {
  const binding = runtime.binding(runtime.adapterFor(ctx));
  const caller = ctx.state.user;
  const self = caller !== undefined && String(caller.id) === String(target[binding.model.primaryKey]);
  // An administrator may correct another user's address without knowing their password; their
  // own address needs their password like anyone's, so a stolen admin token cannot redirect it, and
  // so does another administrator's (an accomplice promoted with a stolen token would redirect the
  // admin's reset mail).
  if (caller?.isAdmin === true && !self && binding.requestUser(target).isAdmin !== true) return;
  const password = requirePasswordText(
    currentPassword,
    CURRENT_PASSWORD_FIELD,
    `is required to change ${emailField}`,
  );
  await checkCurrentPassword(runtime, ctx, runtime.usernameField, target, password);
}

/**
 * Refuses a username change of an administrator's account without its `current_password`: a
 * stolen admin token (or an accomplice it promoted) would otherwise rename the admin, who could no
 * longer log in (security review, session 17). Other users' names stay an administrator's to fix.
 */
async function guardAdminRename(
  runtime: CredentialRuntime,
  ctx: AppContext,
  target: Readonly<RawRecord>,
  currentPassword: unknown,
): Promise<void> {
  const binding = runtime.binding(runtime.adapterFor(ctx));
  if (binding.requestUser(target).isAdmin !== true) return;
  const password = requirePasswordText(
    currentPassword,
    CURRENT_PASSWORD_FIELD,
    `is required to change the ${runtime.usernameField} of an administrator`,
  );
  await checkCurrentPassword(runtime, ctx, runtime.usernameField, target, password);
}

/**
 * Whether a written username is another name than the stored one: a PUT repeating a name stored
 * before the rules (display case) or padded by a `char(n)` column names the same user.
 */
function renames(runtime: CredentialRuntime, stored: unknown, written: unknown): boolean {
  if (typeof stored !== 'string') return stored !== written;
  try {
    return usernameRulesOf(runtime).normalise(stored.trimEnd(), runtime.usernameField) !== written;
  } catch {
    // A stored name the rules now refuse: any written name is another.
    return true;
  }
}

/** The write hooks of the user model of one `AuthRouter`. */
export function userWriteHooks(runtime: CredentialRuntime): WriteHooks {
  return {
    extraFields: { [CURRENT_PASSWORD_FIELD]: CURRENT_PASSWORD_SCHEMA },
    requiredOnCreate: [],
    // What the username rules refuse at once: empty, or whitespace at either end.
    fieldRules: {
      [runtime.usernameField]: { minLength: 1, pattern: '^\\S(?:.*\\S)?$' },
      [runtime.emailField]: { maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_ADDRESS_PATTERN },
    },
    async prepare(
      data: RawRecord,
      mode: WriteMode,
      ctx: AppContext | undefined,
      current?: Readonly<RawRecord>,
    ): Promise<RawRecord> {
      assertUsableUsername(data, runtime.usernameField);
      const name = data[runtime.usernameField];
      // Stored in the normal form /register and /login use, so look-alikes collide on the unique index.
      if (typeof name === 'string')
        data = {
          ...data,
          [runtime.usernameField]: usernameRulesOf(runtime).normalise(name, runtime.usernameField),
        };
      // `password` is no input field any more; dropping it here too covers direct callers.
      const { [CURRENT_PASSWORD_FIELD]: currentPassword, password: _password, ...rest } = data;
      const emailField = runtime.emailField;
      // A PUT repeats the stored address: only a new one is checked (one stored before the rule stays).
      if (mode === 'create' || current?.[emailField] !== rest[emailField])
        assertEmailAddress(rest, emailField);
      if (mode === 'create') return { ...rest, hashed_password: UNUSABLE_PASSWORD, ...newUserRevocation() };
      const usernameField = runtime.usernameField;
      if (
        ctx !== undefined &&
        current !== undefined &&
        Object.hasOwn(rest, usernameField) &&
        renames(runtime, current[usernameField], rest[usernameField])
      )
        await guardAdminRename(runtime, ctx, current, currentPassword);
      if (ctx === undefined || !Object.hasOwn(rest, emailField)) return rest;
      // The CRUD handlers pass the stored row of every update; without one nothing can be checked.
      if (current === undefined) {
        throw ApiError.validation([
          {
            path: emailField,
            message: 'An email change needs the stored user to check the password against.',
          },
        ]);
      }
      if (current[emailField] === rest[emailField]) return rest;
      await guardEmailChange(runtime, ctx, current, currentPassword, emailField);
      // A new address is not verified yet.
      return Object.hasOwn(current, VERIFIED_FIELD) ? { ...rest, [VERIFIED_FIELD]: false } : rest;
    },
    deleteRule: "An administrator's account is not deleted through the API (403), by anyone.",
    // An administrator's account is not deleted through the API, by anyone: a stolen admin token
    // (or an accomplice it promoted) would lock the administrators out, the last one included.
    prepareDelete(ctx: AppContext, current: Readonly<RawRecord>): void {
      const binding = runtime.binding(runtime.adapterFor(ctx));
      if (binding.requestUser(current).isAdmin === true)
        throw ApiError.forbidden(
          "An administrator's account is not deleted through the API: clear its admin flag from code first, or delete it from code.",
        );
    },
  };
}
