/**
 * `ensure_admin`: creates the first administrator when no user with that username exists, and
 * otherwise changes nothing (it never resets a password). The username goes through the same rules
 * as `/register` (username.ts), so `Admin` finds the stored `admin`. Safe when several instances start
 * at once: the loser of the race meets the unique constraint, re-reads, and reports the winner's user.
 */
import { ApiError, ConfigurationError } from '../errors.js';
import { PRIMARY_READS } from '../http/session.js';
import type { OrmAdapter, RawRecord } from '../types.js';
import { isTruthyFlag } from './admin-flag.js';
import type { AuthRuntime } from './runtime.js';
import {
  asConfigurationError,
  assertEmailAddress,
  newUserRevocation,
  type UserBinding,
} from './user-binding.js';
import { usernameRulesOf } from './username.js';

/** Input of `ensure_admin`: the admin's username and password, and any other fields of the user model. */
export interface EnsureAdminOptions {
  /** A unit of work of the adapter (for MikroORM an `EntityManager`, e.g. `orm.em.fork()`); default a fresh one. */
  readonly db?: unknown;
  /** The adapter, when the router has none yet (not registered on an Application, no `adapter` option). */
  readonly adapter?: OrmAdapter;
  /** The login name: the value of the router's `username_field` (default `username`). */
  readonly username: string;
  /** The admin's password; it is hashed, never stored as given. */
  readonly password: string;
  /** The admin's email, when the user model has one. */
  readonly email?: string;
  /** Other fields of the user model (e.g. `age`). */
  readonly [field: string]: unknown;
}

/** What `ensure_admin` did. */
export interface EnsureAdminResult {
  /** True when this call created the user. */
  readonly created: boolean;
  /** The user (readable fields only). */
  readonly user: Record<string, unknown>;
}

/** Creates the admin unless a user with that username exists. */
export async function ensureAdmin(
  runtime: AuthRuntime,
  adapter: OrmAdapter,
  options: EnsureAdminOptions,
): Promise<EnsureAdminResult> {
  const { db, adapter: _adapter, password, username: given, ...rest } = options;
  if (typeof given !== 'string' || given === '') {
    throw new ConfigurationError('ensure_admin needs a non-empty `username`.');
  }
  const binding = runtime.binding(adapter);
  const checked = usernameRulesOf(runtime).check(given);
  if (!checked.ok) throw new ConfigurationError(`ensure_admin: ${binding.usernameField} ${checked.problem}.`);
  const username = checked.name;
  const fields: RawRecord = { ...rest, [binding.usernameField]: username };
  const session = db ?? adapter.openSession(PRIMARY_READS);
  const existing = await adapter.findBy(session, runtime.userModel, binding.usernameField, username);
  if (existing !== undefined) return found(runtime, binding, existing, username);

  let data: RawRecord;
  try {
    assertEmailAddress(fields, runtime.emailField);
    const { password: checked, ...valid } = binding.validateStrict({ ...fields, password });
    data = { ...valid, hashed_password: await runtime.hashPassword(checked), ...newUserRevocation() };
  } catch (error) {
    throw asConfigurationError(error, 'ensure_admin');
  }
  data[binding.adminFlag] = true;
  // The first admin is set up by the operator, not by a mailed link: a login that requires a
  // verified email must not lock it out.
  if (binding.model.fieldsByName.has('verified')) data.verified = true;
  try {
    const row = await adapter.create(session, runtime.userModel, data);
    return { created: true, user: binding.serialize(row) };
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'conflict') throw error;
    // Another instance created it first. A fresh unit of work: the failed one may hold the rejected row.
    const winner = await adapter.findBy(
      adapter.openSession(PRIMARY_READS),
      runtime.userModel,
      binding.usernameField,
      username,
    );
    // No user has that username: another user holds a unique value given for it (the email).
    if (winner === undefined) throw takenValue(error, username);
    return found(runtime, binding, winner, username);
  }
}

/** The error of a create refused because another user holds one of the given unique values. */
function takenValue(error: ApiError, username: string): ConfigurationError {
  const fields = (error.errors ?? []).map((field) => field.path).filter((path) => path !== '');
  const which = fields.length > 0 ? fields.join(', ') : 'a unique field';
  return new ConfigurationError(
    `ensure_admin: no user "${username}" exists, and it cannot be created: another user already has the ${which} given for it. Give ensure_admin another value, or change that user's.`,
    { cause: error },
  );
}

function found(
  runtime: AuthRuntime,
  binding: UserBinding,
  row: RawRecord,
  username: string,
): EnsureAdminResult {
  if (!isTruthyFlag(row[binding.adminFlag])) {
    runtime.logger.warn(
      `ensure_admin: user "${username}" exists and is not an administrator; nothing changed.`,
    );
  }
  return { created: false, user: binding.serialize(row) };
}
