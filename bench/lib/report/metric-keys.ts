/**
 * The measurements inside one record of the scenarios that take several (`m<models>_rps` of the
 * route sweep, `n<rows>_first_rps` of the pages): which sizes a record holds.
 */
import type { Metrics } from '../scenarios.js';

/** The numbers a record's keys carry in the first group of `pattern`, ascending. */
function sizesIn(m: Metrics | undefined, pattern: RegExp): number[] {
  return Object.keys(m ?? {})
    .map((key) => pattern.exec(key)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The model counts a route sweep record holds (`m<count>_rps`), ascending. */
export function sweepCounts(m: Metrics | undefined): number[] {
  return sizesIn(m, /^m(\d+)_rps$/);
}

/** The table sizes a pages record holds (`n<rows>_first_rps`), ascending. */
export function pageSizes(m: Metrics | undefined): number[] {
  return sizesIn(m, /^n(\d+)_first_rps$/);
}
