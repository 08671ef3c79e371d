/** Measuring one load against one contender: warm-up, measured run, and the contender's own figures. */
import { type LoadResult, type RequestShape, runLoad } from './load.js';
import type { ContenderProcess } from './process.js';
import type { Metrics, Timing } from './scenario-types.js';
import { statementsPerRequest } from './statement-probe.js';

/** A random integer in 1..max. */
export const randomInt = (max: number): number => 1 + Math.floor(Math.random() * max);
/** A random item of a list. */
export const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
/** The Authorization header of a token. */
export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** The flat figures of one load, each key prefixed. */
export function loadMetrics(result: LoadResult, prefix = ''): Metrics {
  return {
    [`${prefix}rps`]: result.rps,
    [`${prefix}p50`]: result.latency.p50,
    [`${prefix}p90`]: result.latency.p90,
    [`${prefix}p99`]: result.latency.p99,
    [`${prefix}mean`]: result.latency.mean,
    [`${prefix}max`]: result.latency.max,
    [`${prefix}non2xx`]: result.non2xx,
    [`${prefix}errors`]: result.errors + result.timeouts,
  };
}

/**
 * Warm-up, then a measured run with the contender's event-loop delay recorded over exactly that run,
 * then the SQL statements per request of the same shape (`statements`, statement-probe.ts).
 */
export async function measure(
  proc: ContenderProcess,
  timing: Timing,
  shape: RequestShape | readonly RequestShape[],
  connections = timing.connections,
): Promise<Metrics> {
  if (timing.warmupSeconds > 0) {
    await runLoad(proc.baseUrl, shape, { connections, durationSeconds: timing.warmupSeconds });
  }
  await proc.resetStats();
  const result = await runLoad(proc.baseUrl, shape, { connections, durationSeconds: timing.durationSeconds });
  const stats = await proc.stats();
  return {
    ...loadMetrics(result),
    eld_p50: stats.eld.p50,
    eld_p99: stats.eld.p99,
    eld_max: stats.eld.max,
    rss: stats.rss,
    statements: await statementsPerRequest(proc, shape),
  };
}

/** The same figures with every key prefixed (several measurements in one record). */
export function prefixed(prefix: string, metrics: Metrics): Metrics {
  return Object.fromEntries(Object.entries(metrics).map(([key, value]) => [`${prefix}${key}`, value]));
}
