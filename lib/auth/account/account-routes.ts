/**
 * The account routes: `POST /forgot-password`, `POST /reset-password`, `POST /verify-email/request`
 * and `POST /verify-email`. A reset sets the password through the password rule and revokes every
 * session (credentials.ts); the tokens are single-use, expiring and stored only as digests
 * (account-tokens.ts). Whether an address has an account never shows: `/forgot-password` and the
 * anonymous `/verify-email/request` answer 202 before looking, and do the work after the response.
 * Every response, errors included, carries `Cache-Control: no-store`.
 */
import { ApiError } from '../../errors.js';
import { needsOwnAuthentication } from '../../http/authenticated-by.js';
import { bodyReader } from '../../http/body.js';
import { noStore } from '../../http/no-store.js';
import { type RouteGroup, type RouteSpec, routeGroup } from '../../http/route-group.js';
import { PRIMARY_READS, sessionOf } from '../../http/session.js';
import type { AppContext, OrmAdapter, RawRecord, RecordId } from '../../types.js';
import { isTruthyFlag } from '../admin-flag.js';
import { storeRevocation } from '../credentials.js';
import { passwordProblem } from '../password-policy.js';
import { withoutPadding } from '../username.js';
import { accountError } from './account-errors.js';
import type { AccountService } from './account-service.js';
import { digestMatches, issueToken, notExpired, parseToken } from './account-tokens.js';

type Handler = RouteSpec['handler'];

/** Longest email address accepted (RFC 5321's path limit). */
export const EMAIL_MAX_LENGTH = 254;
/** Longest token accepted: an id of up to 200 characters, a dot and the secret. */
export const TOKEN_MAX_LENGTH = 244;

const noop = async (): Promise<void> => {};

/** The body as a plain object, or 422. */
function objectBody(body: unknown, fields: string): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw ApiError.validation([{ path: '', message: `must be an object with ${fields}` }]);
  }
  return body as Record<string, unknown>;
}

/** A non-empty string field of at most `max` characters, or 422 naming it. */
function text(body: Record<string, unknown>, name: string, max: number): string {
  const value = Object.hasOwn(body, name) ? body[name] : undefined;
  if (value === undefined) throw ApiError.validation([{ path: name, message: 'is required' }]);
  if (typeof value !== 'string' || value.trim() === '') {
    throw ApiError.validation([{ path: name, message: 'must be a non-empty string' }]);
  }
  if (value.length > max)
    throw ApiError.validation([{ path: name, message: `must have at most ${max} characters` }]);
  return value;
}

/** An email field: a string with an `@` (the mail server is the real judge). */
function emailOf(body: Record<string, unknown>): string {
  const email = text(body, 'email', EMAIL_MAX_LENGTH).trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email))
    throw ApiError.validation([{ path: 'email', message: 'must be an email address' }]);
  return email;
}

/**
 * The user of an email address: as given, then in lower case (addresses are usually stored so).
 * Only a row whose address is the given one in some case counts: the throttle counts the address
 * in lower case, and a collation that ignores accents or trailing spaces (MariaDB's) would
 * otherwise mail `vic@example.com` for `vić@example.com` on a counter of its own.
 */
async function findByEmail(
  service: AccountService,
  adapter: OrmAdapter,
  session: unknown,
  email: string,
): Promise<RawRecord | undefined> {
  const { userModel } = service.runtime;
  const field = service.options.emailField;
  const lower = email.toLowerCase();
  const find = async (value: string): Promise<RawRecord | undefined> => {
    const row = await adapter.findBy(session, userModel, field, value);
    return row !== undefined && withoutPadding(row[field]).toLowerCase() === lower ? row : undefined;
  };
  return (await find(email)) ?? (lower === email ? undefined : find(lower));
}

/** The stored row a presented token names, when its digest and expiry hold; `undefined` otherwise. */
async function rowOfToken(
  service: AccountService,
  adapter: OrmAdapter,
  session: unknown,
  token: string,
  kind: 'reset' | 'verify',
): Promise<{ id: RecordId; row: RawRecord } | undefined> {
  const parsed = parseToken(token);
  if (parsed === undefined) return undefined;
  const id = service.binding(adapter).coerceId(parsed.id);
  if (id === undefined) return undefined;
  const row = await adapter.get(session, service.runtime.userModel, id);
  if (row === undefined) return undefined;
  const hash = kind === 'reset' ? row.reset_token_hash : row.verify_token_hash;
  const expires = kind === 'reset' ? row.reset_token_expires : row.verify_token_expires;
  const ok =
    digestMatches(hash, parsed.secret, bindingsOf(service, row, kind)) && notExpired(expires, Date.now());
  return ok ? { id, row } : undefined;
}

/**
 * What a token is bound to: the address it was sent to and, for a reset, the password hash it
 * replaces — so a reset, a password change or an email change makes a pending link worthless.
 */
function bindingsOf(service: AccountService, row: Readonly<RawRecord>, kind: 'reset' | 'verify'): string[] {
  const email = String(row[service.options.emailField] ?? '');
  return kind === 'reset' ? [email, String(row.hashed_password ?? '')] : [email];
}

/** Stores a fresh reset or verification token for `row` and mails its link to the row's address. */
async function issueAndSend(
  service: AccountService,
  adapter: OrmAdapter,
  session: unknown,
  row: Readonly<RawRecord>,
  kind: 'reset' | 'verify',
): Promise<void> {
  const binding = service.binding(adapter);
  const id = row[binding.model.primaryKey] as RecordId;
  const { options } = service;
  const ttl = kind === 'reset' ? options.resetTokenTtl : options.verifyTokenTtl;
  const { token, digest } = issueToken(String(id), bindingsOf(service, row, kind));
  const expires = new Date(Date.now() + ttl).toISOString();
  await adapter.update(
    session,
    service.runtime.userModel,
    id,
    kind === 'reset'
      ? { reset_token_hash: digest, reset_token_expires: expires }
      : { verify_token_hash: digest, verify_token_expires: expires },
  );
  const to = String(row[options.emailField]);
  if (kind === 'reset')
    await service.sendLink(options.templates.reset_password, options.resetUrl, token, to, ttl);
  else await service.sendLink(options.templates.verify_email, options.verifyUrl, token, to, ttl);
}

/** The detail of every 202 of an address: the same whether or not it has an account. */
const SENT_IF_KNOWN = 'If an account uses this address, a message with a link was sent to it.';

function forgotPassword(service: AccountService, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit });
  return async (ctx) => {
    const email = emailOf(objectBody(await read(ctx), 'email'));
    await service.count('forgot_address', ctx.ip);
    await service.count('forgot_email', email.toLowerCase());
    const adapter = service.runtime.adapterFor(ctx);
    service.binding(adapter);
    // The answer does not wait for the lookup: its timing cannot tell whether the address is known.
    service.background('forgot-password', async () => {
      const session = adapter.openSession(PRIMARY_READS);
      const row = await findByEmail(service, adapter, session, email);
      if (row !== undefined) await issueAndSend(service, adapter, session, row, 'reset');
    });
    ctx.status = 202;
    ctx.body = { detail: SENT_IF_KNOWN };
  };
}

const invalidReset = (): ApiError =>
  accountError(
    'invalid_reset_token',
    'This reset link is invalid, already used or expired; ask for a new one.',
  );

function resetPassword(service: AccountService, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit });
  return async (ctx) => {
    const body = objectBody(await read(ctx), 'token and password');
    const token = text(body, 'token', TOKEN_MAX_LENGTH);
    const password = Object.hasOwn(body, 'password') ? body.password : undefined;
    const problem = password === undefined ? 'is required' : passwordProblem(password);
    if (problem !== undefined) throw ApiError.validation([{ path: 'password', message: problem }]);
    await service.count('reset_address', ctx.ip);
    const { runtime } = service;
    const adapter = runtime.adapterFor(ctx);
    const session = sessionOf(ctx, adapter);
    const found = await rowOfToken(service, adapter, session, token, 'reset');
    if (found === undefined) throw invalidReset();
    const claim = await service.claimOnce(String(found.row.reset_token_hash), service.options.resetTokenTtl);
    if (!claim.won) throw invalidReset();
    try {
      const hashed = await runtime.hashPassword(password, 'password');
      await adapter.update(session, runtime.userModel, found.id, {
        reset_token_hash: null,
        reset_token_expires: null,
      });
      await storeRevocation(runtime, adapter, session, found.id, hashed);
    } catch (error) {
      // Nothing was written (a full hashing queue, the database away): the link stays usable.
      await claim.release();
      throw error;
    }
    ctx.status = 204;
  };
}

/** Authenticates the request unless a router in front already did (401 without a valid token). */
async function authenticate(service: AccountService, ctx: AppContext): Promise<void> {
  if (needsOwnAuthentication(ctx.state.user, service.runtime.userModel))
    await service.runtime.dependency(ctx, noop);
}

function requestVerification(service: AccountService, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit });
  return async (ctx) => {
    const { runtime } = service;
    const adapter = runtime.adapterFor(ctx);
    service.binding(adapter);
    // Without a token (a user whose login is refused until they verify): by address, like a reset.
    if (ctx.get('Authorization') === '' && needsOwnAuthentication(ctx.state.user, runtime.userModel)) {
      const email = emailOf(objectBody(await read(ctx), 'email, or send a bearer token'));
      await service.count('forgot_address', ctx.ip);
      await service.count('verify_request', email.toLowerCase());
      service.background('verify-email/request', async () => {
        const session = adapter.openSession(PRIMARY_READS);
        const row = await findByEmail(service, adapter, session, email);
        if (row !== undefined && !isTruthyFlag(row.verified)) {
          await issueAndSend(service, adapter, session, row, 'verify');
        }
      });
      ctx.status = 202;
      ctx.body = { detail: SENT_IF_KNOWN };
      return;
    }
    await authenticate(service, ctx);
    const id = ctx.state.user?.id;
    const session = sessionOf(ctx, adapter);
    const row = id === undefined ? undefined : await adapter.get(session, runtime.userModel, id);
    if (id === undefined || row === undefined) {
      throw ApiError.unauthorized('The user of this token no longer exists.', 'invalid_token');
    }
    if (isTruthyFlag(row.verified)) throw ApiError.conflict('The email address is already verified.');
    const email = row[service.options.emailField];
    if (typeof email !== 'string' || email === '') {
      throw ApiError.conflict(`The user has no ${service.options.emailField} to verify.`);
    }
    await service.count('verify_request', String(id));
    try {
      await issueAndSend(service, adapter, session, row, 'verify');
    } catch (error) {
      if (error instanceof ApiError) throw error;
      runtime.logger.error(
        'verify-email/request: sending the message failed',
        error instanceof Error ? error.name : undefined,
      );
      throw new ApiError('service_unavailable', 'The message could not be sent; retry later.', {
        headers: { 'Retry-After': '30' },
      });
    }
    ctx.status = 202;
    ctx.body = { detail: `A message with a confirmation link was sent to ${email}.` };
  };
}

function verifyEmail(service: AccountService, bodyLimit: number): Handler {
  const read = bodyReader({ limit: bodyLimit });
  return async (ctx) => {
    const token = text(objectBody(await read(ctx), 'token'), 'token', TOKEN_MAX_LENGTH);
    await service.count('verify_address', ctx.ip);
    const adapter = service.runtime.adapterFor(ctx);
    const session = sessionOf(ctx, adapter);
    const found = await rowOfToken(service, adapter, session, token, 'verify');
    if (found === undefined) {
      throw accountError(
        'invalid_verification_token',
        'This confirmation link is invalid, already used or expired; ask for a new one.',
      );
    }
    await adapter.update(session, service.runtime.userModel, found.id, {
      verified: true,
      verify_token_hash: null,
      verify_token_expires: null,
    });
    ctx.status = 200;
    ctx.body = { verified: true };
  };
}

/** The account routes as route specifications (paths from the root). */
export function accountRouteSpecs(service: AccountService, bodyLimit: number): RouteSpec[] {
  return [
    { method: 'POST', path: '/forgot-password', handler: noStore(forgotPassword(service, bodyLimit)) },
    { method: 'POST', path: '/reset-password', handler: noStore(resetPassword(service, bodyLimit)) },
    {
      method: 'POST',
      path: '/verify-email/request',
      handler: noStore(requestVerification(service, bodyLimit)),
    },
    { method: 'POST', path: '/verify-email', handler: noStore(verifyEmail(service, bodyLimit)) },
  ];
}

/** The first path segments of the account routes (for `Application.mount`). */
export const ACCOUNT_ROUTE_SEGMENTS: readonly string[] = Object.freeze([
  'forgot-password',
  'reset-password',
  'verify-email',
]);

/** The account routes as one middleware (other paths pass through). */
export function accountLifecycleRoutes(service: AccountService, bodyLimit: number): RouteGroup {
  return routeGroup('', accountRouteSpecs(service, bodyLimit));
}
