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

/**
 * Parses a JSON body read as bytes (latin1 maps each byte to one char): decoded as strict UTF-8,
 * then an object or array only (as `@koa/bodyparser`'s `jsonStrict`).
 */
function parseJsonBytes(latin1: string): unknown {
  let text: string;
  try {
    text = utf8.decode(Buffer.from(latin1, 'latin1'));
  } catch {
    throw ApiError.malformedJson('The request body is not valid UTF-8.');
  }
  if (!STRICT_JSON_START.test(text)) throw ApiError.malformedJson();
  try {
    // As the parser did before: a `__proto__` key is refused (bourne's `protoAction: 'error'`).
    return parseJson(text, { protoAction: 'error' });
  } catch {
    throw ApiError.malformedJson();
  }
}

/** Compiles a body reader once; calling it parses the request body or throws an `ApiError`. */
export function bodyReader(options: BodyReaderOptions): (ctx: AppContext) => Promise<unknown> {
  const accepted =
    options.form === true ? ['application/json', 'application/x-www-form-urlencoded'] : ['application/json'];
  const onError = (error: Error) => {
    throw toApiError(error as ParserError, options.limit);
  };
  // JSON is read as text in latin1, byte for byte, and decoded here: the parser's own UTF-8
  // decoding replaces invalid bytes with U+FFFD, which would be stored as if sent.
  const readJson = bodyParser({
    enableTypes: ['text'],
    extendTypes: { text: ['application/json'] },
    encoding: 'latin1',
    textLimit: options.limit,
    onError,
  });
  const readForm =
    options.form === true
      ? bodyParser({ enableTypes: ['form'], formLimit: options.limit, onError })
      : undefined;
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
    if (readForm !== undefined && ctx.request.is('application/x-www-form-urlencoded')) {
      await readForm(ctx as unknown as Context, async () => {});
      return ctx.request.body;
    }
    // An app's own body parser ran first: its result stands, as before.
    if (ctx.request.body !== undefined) return ctx.request.body;
    await readJson(ctx as unknown as Context, async () => {});
    const raw = ctx.request.body;
    // An empty body declared as JSON (`Content-Length: 0`) reads as an empty object, as it always has.
    const parsed = typeof raw !== 'string' || raw === '' ? {} : parseJsonBytes(raw);
    ctx.request.body = parsed;
    return parsed;
  };
}
