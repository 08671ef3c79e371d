/**
 * The session routes: `POST /refresh` (a refresh token for a new access token and a new refresh
 * token), `POST /logout` (ends the session of a refresh token) and `POST /logout-all` (the bearer
 * token's user: every access and refresh token issued until now stops working). Every response,
 * errors included, carries `Cache-Control: no-store`.
 */
import { ApiError, type FieldError } from '../../errors.js';
import { needsOwnAuthentication } from '../../http/authenticated-by.js';
import { bodyReader } from '../../http/body.js';
import { noStore } from '../../http/no-store.js';
import { type RouteGroup, type RouteSpec, routeGroup } from '../../http/route-group.js';
import { sessionOf } from '../../http/session.js';
import type { AppContext } from '../../types.js';
import { storeRevocation } from '../credentials.js';
import type { AuthRuntime } from '../runtime.js';
import { type RefreshSessions, sessionUserKey } from './refresh-tokens.js';
import type { RefreshRecord } from './store.js';

type Handler = RouteSpec['handler'];

/** An `AuthRuntime` with refresh sessions. */
export type SessionRuntime = AuthRuntime & { readonly sessions: RefreshSessions };

const noop = async (): Promise<void> => {};

/** The `refresh_token` of a body (JSON, or the OAuth2 refresh form with `grant_type=refresh_token`); 422 otherwise. */
export function refreshTokenOf(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiError.validation([{ path: '', message: 'must be an object with refresh_token' }]);
  }
  const input = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  const grant = Object.hasOwn(input, 'grant_type') ? input.grant_type : undefined;
  if (grant !== undefined && grant !== 'refresh_token')
    errors.push({ path: 'grant_type', message: "must be 'refresh_token'" });
  const token = Object.hasOwn(input, 'refresh_token') ? input.refresh_token : undefined;
  if (typeof token !== 'string' || token === '') {
    errors.push({
      path: 'refresh_token',
      message: token === undefined ? 'is required' : 'must be a non-empty string',
    });
  }
  if (errors.length > 0) throw ApiError.validation(errors);
  return token as string;
}

/** Throws 401 `invalid_refresh_token` when the record's user is gone or revoked its tokens since. */
async function checkUser(runtime: SessionRuntime, ctx: AppContext, record: RefreshRecord): Promise<void> {
  const adapter = runtime.adapterFor(ctx);
  const binding = runtime.binding(adapter);
  const key = sessionUserKey(record.user, binding.model.table);
  const id = key === undefined ? undefined : binding.coerceId(key);
  const row =
    id === undefined ? undefined : await adapter.get(sessionOf(ctx, adapter), runtime.userModel, id);
  if (row === undefined)
    throw ApiError.invalidRefreshToken('The user of this refresh token no longer exists.');
  const validAfter = binding.tokensValidAfter(row);
  if (validAfter !== undefined && record.issuedAt <= validAfter) {
    throw ApiError.invalidRefreshToken(
      'The refresh token was revoked: the password was changed or the sessions were ended. Log in again.',
    );
  }
}

function refresh(runtime: SessionRuntime, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit, form: true });
  return async (ctx) => {
    if (!runtime.tokens.canIssue) throw ApiError.notFound();
    const token = refreshTokenOf(await read(ctx));
    const adapter = runtime.adapterFor(ctx);
    const scope = { adapter };
    const { record, issuedAt, issued } = await runtime.sessions.rotate(scope, token, (found) =>
      checkUser(runtime, ctx, found),
    );
    ctx.status = 200;
    const userTable = runtime.binding(adapter).model.table;
    // `checkUser` found the user of this table the record names.
    const subject = sessionUserKey(record.user, userTable) as string;
    ctx.body = { ...runtime.tokens.issue(subject, { issuedAtMs: issuedAt, userTable }), ...issued };
  };
}

function logout(runtime: SessionRuntime, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit, form: true });
  return async (ctx) => {
    const token = refreshTokenOf(await read(ctx));
    // Unknown, expired and already revoked tokens answer the same: logging out is idempotent
    // and tells a caller nothing about tokens it does not hold.
    await runtime.sessions.logout({ adapter: runtime.adapterFor(ctx) }, token);
    ctx.status = 204;
  };
}

function logoutAll(runtime: SessionRuntime): Handler {
  return async (ctx) => {
    if (needsOwnAuthentication(ctx.state.user, runtime.userModel)) await runtime.dependency(ctx, noop);
    const id = ctx.state.user?.id;
    if (id === undefined) throw ApiError.unauthorized();
    const adapter = runtime.adapterFor(ctx);
    // Sets the user's revocation time (every access token issued until now) and deletes the
    // refresh families (storeRevocation does both).
    const { row } = await storeRevocation(runtime, adapter, sessionOf(ctx, adapter), id);
    if (row === undefined)
      throw ApiError.unauthorized('The user of this token no longer exists.', 'invalid_token');
    ctx.status = 204;
  };
}

/** `POST /refresh`, `POST /logout` and `POST /logout-all`. */
export function sessionRoutes(runtime: SessionRuntime, bodyLimit: number): RouteGroup {
  return routeGroup('', [
    { method: 'POST', path: '/refresh', handler: noStore(refresh(runtime, bodyLimit)) },
    { method: 'POST', path: '/logout', handler: noStore(logout(runtime, bodyLimit)) },
    { method: 'POST', path: '/logout-all', handler: noStore(logoutAll(runtime)) },
  ]);
}
