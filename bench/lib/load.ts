/** A typed wrapper over autocannon's programmatic API: one load of one request shape against one server (or one request of it). */
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

/** Sends one request of a shape outside any load and reads the whole answer; returns its status. */
export async function sendOne(baseUrl: string, shape: RequestShape): Promise<number> {
  const body = typeof shape.body === 'function' ? shape.body() : shape.body;
  const headers: Record<string, string> = { ...shape.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(baseUrl + (typeof shape.path === 'string' ? shape.path : shape.path()), {
    method: shape.method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  await response.arrayBuffer();
  return response.status;
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
  const times = new ResponseTimes();
  if (options.overallRate !== undefined) instance.on('response', (_c, _s, _b, ms) => times.add(ms));
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
        : pacedLatency(times),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
  };
}

/** Response times in milliseconds, kept in a growing Float64Array (a soak collects millions). */
export class ResponseTimes {
  #times = new Float64Array(1 << 14);
  #count = 0;

  /** Adds one response time. */
  add(ms: number): void {
    if (this.#count === this.#times.length) {
      const grown = new Float64Array(this.#times.length * 2);
      grown.set(this.#times);
      this.#times = grown;
    }
    this.#times[this.#count++] = ms;
  }

  /** The times so far, sorted ascending (a typed array sorts numerically, natively). */
  sorted(): Float64Array {
    return this.#times.slice(0, this.#count).sort();
  }
}

/**
 * Latency of a paced load from the response times themselves, to the microsecond, each time from
 * the request's write to its response. autocannon 9 rounds each time to a whole millisecond and
 * "corrects" a paced load for coordinated omission with an expected interval of `ceil(1 / rate)`:
 * 1 ms whatever the rate, so every response slower than 1 ms adds one made-up sample per
 * millisecond (a 20 ms stall counts 20 times), and one stall decides the p99 of a 1,000-request
 * phase. No correction is made here: autocannon paces a connection by sending its share of a
 * second's requests back to back and then waiting for the next second, so there is no evenly
 * spaced schedule to measure lateness against. A stall's cost to the requests queued behind it in
 * that burst is therefore not counted, in idle and storm phases alike.
 */
export function pacedLatency(times: ResponseTimes | readonly number[]): LoadResult['latency'] {
  const sorted = times instanceof ResponseTimes ? times.sorted() : Float64Array.from(times).sort();
  const count = sorted.length;
  if (count === 0) return { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  // Nearest rank: the smallest time at or above the fraction of all times (the epsilon keeps
  // 0.9 × 70 = 63.000…01 at rank 63).
  const rank = (fraction: number): number =>
    round3(sorted[Math.min(count - 1, Math.max(0, Math.ceil(fraction * count - 1e-9) - 1))] ?? 0);
  let sum = 0;
  for (const time of sorted) sum += time;
  return {
    mean: round3(sum / count),
    p50: rank(0.5),
    p90: rank(0.9),
    p99: rank(0.99),
    max: round3(sorted[count - 1] ?? 0),
  };
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000;
