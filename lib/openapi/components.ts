/**
 * The shared parts of every generated OpenAPI document: the RFC 9457 `Problem` schema, one
 * reusable response per error status, the headers and paging parameters the CRUD routes use.
 * Plugins reference them with `responseRef` so that every error in the document looks the same.
 */
import { ERROR_CATALOGUE, type ErrorCode, PROBLEM_TYPE_BASE } from '../errors.js';
import type { JsonSchema } from '../schema/json-schema.js';

/** Media type of every error body. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';
/** Media type of every record body. */
export const JSON_MEDIA_TYPE = 'application/json';

/** Largest `limit` a list accepts; a larger one is refused with 400. */
export const MAX_LIST_LIMIT = 1000;
/** `limit` of a list request that does not give one. */
export const DEFAULT_LIST_LIMIT = 100;

/** `$ref` to a schema of `components.schemas`. */
export function schemaRef(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/** `$ref` to a shared response of `components.responses` (see `PROBLEM_RESPONSES`). */
export function responseRef(name: ProblemResponseName): { $ref: string } {
  return { $ref: `#/components/responses/${name}` };
}

/** `$ref` to a shared header of `components.headers`. */
export function headerRef(name: keyof typeof HEADERS): { $ref: string } {
  return { $ref: `#/components/headers/${name}` };
}

/** `$ref` to a shared parameter of `components.parameters`. */
export function parameterRef(name: keyof typeof PARAMETERS): { $ref: string } {
  return { $ref: `#/components/parameters/${name}` };
}

/** The RFC 9457 problem details body; extension members are allowed, as the RFC says. */
export const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'An RFC 9457 problem details body.',
  properties: {
    type: { type: 'string', format: 'uri-reference', description: 'Identifies the kind of problem.' },
    title: { type: 'string', description: 'Short summary of the kind of problem.' },
    status: { type: 'integer', minimum: 100, maximum: 599, description: 'The HTTP status code.' },
    detail: { type: 'string', description: 'What went wrong with this request.' },
    code: {
      type: 'string',
      enum: Object.keys(ERROR_CATALOGUE),
      description: 'Stable machine-readable code.',
    },
    errors: {
      type: 'array',
      description: 'One entry per invalid field or parameter.',
      items: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'The field, as a dotted path.' },
          message: { type: 'string' },
        },
        required: ['path', 'message'],
        additionalProperties: false,
      },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code'],
};

/** Shared response headers. */
const HEADERS = {
  Location: {
    description: 'URL of the created record.',
    schema: { type: 'string', format: 'uri-reference' },
  },
  XTotalCount: {
    description:
      'Number of records matching the filters, ignoring `limit`, `offset` and `after`; absent with `count=false`.',
    schema: { type: 'integer', minimum: 0 },
  },
  Link: {
    description:
      'RFC 8288 links to the `next` and `prev` pages, present when there are such pages; a keyset page (`after`) links only to the next one, with its cursor.',
    schema: { type: 'string' },
  },
  RetryAfter: {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1 },
  },
  WWWAuthenticate: {
    description: 'The `Bearer` challenge.',
    schema: { type: 'string' },
  },
} as const;

/** One problem response: its status, the code its example shows, and extra headers. */
interface ProblemResponseSpec {
  readonly status: number;
  readonly code: ErrorCode;
  readonly description: string;
  readonly headers?: Readonly<Record<string, keyof typeof HEADERS>>;
}

/** The shared error responses, by component name. */
export const PROBLEM_RESPONSES = {
  BadRequest: {
    status: 400,
    code: 'bad_request',
    description: 'The request cannot be read: malformed JSON or an invalid query parameter.',
  },
  Unauthorized: {
    status: 401,
    code: 'unauthorized',
    description: 'No valid bearer token: missing, malformed, expired, or its user no longer exists.',
    headers: { 'WWW-Authenticate': 'WWWAuthenticate' },
  },
  Forbidden: {
    status: 403,
    code: 'forbidden',
    description: 'Authenticated, but the access policy refuses it.',
  },
  NotFound: { status: 404, code: 'not_found', description: 'No record with this identifier.' },
  Conflict: {
    status: 409,
    code: 'conflict',
    description: 'A record with the same unique value already exists.',
  },
  PayloadTooLarge: { status: 413, code: 'payload_too_large', description: 'The request body is too large.' },
  UnsupportedMediaType: {
    status: 415,
    code: 'unsupported_media_type',
    description: 'The request body is not `application/json`.',
  },
  ValidationFailed: {
    status: 422,
    code: 'validation_failed',
    description: 'The body is invalid; `errors` has one entry per field.',
  },
  HeaderFieldsTooLarge: {
    status: 431,
    code: 'header_fields_too_large',
    description:
      'The request headers (a token, cookies, the URL) are larger than the server reads; answered before any route.',
  },
  TooManyRequests: {
    status: 429,
    code: 'too_many_requests',
    description: 'Too many attempts; retry after the given delay.',
    headers: { 'Retry-After': 'RetryAfter' },
  },
  ServiceUnavailable: {
    status: 503,
    code: 'service_unavailable',
    description:
      'A service the request needs (the database, the throttle store, the session store) cannot answer; retry after the given delay.',
    headers: { 'Retry-After': 'RetryAfter' },
  },
} as const satisfies Record<string, ProblemResponseSpec>;

/** Name of a shared error response. */
export type ProblemResponseName = keyof typeof PROBLEM_RESPONSES;

/** The HTTP status of each problem response. */
export const PROBLEM_STATUS: Readonly<Record<ProblemResponseName, string>> = {
  BadRequest: '400',
  Unauthorized: '401',
  Forbidden: '403',
  NotFound: '404',
  Conflict: '409',
  PayloadTooLarge: '413',
  UnsupportedMediaType: '415',
  ValidationFailed: '422',
  TooManyRequests: '429',
  HeaderFieldsTooLarge: '431',
  ServiceUnavailable: '503',
};

/** An operation's `responses` entries for these problems, keyed by status, in status order. */
export function problemResponses(names: readonly ProblemResponseName[]): Record<string, { $ref: string }> {
  const sorted = [...new Set(names)].sort((a, b) => Number(PROBLEM_STATUS[a]) - Number(PROBLEM_STATUS[b]));
  return Object.fromEntries(sorted.map((name) => [PROBLEM_STATUS[name], responseRef(name)]));
}

/** The response object of one shared error response, with an example body. */
function problemResponse(spec: ProblemResponseSpec): Record<string, unknown> {
  const headers = Object.entries(spec.headers ?? {}).map(
    ([header, ref]) => [header, headerRef(ref)] as const,
  );
  return {
    description: spec.description,
    ...(headers.length === 0 ? {} : { headers: Object.fromEntries(headers) }),
    content: {
      [PROBLEM_MEDIA_TYPE]: {
        schema: schemaRef('Problem'),
        example: {
          type: PROBLEM_TYPE_BASE + spec.code,
          title: ERROR_CATALOGUE[spec.code].title,
          status: spec.status,
          detail: spec.description,
          code: spec.code,
        },
      },
    },
  };
}

/** Shared query parameters of list routes. */
const PARAMETERS = {
  Limit: {
    name: 'limit',
    in: 'query',
    description: `Page size (at most ${MAX_LIST_LIMIT}; a larger value is refused with 400).`,
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT },
  },
  Offset: {
    name: 'offset',
    in: 'query',
    description: 'Number of matching records to skip. Cannot be combined with `after`.',
    schema: { type: 'integer', minimum: 0, default: 0 },
  },
} as const;

/** The `after` list parameter (keyset paging), written inline in each list operation. */
export const AFTER_PARAMETER = {
  name: 'after',
  in: 'query',
  description:
    'Keyset paging: an opaque cursor from the `after` of a `Link: rel="next"` header; the page starts after ' +
    'the record it was made from. An empty value starts a keyset walk at the first record. A cursor works ' +
    'only with the `sort` and filtered fields it was made for, not with `offset`, and not when a sort key ' +
    'is nullable or lazy (400 otherwise). Deep pages cost as little as the first one.',
  schema: { type: 'string', maxLength: 4096, pattern: '^([A-Za-z0-9_-]+\\.[0-9a-z]+)?$' },
} as const;

/** The `count` list parameter, written inline in each list operation. */
export const COUNT_PARAMETER = {
  name: 'count',
  in: 'query',
  description:
    '`false` skips counting the matching records: no `X-Total-Count`, which saves a full count on big tables. ' +
    '`Link: rel="next"` is still given when there are more records.',
  schema: { type: 'boolean', default: true },
} as const;

/** The filter operators of list queries, as they appear in the query string. */
export const FILTER_OPERATORS_SCHEMA: JsonSchema = {
  type: 'object',
  description:
    'Operators of one filtered field: `filter[field][$op]=value`, where `field` may be the dotted path of a field ' +
    'inside an embedded object (`address.city`). Values are converted to the type of the field.',
  properties: {
    $eq: { type: 'string', description: 'Equal (`filter[field]=value` is the same).' },
    $ne: { type: 'string', description: 'Not equal.' },
    $gt: { type: 'string', description: 'Greater than.' },
    $gte: { type: 'string', description: 'Greater than or equal.' },
    $lt: { type: 'string', description: 'Less than.' },
    $lte: { type: 'string', description: 'Less than or equal.' },
    $in: { type: 'string', description: 'One of a comma-separated list.' },
    $nin: { type: 'string', description: 'None of a comma-separated list.' },
    $like: {
      type: 'string',
      description:
        'SQL LIKE pattern, case-sensitive: `%` any run of characters, `_` one character, a backslash makes the next character literal.',
    },
    $ilike: { type: 'string', description: 'Like `$like`, ignoring case.' },
    $exists: { type: 'string', enum: ['true', 'false'], description: 'Whether the field is set (not null).' },
  },
  additionalProperties: false,
};

/** Schema names the framework itself defines; plugins cannot declare these. */
export const RESERVED_SCHEMA_NAMES: ReadonlySet<string> = new Set(['Problem', 'FilterOperators']);

/** The `components` every document starts from (schemas get the models' schemas added). */
export function baseComponents(): {
  schemas: Record<string, JsonSchema>;
  responses: Record<string, unknown>;
  headers: Record<string, unknown>;
  parameters: Record<string, unknown>;
} {
  const responses: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(PROBLEM_RESPONSES)) responses[name] = problemResponse(spec);
  return {
    schemas: {
      Problem: structuredClone(PROBLEM_SCHEMA),
      FilterOperators: structuredClone(FILTER_OPERATORS_SCHEMA),
    },
    responses,
    headers: structuredClone(HEADERS) as Record<string, unknown>,
    parameters: structuredClone(PARAMETERS) as Record<string, unknown>,
  };
}
