/**
 * The one error catalogue: every error a client can see has a stable `code`, a status and a
 * title, and is rendered as an RFC 9457 problem details body.
 */

/** The stable machine codes of the catalogue, with their HTTP status and title. */
export const ERROR_CATALOGUE = {
  /** 400: a request the framework cannot read that no more specific code covers. */
  bad_request: { status: 400, title: 'Bad request' },
  /** 400: a malformed JSON or form body. */
  malformed_json: { status: 400, title: 'Malformed JSON body' },
  /** 400: a list query parameter that cannot be honoured. */
  invalid_query: { status: 400, title: 'Invalid query parameter' },
  /** 401: no bearer token where one is required. */
  unauthorized: { status: 401, title: 'Authentication required' },
  /** 401: a bearer token that is malformed, expired, or whose user no longer exists. */
  invalid_token: { status: 401, title: 'Invalid or expired token' },
  /** 401: a failed login, the same for an unknown user and a wrong password. */
  invalid_credentials: { status: 401, title: 'Invalid username or password' },
  /** 401: a refresh token that is malformed, unknown, revoked, or whose user is gone. */
  invalid_refresh_token: { status: 401, title: 'Invalid refresh token' },
  /** 401: a refresh token past its lifetime. */
  refresh_token_expired: { status: 401, title: 'Refresh token expired' },
  /** 401: a refresh token presented again after it was rotated; its whole family is now revoked. */
  refresh_token_reused: { status: 401, title: 'Refresh token reused' },
  /** 400: a password reset token that is unknown, already used, expired, or older than the last password or email change. */
  invalid_reset_token: { status: 400, title: 'Invalid or expired reset token' },
  /** 400: an email verification token that is unknown, already used, expired, or older than the last email change. */
  invalid_verification_token: { status: 400, title: 'Invalid or expired verification token' },
  /** 403: login refused because the user's email address is not verified (`require_verified_email`). */
  email_not_verified: { status: 403, title: 'Email address not verified' },
  /** 403: the current password given to change the password or the email is wrong. */
  invalid_current_password: { status: 403, title: 'Current password is incorrect' },
  /** 403: authenticated, but a policy refused. */
  forbidden: { status: 403, title: 'Forbidden' },
  /** 404: no such record or route. */
  not_found: { status: 404, title: 'Not found' },
  /** 405: the path exists but not with this method (the response lists `Allow`). */
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  /** 409: a unique constraint refused the write. */
  conflict: { status: 409, title: 'Conflict' },
  /** 409: a versioned record changed since this request read it (optimistic locking); read it again. */
  stale_record: { status: 409, title: 'Record changed meanwhile' },
  /** 409: the database stopped this write because another was writing the same rows at that moment (a deadlock, the same link inserted twice); nothing was written: send it again. */
  write_conflict: { status: 409, title: 'Concurrent write' },
  /** 408: the request's headers or body did not arrive within the server's timeouts (answered by the HTTP server). */
  request_timeout: { status: 408, title: 'Request timeout' },
  /** 413: the body is larger than the limit. */
  payload_too_large: { status: 413, title: 'Payload too large' },
  /** 415: a body of a type the route does not take. */
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  /** 422: the body is readable but breaks the model's rules; `errors` names each field. */
  validation_failed: { status: 422, title: 'Validation failed' },
  /** 422: the record cannot be stored without a value only the server can give (a field clients never see); the server log names it. */
  server_value_missing: { status: 422, title: 'Server value missing' },
  /** 429: too many login attempts; `Retry-After` says when to try again. */
  too_many_requests: { status: 429, title: 'Too many requests' },
  /** 431: the request's headers are larger than the server reads (answered by the HTTP server). */
  header_fields_too_large: { status: 431, title: 'Request header fields too large' },
  /** 500: an unexpected failure; the detail never reveals internals. */
  internal_error: { status: 500, title: 'Internal server error' },
  /** 503: the database, or a store the auth plugin needs (its throttle's Redis), cannot be reached (also the answer of `/health/ready` for the database). */
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const;

/** A stable error code of the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One field-level problem of a 422 (or 400) response. `path` is a JSON Pointer-like dotted path. */
export interface FieldError {
  /** The field the problem is about, e.g. `email`. */
  readonly path: string;
  /** What is wrong there, in one sentence for a person. */
  readonly message: string;
}

/** The RFC 9457 body the framework sends. */
export interface ProblemDetails {
  /** URI of the problem kind: `PROBLEM_TYPE_BASE` followed by the code. */
  readonly type: string;
  /** Short summary of the problem kind, the same for every occurrence (the catalogue's title). */
  readonly title: string;
  /** The HTTP status code of the response. */
  readonly status: number;
  /** What went wrong with this request. */
  readonly detail: string;
  /** The stable machine code. */
  readonly code: ErrorCode;
  /** Field-level problems, for 422 and some 400 and 409 responses. */
  readonly errors?: readonly FieldError[];
}

/** Base URI of the `type` member; each code has its own documented anchor. */
export const PROBLEM_TYPE_BASE = 'https://koa-model-api.dev/errors#';

/** An error a client may see: carries its code, status, safe detail and extra headers. */
export class ApiError extends Error {
  /** The catalogue code. */
  readonly code: ErrorCode;
  /** The HTTP status, taken from the catalogue. */
  readonly status: number;
  /** Koa reads `expose`: the message is safe for the client. */
  readonly expose = true;
  /** Field-level problems sent in the body's `errors` member. */
  readonly errors?: readonly FieldError[];
  /** Headers sent with the response, e.g. `WWW-Authenticate`, `Allow` or `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    detail: string,
    options: { errors?: readonly FieldError[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    if (options.errors !== undefined) this.errors = options.errors;
    this.headers = options.headers ?? {};
  }

  /** The problem details body of this error. */
  toProblem(): ProblemDetails {
    const body: ProblemDetails = {
      type: PROBLEM_TYPE_BASE + this.code,
      title: ERROR_CATALOGUE[this.code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
      ...(this.errors === undefined ? {} : { errors: this.errors }),
    };
    return body;
  }

  /** 400: a malformed JSON or form body. */
  static malformedJson(detail = 'The request body is not valid JSON.'): ApiError {
    return new ApiError('malformed_json', detail);
  }

  /** 400: a list query parameter that cannot be honoured. */
  static invalidQuery(detail: string, errors?: readonly FieldError[]): ApiError {
    return new ApiError('invalid_query', detail, errors === undefined ? {} : { errors });
  }

  /** 400: any other request the framework cannot read. */
  static badRequest(detail: string): ApiError {
    return new ApiError('bad_request', detail);
  }

  /** 401 with the `WWW-Authenticate: Bearer` challenge. */
  static unauthorized(
    detail = 'A valid bearer token is required.',
    code: 'unauthorized' | 'invalid_token' = 'unauthorized',
  ): ApiError {
    const challenge = code === 'invalid_token' ? 'Bearer error="invalid_token"' : 'Bearer';
    return new ApiError(code, detail, { headers: { 'WWW-Authenticate': challenge } });
  }

  /** 401 for a failed login: the same body for an unknown user and a wrong password. */
  static invalidCredentials(): ApiError {
    return new ApiError('invalid_credentials', 'The username or password is incorrect.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }

  /** 401: a refresh token that is malformed, unknown or revoked. */
  static invalidRefreshToken(
    detail = 'The refresh token is unknown or was revoked. Log in again.',
  ): ApiError {
    return new ApiError('invalid_refresh_token', detail, { headers: { 'WWW-Authenticate': 'Bearer' } });
  }

  /** 401: a refresh token past its lifetime. */
  static refreshTokenExpired(): ApiError {
    return new ApiError('refresh_token_expired', 'The refresh token has expired. Log in again.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }

  /** 401: a rotated refresh token presented again; every token of its family was revoked. */
  static refreshTokenReused(): ApiError {
    return new ApiError(
      'refresh_token_reused',
      'The refresh token was already used; every token of its session was revoked. Log in again.',
      { headers: { 'WWW-Authenticate': 'Bearer' } },
    );
  }

  /** 403: the current password a credential change must carry is wrong (the token itself is fine). */
  static invalidCurrentPassword(): ApiError {
    return new ApiError('invalid_current_password', 'The current password is incorrect.');
  }

  /** 403: authenticated but not allowed. */
  static forbidden(detail = 'You are not allowed to do this.'): ApiError {
    return new ApiError('forbidden', detail);
  }

  /** 404: no such record or route. */
  static notFound(detail = 'The requested resource does not exist.'): ApiError {
    return new ApiError('not_found', detail);
  }

  /**
   * 404 exactly as the generated routes answer for an id with no record, `No Article with id "2".`:
   * a policy throws it to hide a record the caller may not know of (`model` and `id` from its input).
   */
  static recordNotFound(model: { readonly name: string }, id: unknown): ApiError {
    // Cut, like any echo of the request: the path's id can be as long as the URL.
    return new ApiError('not_found', `No ${model.name} with id "${String(id).slice(0, 100)}".`);
  }

  /** 405 with `Allow`. */
  static methodNotAllowed(allowed: readonly string[]): ApiError {
    return new ApiError('method_not_allowed', `Allowed methods: ${allowed.join(', ')}.`, {
      headers: { Allow: allowed.join(', ') },
    });
  }

  /** 409: a unique constraint refused the write. */
  static conflict(
    detail = 'A record with the same unique value already exists.',
    errors?: readonly FieldError[],
  ): ApiError {
    return new ApiError('conflict', detail, errors === undefined ? {} : { errors });
  }

  /** 409: a write the database stopped because a concurrent one held or wrote the same rows; retry it. */
  static writeConflict(cause?: unknown): ApiError {
    return new ApiError(
      'write_conflict',
      'Another request was writing the same rows at the same moment, and the database stopped this one; nothing was written. Send it again.',
      { cause },
    );
  }

  /** 413: the body is larger than the limit. */
  static payloadTooLarge(limitBytes: number): ApiError {
    return new ApiError('payload_too_large', `The request body exceeds the limit of ${limitBytes} bytes.`);
  }

  /** 415: a body of a type the route does not take. */
  static unsupportedMediaType(accepted: readonly string[]): ApiError {
    return new ApiError('unsupported_media_type', `The request body must be ${accepted.join(' or ')}.`);
  }

  /** 422: one entry per invalid field. */
  static validation(errors: readonly FieldError[], detail = 'The request body is invalid.'): ApiError {
    return new ApiError('validation_failed', detail, { errors });
  }

  /**
   * 422: a write lacks a value of fields clients can neither see nor send (hidden ones), which the
   * server must provide; the body names none of them, the cause (logged) names them all.
   */
  static serverValueMissing(model: string, fields: readonly string[]): ApiError {
    return new ApiError(
      'server_value_missing',
      'The record cannot be stored: a value the server must provide is missing.',
      {
        cause: new Error(
          `${model}: a write has no value for ${fields.join(', ')}, which clients can neither see nor send (hidden); give ${fields.length === 1 ? 'it' : 'them'} a default or onCreate, set ${fields.length === 1 ? 'it' : 'them'} in a hook, a subscriber or the router's write hooks, or make ${fields.length === 1 ? 'it' : 'them'} nullable.`,
        ),
      },
    );
  }

  /** 429 with `Retry-After` in seconds. */
  static tooManyRequests(retryAfterSeconds: number): ApiError {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    return new ApiError('too_many_requests', `Too many attempts; retry in ${seconds} s.`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }

  /** 503 with `Retry-After`: the database (or the named `service`, e.g. a throttle store) cannot be reached. */
  static unavailable(cause?: unknown, retryAfterSeconds = 5, service = 'The database'): ApiError {
    return new ApiError('service_unavailable', `${service} is unavailable; retry later.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
      cause,
    });
  }

  /** 500: generic body; the cause is logged, never sent. */
  static internal(cause?: unknown): ApiError {
    return new ApiError('internal_error', 'An unexpected error occurred.', { cause });
  }
}

/** A mistake in how the framework was set up (thrown at registration, never per request). */
export class ConfigurationError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigurationError';
  }
}
