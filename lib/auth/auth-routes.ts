/**
 * The plugin's routes: `POST /register`, `POST /login` and `POST /admin/{id}/make-admin`. Every
 * response, errors included, carries `Cache-Control: no-store`. Registration is throttled per
 * address and learns that a name is taken before it spends a password hash on it (issue 15: a flood
 * of duplicate registrations starved logins); usernames go through the username rules (username.ts)
 * on the way in and on login.
 */
import { ApiError, type FieldError } from '../errors.js';
import { needsOwnAuthentication } from '../http/authenticated-by.js';
import { bodyReader } from '../http/body.js';
import { noStore } from '../http/no-store.js';
import { type RouteGroup, type RouteSpec, routeGroup } from '../http/route-group.js';
import { sessionOf } from '../http/session.js';
import type { OrmAdapter, RawRecord } from '../types.js';
import { assertEmailVerified } from './account/account-service.js';
import { PASSWORD_MAX_BYTES, passwordProblem } from './password-policy.js';
import type { AuthRuntime } from './runtime.js';
import { sessionUser } from './sessions/refresh-tokens.js';
import { assertEmailAddress, newUserRevocation, type UserBinding } from './user-binding.js';
import { type UsernameRules, usernameRulesOf, withoutPadding } from './username.js';

type Handler = RouteSpec['handler'];

const noop = async (): Promise<void> => {};

/** Where the user model's CRUD routes live on this app, when they are known (an `Application`). */
export type UserCollection = () => string | undefined;

/** The registration's username in its stored form; 422 when the rules refuse it or it grows too long. */
function normaliseUsername(rules: UsernameRules, binding: UserBinding, fields: RawRecord): void {
  const field = binding.usernameField;
  const raw = fields[field];
  if (typeof raw !== 'string') return;
  const name = rules.normalise(raw, field);
  // NFKC may lengthen a name (a ligature, a full-width sign) past what the column holds.
  if (binding.usernameMaxLength !== undefined && [...name].length > binding.usernameMaxLength) {
    throw ApiError.validation([
      { path: field, message: `must have at most ${binding.usernameMaxLength} characters once normalised` },
    ]);
  }
  fields[field] = name;
}

/** 409 for a unique value already taken, found before any hash is computed (the database still has the last word). */
async function assertFree(
  adapter: OrmAdapter,
  session: unknown,
  runtime: AuthRuntime,
  binding: UserBinding,
  fields: Readonly<RawRecord>,
): Promise<void> {
  for (const field of binding.model.fields) {
    if (!field.unique || field.primary) continue;
    const value = fields[field.name];
    if (value === undefined || value === null) continue;
    if ((await adapter.findBy(session, runtime.userModel, field.name, value)) !== undefined) {
      throw ApiError.conflict(`A ${binding.model.name} with the same ${field.name} already exists.`, [
        { path: field.name, message: 'already exists' },
      ]);
    }
  }
}

function register(runtime: AuthRuntime, bodyLimit: number, collection?: UserCollection): Handler {
  const read = bodyReader({ limit: bodyLimit });
  return async (ctx) => {
    const adapter = runtime.adapterFor(ctx);
    const binding = runtime.binding(adapter);
    const data = binding.validateRegistration(await read(ctx));
    const { password, ...fields } = data;
    normaliseUsername(usernameRulesOf(runtime), binding, fields);
    assertEmailAddress(fields, runtime.emailField);
    const problem = passwordProblem(password);
    if (problem !== undefined) throw ApiError.validation([{ path: 'password', message: problem }]);
    // Counted once the body is valid (a 422 costs no more than any bad request) and before the
    // database is asked or a hash computed: the costly part is what the limit guards.
    await runtime.throttle?.registration(ctx.ip);
    const session = sessionOf(ctx, adapter);
    await assertFree(adapter, session, runtime, binding, fields);
    fields.hashed_password = await runtime.hashPassword(password);
    Object.assign(fields, newUserRevocation());
    const row = await adapter.create(session, runtime.userModel, fields);
    ctx.status = 201;
    // Only where a route serves the new user: a users CrudRouter on the same Application.
    const served = collection?.();
    if (served !== undefined) ctx.set('Location', binding.location(row, served));
    ctx.body = binding.serialize(row);
  };
}

/** The credentials of a login body (JSON, or the OAuth2 password form of Swagger UI's Authorize). */
export function loginCredentials(body: unknown): { username: string; password: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiError.validation([{ path: '', message: 'must be an object with username and password' }]);
  }
  const input = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  const grant = Object.hasOwn(input, 'grant_type') ? input.grant_type : undefined;
  if (grant !== undefined && grant !== 'password')
    errors.push({ path: 'grant_type', message: "must be 'password'" });
  const username = Object.hasOwn(input, 'username') ? input.username : undefined;
  const password = Object.hasOwn(input, 'password') ? input.password : undefined;
  if (typeof username !== 'string' || username === '') {
    errors.push({
      path: 'username',
      message: username === undefined ? 'is required' : 'must be a non-empty string',
    });
  }
  if (typeof password !== 'string' || password === '') {
    errors.push({
      path: 'password',
      message: password === undefined ? 'is required' : 'must be a non-empty string',
    });
  } else if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    errors.push({ path: 'password', message: `must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8` });
  }
  if (errors.length > 0) throw ApiError.validation(errors);
  return { username: username as string, password: password as string };
}

function login(runtime: AuthRuntime, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit, form: true });
  return async (ctx) => {
    if (!runtime.tokens.canIssue) throw ApiError.notFound();
    const { username, password } = loginCredentials(await read(ctx));
    const rules = usernameRulesOf(runtime);
    // The throttle counts the stored form: `ADMIN` and `admin` are one name, as in the database.
    const key = rules.lookupKey(username);
    await runtime.throttle?.attempt(key, ctx.ip);
    const adapter = runtime.adapterFor(ctx);
    const binding = runtime.binding(adapter);
    const session = sessionOf(ctx, adapter);
    // A username no column could hold (too long, NUL) is unknown without asking the database.
    const storable = (name: string): boolean =>
      !name.includes('\u0000') &&
      (binding.usernameMaxLength === undefined || [...name].length <= binding.usernameMaxLength);
    // Only a row whose own name has the counted form is this name's user: a collation that ignores
    // accents, case or trailing spaces (MariaDB's) would otherwise let `tärget` or `target ` log in
    // as `target` on a counter of their own. The refusal is an unknown user's, dummy hash included.
    // A `char(n)` column hands its value back padded with spaces, which no stored name ends with.
    const find = async (name: string) => {
      const found = await adapter.findBy(session, runtime.userModel, binding.usernameField, name);
      return found !== undefined && rules.lookupKey(withoutPadding(found[binding.usernameField])) === key
        ? found
        : undefined;
    };
    // Taken before the user is read, like /refresh's: a password change that lands after the read
    // writes a later revocation time (credentials.ts), so a token earned with the old password
    // cannot outlive it.
    const issuedAtMs = Date.now();
    const checked = rules.check(username);
    let row = checked.ok && storable(checked.name) ? await find(checked.name) : undefined;
    // A user stored before the rules (display case, a name they now refuse) logs in as stored.
    if (row === undefined && (!checked.ok || checked.name !== username) && storable(username)) {
      row = await find(username);
    }
    // Unknown user and wrong password cost the same (a dummy hash) and answer the same.
    const check = await runtime.passwords.check(password, row?.hashed_password);
    if (row === undefined || !check.ok) throw ApiError.invalidCredentials();
    await runtime.throttle?.succeeded(key, ctx.ip);
    // After the password check: the refusal tells nothing to someone without the password.
    assertEmailVerified(runtime.account?.options, row);
    const id = row[binding.model.primaryKey];
    if (check.rehash) {
      try {
        const hashed = await runtime.passwords.hash(password);
        await adapter.update(session, runtime.userModel, id as string | number, { hashed_password: hashed });
      } catch (error) {
        // Only the kind of error: a driver message may quote the statement, and with it the new hash.
        const kind = error instanceof ApiError ? error.code : ((error as Error | null)?.name ?? 'error');
        runtime.logger.warn(
          `login: upgrading the password hash failed (${kind}); the login itself succeeded.`,
        );
      }
    }
    const userTable = binding.model.table;
    const refresh = await runtime.sessions?.start(
      { adapter },
      sessionUser(userTable, String(id)),
      issuedAtMs,
    );
    ctx.status = 200;
    ctx.body = { ...runtime.tokens.issue(String(id), { issuedAtMs, userTable }), ...refresh };
  };
}

function makeAdmin(runtime: AuthRuntime): Handler {
  return async (ctx, params) => {
    if (needsOwnAuthentication(ctx.state.user, runtime.userModel)) await runtime.dependency(ctx, noop);
    if (ctx.state.user?.isAdmin !== true)
      throw ApiError.forbidden('Only administrators may grant the admin flag.');
    const adapter = runtime.adapterFor(ctx);
    const binding = runtime.binding(adapter);
    const id = params.id === undefined ? undefined : binding.coerceId(params.id);
    const unknown = (): ApiError =>
      ApiError.notFound(`No ${binding.model.name} with id "${String(params.id).slice(0, 100)}".`);
    if (id === undefined) throw unknown();
    const row = await adapter.update(sessionOf(ctx, adapter), runtime.userModel, id, {
      [binding.adminFlag]: true,
    });
    if (row === undefined) throw unknown();
    ctx.status = 200;
    ctx.body = binding.serialize(row);
  };
}

/** `POST /register` and `POST /login`; a registered user's `Location` is set only where `collection` names a served path. */
export function accountRoutes(
  runtime: AuthRuntime,
  bodyLimit: number,
  collection?: UserCollection,
): RouteGroup {
  return routeGroup('', [
    { method: 'POST', path: '/register', handler: noStore(register(runtime, bodyLimit, collection)) },
    { method: 'POST', path: '/login', handler: noStore(login(runtime, bodyLimit)) },
  ]);
}

/** `POST /admin/{id}/make-admin`. */
export function adminRoutes(runtime: AuthRuntime): RouteGroup {
  return routeGroup('/admin', [
    { method: 'POST', path: '/:id/make-admin', handler: noStore(makeAdmin(runtime)) },
  ]);
}
