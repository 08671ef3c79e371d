/** A small `fetch` client bound to one server of the suite, returning bodies already read. */

/** A JSON object as a response body. */
export type JsonObject = Record<string, unknown>;

/** A response with its body read: `json` is set when the body parses as JSON. */
export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: unknown;
  /** `METHOD path`, for assertion messages. */
  readonly request: string;
}

/** How to send a body: a JSON value, or raw text with its own content type. */
export type RequestBody =
  | { readonly json: unknown }
  | { readonly raw: string | Uint8Array; readonly contentType?: string };

/** Builds a query string from pairs; values are URL-encoded (so `%` in a `$like` pattern is safe). */
export function query(params: Readonly<Record<string, string | number | boolean>>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) search.append(key, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** Sends requests to one base URL (`http://127.0.0.1:<port>`). */
export class HttpClient {
  constructor(readonly baseUrl: string) {}

  /** Resolves a path or a (possibly relative) URL from a header against the server. */
  url(pathOrUrl: string): string {
    return new URL(pathOrUrl, this.baseUrl).toString();
  }

  async send(
    method: string,
    path: string,
    body?: RequestBody,
    headers: Record<string, string> = {},
  ): Promise<HttpResult> {
    const init: RequestInit = { method, headers: { accept: 'application/json', ...headers } };
    if (body !== undefined && 'json' in body) {
      init.body = JSON.stringify(body.json);
      init.headers = { ...init.headers, 'content-type': 'application/json' };
    } else if (body !== undefined) {
      init.body = body.raw;
      if (body.contentType !== undefined)
        init.headers = { ...init.headers, 'content-type': body.contentType };
    }
    const response = await fetch(this.url(path), init);
    const text = await response.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json, request: `${method} ${path}` };
  }

  get(path: string): Promise<HttpResult> {
    return this.send('GET', path);
  }

  post(path: string, json: unknown): Promise<HttpResult> {
    return this.send('POST', path, { json });
  }

  put(path: string, json: unknown): Promise<HttpResult> {
    return this.send('PUT', path, { json });
  }

  patch(path: string, json: unknown): Promise<HttpResult> {
    return this.send('PATCH', path, { json });
  }

  delete(path: string): Promise<HttpResult> {
    return this.send('DELETE', path);
  }
}
