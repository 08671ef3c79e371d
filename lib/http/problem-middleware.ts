/**
 * The outermost middleware: turns every error (and an unanswered request) into an RFC 9457
 * problem details response. Only `ApiError` messages reach the client; anything else becomes a
 * generic 500 whose cause is logged, never sent.
 */
import type { Middleware, Next } from 'koa';
import { ApiError } from '../errors.js';
import type { AppContext, AppState } from '../types.js';

/** Where the framework writes what it logs. */
export interface Logger {
  /** Routine events, e.g. where the server listens. */
  info(message: string): void;
  /** Something unusual that did not fail a request. */
  warn(message: string): void;
  /** A failure, with the error that caused it. */
  error(message: string, error?: unknown): void;
}

/** Writes to the console. */
export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (message, error) => (error === undefined ? console.error(message) : console.error(message, error)),
};

type HttpLikeError = Error & { status?: number; statusCode?: number; expose?: boolean; type?: string };

/** At most one warning per this interval for each kind of 503 answer (its detail), per logger. */
const UNAVAILABLE_WARNING_INTERVAL_MS = 60_000;
/** The kinds remembered per logger: the catalogue's few 503 details, with room to spare. */
const UNAVAILABLE_KINDS = 64;
const lastUnavailableWarning = new WeakMap<Logger, Map<string, number>>();
/** The kind every 503 detail beyond `UNAVAILABLE_KINDS` counts as. */
const OTHER_KINDS = '\u0000other';

/**
 * Tells the operator why requests answer 503 (a server down, a pooler refusing transactions), once
 * a minute for each kind: the client learns only that it may retry, and an outage answers many
 * requests alike. Per kind, so that one cause (a full password-hashing queue under load) does not
 * hide another that minute (the database refusing transactions).
 */
function warnUnavailable(error: ApiError, logger: Logger): void {
  const now = Date.now();
  let kinds = lastUnavailableWarning.get(logger);
  if (kinds === undefined) {
    kinds = new Map();
    lastUnavailableWarning.set(logger, kinds);
  }
  // An application's own 503s may word each one differently: past the catalogue's few kinds, the
  // rest share one limit, as before kinds had their own.
  const kind = kinds.has(error.message) || kinds.size < UNAVAILABLE_KINDS ? error.message : OTHER_KINDS;
  const last = kinds.get(kind);
  if (last !== undefined && now - last < UNAVAILABLE_WARNING_INTERVAL_MS) return;
  kinds.set(kind, now);
  const cause = error.cause instanceof Error ? error.cause.message : String(error.cause ?? error.message);
  logger.warn(
    `answering 503 (${error.message}): ${cause.slice(0, 500)}; further 503s of this kind are not logged for a minute`,
  );
}

/** Maps any thrown value to an `ApiError`, logging what the client must not see. */
export function toApiError(error: unknown, logger: Logger): ApiError {
  if (error instanceof ApiError) {
    if (error.code === 'service_unavailable') warnUnavailable(error, logger);
    else if (error.status >= 500) logger.error('request failed', error.cause ?? error);
    // A set-up mistake the client cannot fix or see: the operator learns which fields.
    else if (error.code === 'server_value_missing') logger.error('request failed', error.cause ?? error);
    return error;
  }
  const httpError = error as HttpLikeError;
  const status = httpError?.status ?? httpError?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Errors of Koa middleware we compose (koa-jwt, body parsing): keep the status, not the text.
    if (status === 401) return ApiError.unauthorized('A valid bearer token is required.', 'invalid_token');
    if (status === 403) return ApiError.forbidden();
    if (status === 404) return ApiError.notFound();
    if (status === 413) return ApiError.payloadTooLarge(0);
    if (status === 415) return ApiError.unsupportedMediaType(['application/json']);
    return ApiError.badRequest('The request could not be read.');
  }
  logger.error('request failed', error);
  return ApiError.internal(error);
}

/** Writes an `ApiError` as the response. */
export function sendProblem(ctx: AppContext, error: ApiError): void {
  for (const name of ['Location', 'Link', 'X-Total-Count', 'Content-Disposition']) ctx.remove(name);
  ctx.status = error.status;
  for (const [name, value] of Object.entries(error.headers)) ctx.set(name, value);
  ctx.body = error.toProblem();
  ctx.set('Content-Type', 'application/problem+json; charset=utf-8');
}

/** The error boundary of the application. */
export function problemMiddleware(logger: Logger): Middleware<AppState> {
  return async function problemDetails(ctx: AppContext, next: Next): Promise<void> {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        sendProblem(ctx, ApiError.notFound(`No route for ${ctx.method} ${ctx.path.slice(0, 200)}.`));
      } else encodeJsonBody(ctx);
    } catch (error) {
      sendProblem(ctx, toApiError(error, logger));
    }
  };
}

/**
 * Encodes a body Koa would send as JSON, here rather than in Koa's `respond()`: a value JSON cannot
 * hold (a BigInt an adapter handed over) fails there after every middleware, as a bare text/plain
 * 500 that a silent app logs nowhere. Koa encodes the same way (`JSON.stringify`), once.
 */
function encodeJsonBody(ctx: AppContext): void {
  const body: unknown = ctx.body;
  if (
    body === null ||
    typeof body !== 'object' ||
    Buffer.isBuffer(body) ||
    typeof (body as { pipe?: unknown }).pipe === 'function' ||
    body instanceof Blob ||
    body instanceof ReadableStream ||
    body instanceof Response
  )
    return;
  // The type Koa gave the object (JSON, or problem+json) stays: a string body keeps a set type.
  ctx.body = JSON.stringify(body);
}

/**
 * For an existing Koa app with error handling of its own: answers the framework's errors
 * (`ApiError`) as RFC 9457 problem details and passes every other error on to the app's handler.
 * Put it before the framework's middleware.
 * @example
 * koa.use(problemDetails());
 * koa.use(auth.middleware());
 */
export function problemDetails(): Middleware<AppState> {
  return async function frameworkProblems(ctx: AppContext, next: Next): Promise<void> {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      sendProblem(ctx, error);
    }
  };
}

/** Headers every response carries. */
export function securityHeaders(): Middleware<AppState> {
  // Not async: it has nothing to do after `next()`, so it hands on next's promise as it is.
  return function headers(ctx: AppContext, next: Next): Promise<void> {
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'no-store');
    return next();
  };
}
