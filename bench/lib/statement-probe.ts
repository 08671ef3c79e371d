/**
 * SQL statements per request: a few requests of a scenario's shape sent one at a time, with the
 * contender's own statement count (its driver, bench/contenders/shared/statement-counter.ts) read
 * before and after. Run after the measured load, once requests that load left in flight are done.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type RequestShape, sendOne } from './load.js';
import type { ContenderProcess } from './process.js';

/** Requests the count is averaged over. */
export const STATEMENT_PROBE_REQUESTS = 10;
// The count is read until it stops moving: a load stopped mid-request may still be running statements.
const QUIET_MS = 50;
const MOST_QUIET_READS = 40;

/** The contender's statement count once it has not moved for `QUIET_MS`. */
async function settledCount(proc: ContenderProcess): Promise<number> {
  let count = (await proc.stats()).statements;
  for (let i = 0; i < MOST_QUIET_READS; i++) {
    await sleep(QUIET_MS);
    const next = (await proc.stats()).statements;
    if (next === count) return count;
    count = next;
  }
  return count;
}

/** Mean statements per request of the shapes (taken in turn), or NaN when a request failed. */
export async function statementsPerRequest(
  proc: ContenderProcess,
  shape: RequestShape | readonly RequestShape[],
): Promise<number> {
  const shapes: readonly RequestShape[] = Array.isArray(shape) ? shape : [shape as RequestShape];
  await proc.countStatements(true);
  try {
    // Statements still running from the load are not counted: the count starts once it is quiet.
    const before = await settledCount(proc);
    for (let i = 0; i < STATEMENT_PROBE_REQUESTS; i++) {
      const status = await sendOne(proc.baseUrl, shapes[i % shapes.length] as RequestShape);
      // A failed request (an error page, a delete that ran out of rows) runs other statements.
      if (status < 200 || status >= 300) return Number.NaN;
    }
    return ((await settledCount(proc)) - before) / STATEMENT_PROBE_REQUESTS;
  } finally {
    await proc.countStatements(false);
  }
}
