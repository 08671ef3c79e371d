/**
 * The credential routes: `POST /change-password` (the caller's own password, with the current
 * one), `POST /admin/{id}/password` (an administrator sets another user's password) and
 * `POST /admin/{id}/revoke-sessions` (an administrator ends another user's sessions). Each
 * revokes every token the user had; the first answers with a fresh token for the caller. Every
 * response, errors included, carries `Cache-Control: no-store`.
 */
import type { Middleware, Next } from 'koa';
import { ApiError } from '../errors.js';
import { needsOwnAuthentication } from '../http/authenticated-by.js';
import { bodyReader } from '../http/body.js';
import { noStore } from '../http/no-store.js';
import { type RouteGroup, type RouteSpec, routeGroup } from '../http/route-group.js';
import { sessionOf } from '../http/session.js';
import type { AppContext, AppState } from '../types.js';
import { checkCurrentPassword, requirePasswordText, storeRevocation } from './credentials.js';
import { passwordProblem } from './password-policy.js';
import type { AuthRuntime } from './runtime.js';
import { sessionUser } from './sessions/refresh-tokens.js';

type Handler = RouteSpec['handler'];

/** What the credential routes use of their `AuthRouter`. */
export interface CredentialRuntime extends AuthRuntime {
  /** The unique field `/login` looks users up by (the throttle key). */
  readonly usernameField: string;
}

const noop = async (): Promise<void> => {};

/** The body as a plain object, or 422. */
function objectBody(body: unknown, fields: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiError.validation([{ path: '', message: `must be an object with ${fields}` }]);
  }
  return body as Record<string, unknown>;
}

/** The field of a body, own properties only (`__proto__` and friends never count). */
function field(body: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(body, name) ? body[name] : undefined;
}

/** The `new_password` of a body, checked against the password rule before any hashing (422). */
function newPassword(body: Record<string, unknown>): string {
  const value = field(body, 'new_password');
  const problem = value === undefined ? 'is required' : passwordProblem(value);
  if (problem !== undefined) throw ApiError.validation([{ path: 'new_password', message: problem }]);
  return value as string;
}

/** Authenticates the request unless a router in front did, for these users (authenticated-by.ts). */
async function authenticate(runtime: AuthRuntime, ctx: AppContext): Promise<void> {
  if (needsOwnAuthentication(ctx.state.user, runtime.userModel)) await runtime.dependency(ctx, noop);
}

function changePassword(runtime: CredentialRuntime, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit });
  return async (ctx) => {
    if (!runtime.tokens.canIssue) throw ApiError.notFound();
    await authenticate(runtime, ctx);
    const body = objectBody(await read(ctx), 'current_password and new_password');
    const current = requirePasswordText(field(body, 'current_password'), 'current_password');
    const next = newPassword(body);
    const adapter = runtime.adapterFor(ctx);
    const session = sessionOf(ctx, adapter);
    const id = ctx.state.user?.id;
    const row = id === undefined ? undefined : await adapter.get(session, runtime.userModel, id);
    if (id === undefined || row === undefined)
      throw ApiError.unauthorized('The user of this token no longer exists.', 'invalid_token');
    await checkCurrentPassword(runtime, ctx, runtime.usernameField, row, current);
    const hashed = await runtime.hashPassword(next, 'new_password');
    const { revokedAt } = await storeRevocation(runtime, adapter, session, id, hashed);
    // The caller keeps a session: a new refresh family, issued after the revocation like the token.
    const table = runtime.binding(adapter).model.table;
    const refresh = await runtime.sessions?.start({ adapter }, sessionUser(table, String(id)), revokedAt + 1);
    ctx.status = 200;
    ctx.body = {
      ...runtime.tokens.issue(String(id), { issuedAtMs: revokedAt + 1, userTable: table }),
      ...refresh,
    };
  };
}

/** The target of an administrator's route: the caller must be an admin, the id a user's (404 otherwise). */
async function adminTarget(
  runtime: CredentialRuntime,
  ctx: AppContext,
  rawId: string | undefined,
  what: string,
) {
  await authenticate(runtime, ctx);
  const caller = ctx.state.user;
  if (caller?.isAdmin !== true) throw ApiError.forbidden(`Only administrators may ${what}.`);
  const adapter = runtime.adapterFor(ctx);
  const binding = runtime.binding(adapter);
  const id = rawId === undefined ? undefined : binding.coerceId(rawId);
  const unknown = (): ApiError =>
    ApiError.notFound(`No ${binding.model.name} with id "${String(rawId).slice(0, 100)}".`);
  if (id === undefined) throw unknown();
  return { caller, adapter, binding, id, unknown };
}

function resetPassword(runtime: CredentialRuntime, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit });
  return async (ctx, params) => {
    const { caller, adapter, binding, id, unknown } = await adminTarget(
      runtime,
      ctx,
      params.id,
      'set passwords',
    );
    // A stolen admin token must not be enough to take the admin's own account.
    if (String(id) === String(caller.id)) {
      throw ApiError.forbidden(
        'Change your own password with POST /change-password and the current password.',
      );
    }
    // Nor another admin's: a stolen token would promote an accomplice, whose token then reset the
    // admin's password (security review, session 16). An admin's password changes with its current
    // one, or from code (set_password).
    const target = await adapter.get(sessionOf(ctx, adapter), runtime.userModel, id);
    if (target === undefined) throw unknown();
    if (binding.requestUser(target).isAdmin === true) {
      throw ApiError.forbidden(
        "An administrator's password is not set through this route: its owner changes it with POST /change-password and the current password, or the operator from code with set_password().",
      );
    }
    const next = newPassword(objectBody(await read(ctx), 'new_password'));
    const hashed = await runtime.hashPassword(next, 'new_password');
    const { row } = await storeRevocation(runtime, adapter, sessionOf(ctx, adapter), id, hashed);
    if (row === undefined) throw unknown();
    ctx.status = 200;
    ctx.body = binding.serialize(row);
  };
}

function revokeSessions(runtime: CredentialRuntime): Handler {
  return async (ctx, params) => {
    const { adapter, id, unknown } = await adminTarget(runtime, ctx, params.id, "end other users' sessions");
    // Its own sessions an admin ends with POST /logout-all; here the caller's token stays valid.
    const { row } = await storeRevocation(runtime, adapter, sessionOf(ctx, adapter), id);
    if (row === undefined) throw unknown();
    ctx.status = 204;
  };
}

/** `POST /change-password`. */
export function credentialRoutes(runtime: CredentialRuntime, bodyLimit: number): RouteGroup {
  return routeGroup('', [
    { method: 'POST', path: '/change-password', handler: noStore(changePassword(runtime, bodyLimit)) },
  ]);
}

/** `POST /admin/{id}/password` and `POST /admin/{id}/revoke-sessions`. */
export function adminCredentialRoutes(runtime: CredentialRuntime, bodyLimit: number): RouteGroup {
  return routeGroup('/admin', [
    { method: 'POST', path: '/:id/password', handler: noStore(resetPassword(runtime, bodyLimit)) },
    { method: 'POST', path: '/:id/revoke-sessions', handler: noStore(revokeSessions(runtime)) },
  ]);
}

/** Two middlewares as one: `second` runs where `first` passes the request on. */
export function chain(first: Middleware<AppState>, second: Middleware<AppState>): Middleware<AppState> {
  return (ctx, next: Next) => first(ctx, () => second(ctx, next));
}
