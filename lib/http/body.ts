/**
 * Reads a request body for the routes that take one, with a size limit, and maps every parser
 * failure to the error catalogue (400 malformed, 413 too large, 415 wrong type).
 */
import { parse as parseJson } from '@hapi/bourne';
import { bodyParser } from '@koa/bodyparser';
import type { Context } from 'koa';
import { ApiError } from '../errors.js';
import type { AppContext } from '../types.js';

/** The default body size limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Options of `bodyReader`. */
export interface BodyReaderOptions {
  /** Largest accepted body in bytes (after decompression). */
  readonly limit: number;
  /** Also accept `application/x-www-form-urlencoded` (the OAuth2 password form). */
  readonly form?: boolean;
}

type ParserError = Error & { status?: number; statusCode?: number; type?: string };

function toApiError(error: ParserError, limit: number): ApiError {
  const status = error.status ?? error.statusCode;
  if (status === 413 || error.type === 'entity.too.large') return ApiError.payloadTooLarge(limit);
  if (status === 415 || error.type === 'encoding.unsupported' || error.type === 'charset.unsupported') {
    return new ApiError('unsupported_media_type', 'The body encoding or charset is not supported.');
  }
  if (error.type === 'request.aborted')
    return ApiError.badRequest('The request body was not received in full.');
  if (error.type === 'request.size.invalid')
    return ApiError.badRequest('The request body length does not match Content-Length.');
  if (status !== undefined && status >= 400 && status < 500) return ApiError.malformedJson();
  // A corrupt gzip/deflate/br stream fails in zlib before any JSON is read: the client's mistake.
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR__ERROR_FORMAT'))) {
    return ApiError.badRequest('The request body could not be decompressed.');
  }
  return ApiError.internal(error);
}

// JSON whitespace, then an object or an array (`jsonStrict`).
const STRICT_JSON_START = /^[ \t\n\r]*(\[|\{)/;

// Fatal: a byte sequence that is not UTF-8 is refused, never replaced by U+FFFD and stored so.
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The text of a body read as bytes (latin1 maps each byte to one char), decoded as strict UTF-8. */
function utf8Text(latin1: string): string {
  try {
    return utf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    throw ApiError.malformedJson('The request body is not valid UTF-8.');
  }
}

/**
 * A JSON body's value. A scalar (`null`, `"text"`, `5`) is valid JSON of the wrong shape: handed on
 * for the route's own check to refuse (422), as an array is; only text that is no JSON is a 400.
 */
function parseJsonText(text: string): unknown {
  if (!STRICT_JSON_START.test(text)) {
    // Text that starts with neither `{` nor `[` and parses is one scalar.
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw ApiError.malformedJson();
    }
  }
  try {
    // As the parser did before: a `__proto__` key is refused (bourne's `protoAction: 'error'`).
    return parseJson(text, { protoAction: 'error' });
  } catch {
    // Valid JSON refused for that key alone: say so (read again only on this error path).
    if (isJson(text))
      throw ApiError.malformedJson(
        'The request body holds a "__proto__" key, which is refused: it could change the objects built from it.',
      );
    throw ApiError.malformedJson();
  }
}

/** Whether the text is JSON. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** One name or value of a form: `+` is a space, and each `%XX` sequence must spell UTF-8. */
function formComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw ApiError.badRequest('The form body is not valid: a percent-escape is not UTF-8.');
  }
}

// As qs read at most 1,000 fields: more is no form a client of these routes sends.
const MAX_FORM_FIELDS = 1_000;

/**
 * An `application/x-www-form-urlencoded` body's fields: a name given twice holds an array, as qs
 * gave it; `__proto__` is dropped, as qs drops it.
 */
function parseFormText(text: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {};
  const pairs = text.split('&', MAX_FORM_FIELDS + 1);
  if (pairs.length > MAX_FORM_FIELDS)
    throw ApiError.badRequest(`The form body has more than ${MAX_FORM_FIELDS} fields.`);
  for (const pair of pairs) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const name = formComponent(equals === -1 ? pair : pair.slice(0, equals));
    const value = formComponent(equals === -1 ? '' : pair.slice(equals + 1));
    if (name === '__proto__') continue;
    const previous = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (previous === undefined) fields[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else fields[name] = [previous, value];
  }
  return fields;
}

/** Compiles a body reader once; calling it parses the request body or throws an `ApiError`. */
export function bodyReader(options: BodyReaderOptions): (ctx: AppContext) => Promise<unknown> {
  const accepted =
    options.form === true ? ['application/json', 'application/x-www-form-urlencoded'] : ['application/json'];
  // Bodies are read as text in latin1, byte for byte, and decoded here: the parser's own UTF-8
  // decoding replaces invalid bytes with U+FFFD, which would be stored as if sent.
  const readText = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: accepted },
    encoding: 'latin1',
    textLimit: options.limit,
    onError(error: Error) {
      throw toApiError(error as ParserError, options.limit);
    },
  });
  return async (ctx: AppContext): Promise<unknown> => {
    const declared = Number(ctx.get('content-length') || '0');
    if (declared > options.limit) throw ApiError.payloadTooLarge(options.limit);
    if (!ctx.request.is(...accepted)) {
      // No body at all (`is()` answers null for any type then): a missing body, not a wrong type.
      const type = ctx.request.type.toLowerCase();
      if ((!type || accepted.includes(type)) && declared === 0 && ctx.get('transfer-encoding') === '') {
        throw ApiError.validation([{ path: '', message: 'a JSON object body is required' }]);
      }
      throw ApiError.unsupportedMediaType(accepted);
    }
    // JSON is UTF-8 (RFC 8259); a body declared in another charset would be misread.
    const charset = ctx.request.charset;
    if (charset !== '' && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
      throw new ApiError('unsupported_media_type', 'The request body must be encoded in UTF-8.');
    }
    // An app's own body parser read this body first: its result stands. One that skipped it (a
    // type it does not parse) leaves `{}` and no raw body, and the stream unread.
    const request = ctx.request as typeof ctx.request & { rawBody?: unknown };
    if (ctx.request.body !== undefined && (request.rawBody !== undefined || ctx.req.readableEnded)) {
      checkNesting(ctx.request.body);
      return ctx.request.body;
    }
    ctx.request.body = undefined;
    // The framework's routes always read their body, whatever an app's parser was told to skip.
    const skipping = (ctx as { disableBodyParser?: boolean }).disableBodyParser;
    (ctx as { disableBodyParser?: boolean }).disableBodyParser = false;
    try {
      await readText(ctx as unknown as Context, async () => {});
    } finally {
      (ctx as { disableBodyParser?: boolean }).disableBodyParser = skipping;
    }
    const raw = ctx.request.body as unknown;
    // Not read at all (the client closed the request): no body, never an empty one to store.
    if (typeof raw !== 'string') throw ApiError.badRequest('The request body was not received in full.');
    // An empty body (`Content-Length: 0`) reads as an empty object, as it always has.
    const text = raw === '' ? '' : utf8Text(raw);
    // What the client sent, for a hook or a log that reads it (the parser kept the latin1 reading).
    request.rawBody = text;
    const parsed =
      text === ''
        ? {}
        : ctx.request.is('application/x-www-form-urlencoded')
          ? parseFormText(text)
          : parseJsonText(text);
    // Nesting deeper than the limit takes two brackets a level: a shorter text cannot hold it.
    if (text.length > 2 * MAX_BODY_DEPTH) checkNesting(parsed);
    ctx.request.body = parsed;
    return parsed;
  };
}

/** The deepest nesting of arrays and objects a JSON body may have, the body itself counted. */
export const MAX_BODY_DEPTH = 128;

/**
 * Refuses a body nested deeper than `MAX_BODY_DEPTH` (422 naming the top-level field it is under):
 * what stores and answers a value (MikroORM's JSON.stringify, a serializer) recurses, and a few
 * kilobytes of brackets would exhaust the stack there, a 500. Walked without recursion.
 */
function checkNesting(body: unknown): void {
  if (typeof body !== 'object' || body === null) return;
  const pending: { value: object; depth: number; field: string }[] = [{ value: body, depth: 1, field: '' }];
  // An app parser's result may share an object between places, or hold itself: an object is walked
  // again only where it sits deeper than before (at most MAX_BODY_DEPTH times), so a loop reaches
  // the limit and the work stays bounded.
  const deepest = new Map<object, number>();
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if ((deepest.get(next.value) ?? 0) >= next.depth) continue;
    deepest.set(next.value, next.depth);
    if (next.depth > MAX_BODY_DEPTH)
      throw ApiError.validation([
        { path: next.field, message: `must not be nested deeper than ${MAX_BODY_DEPTH} levels` },
      ]);
    for (const [key, child] of Object.entries(next.value)) {
      if (typeof child === 'object' && child !== null)
        pending.push({ value: child, depth: next.depth + 1, field: next.depth === 1 ? key : next.field });
    }
  }
}
