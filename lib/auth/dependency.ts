/**
 * The auth dependency: Koa middleware built on koa-jwt that accepts only `Authorization: Bearer`,
 * only the configured algorithm, only tokens with `exp`, `sub` and the configured `iss`/`aud`,
 * without a `crit` header and not issued in the future, then loads the user by `sub` on every
 * request so that deletion, promotion, demotion and revocation (a password change sets the user's
 * `tokens_valid_after`) take effect at once. A token that passed verification is remembered by its text (verified-tokens.ts);
 * its `exp` and `nbf` are still checked on every request. Failures are 401 problem details with
 * `WWW-Authenticate: Bearer`. The dependency also carries the user model's write hooks
 * (user-writes.ts), which a `CrudRouter` on the user model given it applies.
 */

import type { Next } from 'koa';
import koaJwt from 'koa-jwt';
import { ApiError } from '../errors.js';
import { markAuthenticated } from '../http/authenticated-by.js';
import { primarySessionOf } from '../http/session.js';
import type { WriteHooks } from '../model/write-hooks.js';
import type { AppContext, AuthDependency, ModelClass, OrmAdapter } from '../types.js';
import {
  type AccessTokenClaims,
  issuedAtMs,
  requireClaims,
  requireNoCriticalHeader,
  TokenRuleError,
  type TokenService,
} from './tokens.js';
import type { UserBinding } from './user-binding.js';
import { VerifiedTokens } from './verified-tokens.js';

/** Name of the OpenAPI security scheme the plugin documents (the OAuth2 password flow of `/login`). */
export const SECURITY_SCHEME_NAME = 'OAuth2PasswordBearer';

/** Where the dependency gets the user model of a request's adapter. */
export interface DependencySources {
  readonly userModel: ModelClass;
  readonly tokens: TokenService;
  adapterFor(ctx: AppContext): OrmAdapter;
  binding(adapter: OrmAdapter): UserBinding;
}

const STATE_KEY = 'jwtClaims';
type JwtState = { [STATE_KEY]?: unknown; jwtOriginalError?: unknown };

const noop = async (): Promise<void> => {};

function tokenError(error: unknown): ApiError {
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'TokenExpiredError') return ApiError.unauthorized('The token has expired.', 'invalid_token');
  if (name === 'NotBeforeError') return ApiError.unauthorized('The token is not valid yet.', 'invalid_token');
  if (error instanceof TokenRuleError) return ApiError.unauthorized(error.detail, 'invalid_token');
  return ApiError.unauthorized('The token is invalid.', 'invalid_token');
}

/** Builds the dependency of one AuthRouter, carrying `writeHooks` for a router on its user model. */
export function createAuthDependency(
  sources: DependencySources,
  writeHooks: WriteHooks,
): AuthDependency & { readonly writeHooks: WriteHooks } {
  const { tokens } = sources;
  const keys = tokens.keys.verifyKeys;
  // koa-jwt passes its options to jsonwebtoken.verify: one algorithm, issuer and audience. The
  // KeyObjects verify faster than a string secret (bench/NOTES.md: JWT keys). No `cookie` option: header only.
  const { issuer, audience } = tokens.settings;
  const verifier = koaJwt({
    secret: (keys.length === 1 ? keys[0] : [...keys]) as unknown as koaJwt.Secret,
    algorithms: [tokens.algorithm],
    issuer,
    audience,
    key: STATE_KEY,
    passthrough: true,
  });
  const verified = new VerifiedTokens();

  /**
   * The claims of a remembered token in a header of the usual form, or undefined. A remembered
   * token passed full verification, so it holds no whitespace: any other form of the header
   * (other case, padding) finds nothing here and goes through `verify`, which checks its shape.
   */
  function remembered(ctx: AppContext): AccessTokenClaims | undefined {
    const header = ctx.get('authorization');
    return header.startsWith('Bearer ')
      ? verified.get(header.slice('Bearer '.length), Math.floor(Date.now() / 1000))
      : undefined;
  }

  /** Runs koa-jwt on a private state object, so nothing in `ctx.state` (e.g. `secret`) can steer it. */
  async function verify(ctx: AppContext): Promise<AccessTokenClaims> {
    const header = ctx.get('authorization');
    if (header === '') throw ApiError.unauthorized();
    const trimmed = header.trim();
    // Another scheme (`Basic …`) carries no bearer token at all: RFC 6750 §3.1 answers that with no
    // error code, as a missing header; a malformed Bearer header is an invalid token.
    if (!/^Bearer(\s|$)/i.test(trimmed))
      throw ApiError.unauthorized('A bearer token is required: send "Authorization: Bearer <token>".');
    if (!/^Bearer [^\s]+$/i.test(trimmed)) {
      throw ApiError.unauthorized('The Authorization header must be "Bearer <token>".', 'invalid_token');
    }
    const token = trimmed.slice('Bearer '.length);
    const known = verified.get(token, Math.floor(Date.now() / 1000));
    if (known !== undefined) return known;
    try {
      requireNoCriticalHeader(token);
    } catch (error) {
      throw tokenError(error);
    }
    const saved = ctx.state;
    const isolated: JwtState = {};
    ctx.state = isolated as AppContext['state'];
    try {
      await verifier(ctx as Parameters<typeof verifier>[0], noop);
    } finally {
      ctx.state = saved;
    }
    if (isolated.jwtOriginalError !== undefined) throw tokenError(isolated.jwtOriginalError);
    let claims: AccessTokenClaims;
    try {
      claims = requireClaims(isolated[STATE_KEY]);
    } catch (error) {
      throw tokenError(error);
    }
    verified.remember(token, claims);
    return claims;
  }

  const dependency = async function authDependency(ctx: AppContext, next: Next): Promise<void> {
    // A remembered token in the usual header form (most requests) needs neither the shape check's
    // regular expression nor a wait for `verify`.
    const claims = remembered(ctx) ?? (await verify(ctx));
    const adapter = sources.adapterFor(ctx);
    const binding = sources.binding(adapter);
    // A token of another user model's router (same key, issuer and audience) names a key of
    // another table: the same id here would be someone else.
    if (claims.user_table !== undefined && claims.user_table !== binding.model.table)
      throw ApiError.unauthorized('The token was issued for the users of another table.', 'invalid_token');
    const id = binding.coerceId(claims.sub);
    if (id === undefined) throw ApiError.unauthorized('The token is invalid.', 'invalid_token');
    // From the primary whatever the method: a replica's lagging copy of the user would accept a
    // token revoked there, and refuse one of a user it has not replayed yet.
    const row = await adapter.get(primarySessionOf(ctx, adapter), sources.userModel, id);
    if (row === undefined)
      throw ApiError.unauthorized('The user of this token no longer exists.', 'invalid_token');
    const validAfter = binding.tokensValidAfter(row);
    if (validAfter !== undefined && issuedAtMs(claims) <= validAfter) {
      throw ApiError.unauthorized(
        'The token was revoked: the password was changed or the sessions were ended after it was issued. Log in again.',
        'invalid_token',
      );
    }
    ctx.state.user = markAuthenticated(binding.requestUser(row), sources.userModel);
    await next();
  };
  return Object.assign(dependency, {
    userModel: sources.userModel,
    securityScheme: SECURITY_SCHEME_NAME,
    writeHooks,
  });
}
