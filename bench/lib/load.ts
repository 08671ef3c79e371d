/** A typed wrapper over autocannon's programmatic API: one load of one request shape against one server. */
import autocannon, { type RawRequest, type RequestSpec } from 'autocannon';

/** One request of the load; functions are evaluated per request (random ids, changing bodies). */
export interface RequestShape {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string | (() => string);
  readonly body?: string | (() => string);
  readonly headers?: Readonly<Record<string, string>>;
}

/** How hard and how long to push. */
export interface LoadOptions {
  readonly connections: number;
  readonly durationSeconds: number;
  /** Requests per second over all connections; unlimited when absent. */
  readonly overallRate?: number;
}

/** What one load measured. */
export interface LoadResult {
  /** Completed requests per second. */
  readonly rps: number;
  readonly requests: number;
  readonly latency: {
    readonly mean: number;
    readonly p50: number;
    readonly p90: number;
    readonly p99: number;
    readonly max: number;
  };
  readonly non2xx: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly statuses: Readonly<Record<string, number>>;
}

/** The autocannon request of one shape; dynamic parts are filled per request by `setupRequest`. */
function requestOf(shape: RequestShape): RequestSpec {
  const headers: Record<string, string> = { ...shape.headers };
  if (shape.body !== undefined) headers['content-type'] = 'application/json';
  const dynamic = typeof shape.path === 'function' || typeof shape.body === 'function';
  const { path, body } = shape;
  return {
    method: shape.method,
    path: typeof path === 'string' ? path : path(),
    headers,
    body: typeof body === 'string' ? body : body?.(),
    // autocannon calls setupRequest whenever the key exists, so leave it out for static requests.
    ...(dynamic
      ? {
          setupRequest: (request: RawRequest): RawRequest => ({
            ...request,
            path: typeof path === 'string' ? path : path(),
            body: typeof body === 'function' ? body() : request.body,
          }),
        }
      : {}),
  };
}

/** Runs autocannon against `baseUrl` and summarises the result; several shapes are sent in turn on each connection. */
export async function runLoad(
  baseUrl: string,
  shape: RequestShape | readonly RequestShape[],
  options: LoadOptions,
): Promise<LoadResult> {
  const shapes: readonly RequestShape[] = Array.isArray(shape) ? shape : [shape as RequestShape];
  const result = await autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.durationSeconds,
    overallRate: options.overallRate,
    timeout: 30,
    // autocannon stops on its sampling tick: sub-second runs need a finer tick.
    sampleInt: Math.min(1000, Math.max(100, options.durationSeconds * 1000)),
    requests: shapes.map(requestOf),
  });
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {}))
    statuses[code] = Number(count);
  const requests = Object.values(statuses).reduce((sum, n) => sum + n, 0);
  return {
    rps: result.duration > 0 ? requests / result.duration : 0,
    requests,
    latency: {
      mean: result.latency.mean,
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
  };
}
