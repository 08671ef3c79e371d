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
  const instance = autocannon({
    url: baseUrl,
    connections: options.connections,
    duration: options.durationSeconds,
    overallRate: options.overallRate,
    timeout: 30,
    // autocannon stops on its sampling tick: sub-second runs need a finer tick.
    sampleInt: Math.min(1000, Math.max(100, options.durationSeconds * 1000)),
    requests: shapes.map(requestOf),
  });
  // A paced load keeps every response time: see pacedLatency for why autocannon's figures don't do.
  const times: number[] = [];
  if (options.overallRate !== undefined) instance.on('response', (_c, _s, _b, ms) => times.push(ms));
  const result = await instance;
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats ?? {}))
    statuses[code] = Number(count);
  const requests = Object.values(statuses).reduce((sum, n) => sum + n, 0);
  return {
    rps: result.duration > 0 ? requests / result.duration : 0,
    requests,
    latency:
      options.overallRate === undefined
        ? {
            mean: result.latency.mean,
            p50: result.latency.p50,
            p90: result.latency.p90,
            p99: result.latency.p99,
            max: result.latency.max,
          }
        : pacedLatency(times, pacedInterval(options.connections, options.overallRate)),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
  };
}

/**
 * Milliseconds between two requests of one connection of a paced load. autocannon gives each
 * connection an equal share of the rate, and never more connections than requests per second.
 */
export function pacedInterval(connections: number, overallRate: number): number {
  return 1000 / (overallRate / Math.min(connections, overallRate));
}

/**
 * Latency of a paced load from the response times themselves, to the microsecond. autocannon 9
 * rounds each time to a whole millisecond and corrects for coordinated omission with an expected
 * interval of `ceil(1 / rate)`, 1 ms whatever the rate, where the interval of a connection sending
 * 25 requests a second is 40 ms: every response slower than 1 ms then adds one made-up sample per
 * millisecond (a 20 ms stall counts 20 times), and one stall decides the p99 of a 1,000-request
 * phase. The same correction is made here with the real interval: a response slower than it
 * delayed the requests behind it, which are added as `time - interval`, `time - 2 × interval`, ….
 */
export function pacedLatency(times: readonly number[], intervalMs: number): LoadResult['latency'] {
  const samples: number[] = [];
  for (const time of times) {
    samples.push(time);
    for (let missed = time - intervalMs; missed > 0 && intervalMs > 0; missed -= intervalMs)
      samples.push(missed);
  }
  if (samples.length === 0) return { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  samples.sort((a, b) => a - b);
  // Nearest rank: the smallest sample at or above the fraction of all samples.
  const rank = (fraction: number): number =>
    round3(samples[Math.min(samples.length - 1, Math.ceil(fraction * samples.length) - 1)] ?? 0);
  const sum = samples.reduce((total, sample) => total + sample, 0);
  return {
    mean: round3(sum / samples.length),
    p50: rank(0.5),
    p90: rank(0.9),
    p99: rank(0.99),
    max: round3(samples[samples.length - 1] ?? 0),
  };
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;
