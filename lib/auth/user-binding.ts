/**
 * The user model as one adapter describes it, compiled once per adapter: the admin flag, the
 * login field, the registration validator, the serializer and the key coercion. A user model that
 * cannot serve the plugin fails here, at registration.
 */
import { ApiError, ConfigurationError } from '../errors.js';
import { parseFieldText } from '../query/coerce.js';
import { compileSerializer, type Serializer } from '../schema/serializer.js';
import { compileWriteValidator } from '../schema/write-validator.js';
import type { ModelClass, ModelDescription, OrmAdapter, RawRecord, RecordId, RequestUser } from '../types.js';
import { type AdminFlag, adminFlagOf, isTruthyFlag } from './admin-flag.js';
import { emailAddressProblem } from './email-address.js';
import { PASSWORD_SCHEMA } from './password-policy.js';

/** The compiled user model of one adapter. */
export interface UserBinding {
  readonly adapter: OrmAdapter;
  readonly model: ModelDescription;
  readonly adminFlag: AdminFlag;
  readonly usernameField: string;
  /** Longest username the column holds, when known (longer ones cannot exist). */
  readonly usernameMaxLength: number | undefined;
  readonly serialize: Serializer;
  /** Validates a registration body: writable user fields plus `password`. */
  readonly validateRegistration: (body: unknown) => RawRecord;
  /** The same, always strict: `ensure_admin` is code, where a misspelt field is a mistake. */
  readonly validateStrict: (body: unknown) => RawRecord;
  /** The primary key value for text (a token's `sub`, a path `{id}`), or `undefined`. */
  coerceId(raw: string): RecordId | undefined;
  /** When the row's tokens were last revoked, in milliseconds, or `undefined` when never. */
  tokensValidAfter(row: Readonly<RawRecord>): number | undefined;
  /** The request user of a stored row. */
  requestUser(row: Readonly<RawRecord>): RequestUser;
  /** The `Location` of a user: `{collection}/{id}`, the collection `/{resource}` unless given. */
  location(row: Readonly<RawRecord>, collection?: string): string;
}

/** Input fields of registration beyond the model's own. */
export const REGISTRATION_EXTRA_FIELDS = Object.freeze({ password: PASSWORD_SCHEMA });

/** Compiles the user model for an adapter; `ConfigurationError` when it cannot serve the plugin. */
export function bindUserModel(
  adapter: OrmAdapter,
  userModel: ModelClass,
  options: { readonly strict: boolean; readonly usernameField: string },
): UserBinding {
  const model = adapter.describe(userModel);
  if (model.creatable === false) {
    throw new ConfigurationError(
      `User model ${model.name}: the ORM cannot create a record of it (the root of an inheritance hierarchy whose rows are all subclasses'); use the subclass users register as.`,
    );
  }
  if (model.readOnly === true) {
    throw new ConfigurationError(
      `User model ${model.name}: the ORM never writes it (MikroORM \`readonly: true\`), so nobody could register or change a password; remove \`readonly\`.`,
    );
  }
  const hashed = model.fieldsByName.get('hashed_password');
  if (hashed === undefined || !hashed.hidden) {
    throw new ConfigurationError(
      `User model ${model.name}: \`hashed_password\` must be a hidden field; extend AuthMixin(FrameworkModel) and do not redeclare it.`,
    );
  }
  const revoked = model.fieldsByName.get('tokens_valid_after');
  if (revoked === undefined || !revoked.hidden) {
    throw new ConfigurationError(
      `User model ${model.name}: \`tokens_valid_after\` must be a hidden field; extend AuthMixin(FrameworkModel) and do not redeclare it.`,
    );
  }
  const adminFlag = adminFlagOf(model);
  const username = model.fieldsByName.get(options.usernameField);
  if (username === undefined || (username.type !== 'string' && username.type !== 'text')) {
    throw new ConfigurationError(
      `User model ${model.name}: the login field \`${options.usernameField}\` must be a string field (set username_field).`,
    );
  }
  if (!username.unique && !username.primary) {
    throw new ConfigurationError(
      `User model ${model.name}: the login field \`${options.usernameField}\` must be unique.`,
    );
  }
  const key = model.fieldsByName.get(model.primaryKey);
  if (key === undefined) throw new ConfigurationError(`User model ${model.name} has no primary key field.`);
  const serialize = compileSerializer(model);
  const registration = {
    mode: 'create',
    extraFields: REGISTRATION_EXTRA_FIELDS,
    extraRequired: ['password'],
  } as const;
  const usernameName = username.name;
  const withUsername =
    (validate: (body: unknown) => RawRecord) =>
    (body: unknown): RawRecord => {
      const data = validate(body);
      assertUsableUsername(data, usernameName);
      return data;
    };
  const validateRegistration = withUsername(
    compileWriteValidator(model, { ...registration, strict: options.strict }),
  );
  const validateStrict = options.strict
    ? validateRegistration
    : withUsername(compileWriteValidator(model, { ...registration, strict: true }));
  // A token's `sub` is the key as the plugin wrote it: `02` or `2.0` for user 2 is no token of ours.
  const coerceId = (raw: string): RecordId | undefined => {
    const value = parseFieldText(key, raw);
    if (typeof value === 'number') return String(value) === raw ? value : undefined;
    return typeof value === 'string' ? value : undefined;
  };
  return {
    adapter,
    model,
    adminFlag,
    usernameField: username.name,
    usernameMaxLength: username.maxLength,
    serialize,
    validateRegistration,
    validateStrict,
    coerceId,
    tokensValidAfter: (row) => revocationTime(row.tokens_valid_after),
    requestUser: (row) => ({
      id: row[model.primaryKey] as RecordId,
      isAdmin: isTruthyFlag(row[adminFlag]),
      record: Object.freeze(serialize(row)),
    }),
    location: (row, collection = `/${model.resource}`) =>
      `${collection}/${encodeURIComponent(String(row[model.primaryKey]))}`,
  };
}

/** The stored revocation time in milliseconds (ISO text as AuthMixin stores it; a Date or number too). */
export function revocationTime(stored: unknown): number | undefined {
  if (stored === null || stored === undefined || stored === '') return undefined;
  const ms =
    stored instanceof Date
      ? stored.getTime()
      : typeof stored === 'number'
        ? stored
        : Date.parse(String(stored));
  // An unreadable value revokes everything rather than nothing: it can only come from outside the API.
  return Number.isFinite(ms) ? ms : Number.POSITIVE_INFINITY;
}

/** The text `tokens_valid_after` stores for a time in milliseconds. */
export function revocationText(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The revocation time a new user's row starts with: every token issued before the row existed is
 * refused. Without it (null: nothing revoked) the access and refresh tokens of a deleted user
 * whose key is given again (a username key, an id a database reuses) would pass for the new one.
 * Set just before the creation's second, so that every token of that second still works, even one
 * dated in whole seconds (`iat` without `iat_ms`: an issuer other than the plugin).
 */
export function newUserRevocation(): { tokens_valid_after: string } {
  return { tokens_valid_after: revocationText(Math.floor(Date.now() / 1000) * 1000 - 1) };
}

/** Refuses (422 naming the field) an email address the account routes could not mail as one address. */
export function assertEmailAddress(data: Readonly<RawRecord>, field: string): void {
  const problem = emailAddressProblem(data[field]);
  if (problem !== undefined) throw ApiError.validation([{ path: field, message: problem }]);
}

/** Refuses a login name nobody could log in with (empty or only spaces): 422 naming the field. */
export function assertUsableUsername(data: Readonly<RawRecord>, field: string): void {
  const value = data[field];
  if (typeof value === 'string' && value.trim() === '') {
    throw ApiError.validation([{ path: field, message: 'must not be empty' }]);
  }
}

/** Turns a 422 of the validator into a `ConfigurationError` (for start-up calls such as `ensure_admin`). */
export function asConfigurationError(error: unknown, what: string): unknown {
  if (!(error instanceof ApiError) || error.errors === undefined) return error;
  const details = error.errors.map((entry) => `${entry.path} ${entry.message}`).join('; ');
  return new ConfigurationError(`${what}: ${details}.`);
}
