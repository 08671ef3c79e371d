/**
 * The one error catalogue: every error a client can see has a stable `code`, a status and a
 * title, and is rendered as an RFC 9457 problem details body.
 */

/** The stable machine codes of the catalogue, with their HTTP status and title. */
export const ERROR_CATALOGUE = {
  bad_request: { status: 400, title: 'Bad request' },
  malformed_json: { status: 400, title: 'Malformed JSON body' },
  invalid_query: { status: 400, title: 'Invalid query parameter' },
  unauthorized: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Invalid or expired token' },
  invalid_credentials: { status: 401, title: 'Invalid username or password' },
  forbidden: { status: 403, title: 'Forbidden' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  validation_failed: { status: 422, title: 'Validation failed' },
  too_many_requests: { status: 429, title: 'Too many requests' },
  internal_error: { status: 500, title: 'Internal server error' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
} as const;

/** A stable error code of the catalogue. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** One field-level problem of a 422 (or 400) response. `path` is a JSON Pointer-like dotted path. */
export interface FieldError {
  readonly path: string;
  readonly message: string;
}

/** The RFC 9457 body the framework sends. */
export interface ProblemDetails {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: ErrorCode;
  readonly errors?: readonly FieldError[];
}

/** Base URI of the `type` member; each code has its own documented anchor. */
export const PROBLEM_TYPE_BASE = 'https://koa-model-api.dev/errors#';

/** An error a client may see: carries its code, status, safe detail and extra headers. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Koa reads `expose`: the message is safe for the client. */
  readonly expose = true;
  readonly errors?: readonly FieldError[];
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
  static unauthorized(detail = 'A valid bearer token is required.', code: 'unauthorized' | 'invalid_token' = 'unauthorized'): ApiError {
    const challenge = code === 'invalid_token' ? 'Bearer error="invalid_token"' : 'Bearer';
    return new ApiError(code, detail, { headers: { 'WWW-Authenticate': challenge } });
  }

  /** 401 for a failed login: the same body for an unknown user and a wrong password. */
  static invalidCredentials(): ApiError {
    return new ApiError('invalid_credentials', 'The username or password is incorrect.', {
      headers: { 'WWW-Authenticate': 'Bearer' },
    });
  }

  /** 403: authenticated but not allowed. */
  static forbidden(detail = 'You are not allowed to do this.'): ApiError {
    return new ApiError('forbidden', detail);
  }

  /** 404: no such record or route. */
  static notFound(detail = 'The requested resource does not exist.'): ApiError {
    return new ApiError('not_found', detail);
  }

  /** 405 with `Allow`. */
  static methodNotAllowed(allowed: readonly string[]): ApiError {
    return new ApiError('method_not_allowed', `Allowed methods: ${allowed.join(', ')}.`, {
      headers: { Allow: allowed.join(', ') },
    });
  }

  /** 409: a unique constraint refused the write. */
  static conflict(detail = 'A record with the same unique value already exists.', errors?: readonly FieldError[]): ApiError {
    return new ApiError('conflict', detail, errors === undefined ? {} : { errors });
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

  /** 429 with `Retry-After` in seconds. */
  static tooManyRequests(retryAfterSeconds: number): ApiError {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    return new ApiError('too_many_requests', `Too many attempts; retry in ${seconds} s.`, {
      headers: { 'Retry-After': String(seconds) },
    });
  }

  /** 503 with `Retry-After`: the database cannot be reached. */
  static unavailable(cause?: unknown, retryAfterSeconds = 5): ApiError {
    return new ApiError('service_unavailable', 'The database is unavailable; retry later.', {
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
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}
