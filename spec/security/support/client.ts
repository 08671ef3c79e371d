/**
 * A raw HTTP client for adversarial requests: any method, any header (case and repetition kept),
 * a body sent as given (bytes, chunked or with a lying Content-Length), and the time each
 * response took. `fetch` normalises too much of this away.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';

/** One request of a case. `path` includes the query string. */
export interface HttpRequest {
  readonly method: string;
  readonly path: string;
  /** Header pairs; a name given twice is sent twice. */
  readonly headers?: readonly (readonly [string, string])[] | Readonly<Record<string, string>>;
  /** A JSON value (sent with `content-type: application/json` unless a content type is given). */
  readonly json?: unknown;
  /** Raw bytes or text, sent as they are. */
  readonly body?: string | Uint8Array;
  /** Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`. */
  readonly chunked?: boolean;
}

/** A response with its body read. */
export interface HttpResponse {
  readonly request: HttpRequest;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  /** The parsed body when it is JSON, else `undefined`. */
  readonly json: unknown;
  /** Milliseconds from sending to the end of the body. */
  readonly ms: number;
}

function headerPairs(request: HttpRequest): [string, string][] {
  const given = request.headers ?? [];
  const pairs: [string, string][] = Array.isArray(given)
    ? given.map(([name, value]) => [name, value])
    : Object.entries(given as Record<string, string>);
  const has = (name: string): boolean => pairs.some(([key]) => key.toLowerCase() === name);
  if (request.json !== undefined && !has('content-type')) pairs.push(['content-type', 'application/json']);
  return pairs;
}

function bodyOf(request: HttpRequest): Buffer | undefined {
  if (request.json !== undefined) return Buffer.from(JSON.stringify(request.json), 'utf8');
  if (request.body === undefined) return undefined;
  return typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : Buffer.from(request.body);
}

/** Sends one request to `base` (`http://127.0.0.1:<port>`) and reads the whole response. */
export function send(base: string, request: HttpRequest, timeoutMs = 20_000): Promise<HttpResponse> {
  const url = new URL(base);
  const body = bodyOf(request);
  const pairs = headerPairs(request);
  // With headers as an array, Node adds no Host header itself.
  const flat: string[] = pairs.some(([name]) => name.toLowerCase() === 'host') ? [] : ['host', url.host];
  for (const [name, value] of pairs) flat.push(name, value);
  const hasLength = pairs.some(([name]) => name.toLowerCase() === 'content-length');
  if (body !== undefined && !request.chunked && !hasLength) flat.push('content-length', String(body.length));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({
      host: url.hostname,
      port: url.port,
      method: request.method,
      path: request.path,
      headers: flat,
      // A fresh connection per request: one case cannot poison the next through a shared socket.
      agent: false,
      timeout: timeoutMs,
    });
    outgoing.on('timeout', () =>
      outgoing.destroy(new Error(`${request.method} ${request.path}: no answer within ${timeoutMs} ms`)),
    );
    outgoing.on('error', reject);
    outgoing.on('response', (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({
          request,
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          text,
          json,
          ms: performance.now() - started,
        });
      });
    });
    if (body === undefined) {
      outgoing.end();
    } else if (request.chunked) {
      // Several chunks, so the server cannot know the size before reading.
      const size = 64 * 1024;
      for (let at = 0; at < body.length; at += size) outgoing.write(body.subarray(at, at + size));
      outgoing.end();
    } else {
      outgoing.end(body);
    }
  });
}

/** The JSON body as an object (for reading fields in expectations). */
export function objectOf(response: HttpResponse): Record<string, unknown> {
  const value = response.json;
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A one-line description of a response for assertion messages. */
export function describeResponse(response: HttpResponse): string {
  return `${response.request.method} ${response.request.path.slice(0, 120)} → ${response.status} ${response.text.slice(0, 300)}`;
}
