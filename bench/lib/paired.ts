/**
 * Paired rounds: the contenders of a scenario, already warm from their own runs, timed again in
 * short alternating slices. Measured one after another, two contenders are a minute or more apart,
 * and this machine's speed drifts by more than the gaps some goals decide on (the same contender
 * moved by a fifth between 5 s repeats, bench/NOTES.md); in rounds of slices, every contender sees
 * the same stretch of time. Each round starts with the next contender, so none is always first.
 * The auth-cost goal times its two kinds of GET on one process the same way, in a fixed order.
 */
import { type RequestShape, runLoad } from './load.js';
import type { ContenderProcess } from './process.js';

/** Rounds per measurement; each slice lasts the scenario's duration over this. */
export const PAIRED_ROUNDS = 4;

/** One side of the paired rounds: a process and the request it is timed with. */
export interface PairedSide {
  readonly name: string;
  readonly proc: ContenderProcess;
  readonly shape: RequestShape;
}

/** One side's slices added up. */
export interface PairedSums {
  /** The mean of the slices' throughputs. */
  rps: number;
  /** Completed requests, and the process's CPU time over the slices (every thread, user and system). */
  requests: number;
  cpuMicros: number;
  /** Answers other than 2xx, and connection errors and timeouts. */
  non2xx: number;
  errors: number;
}

/**
 * Runs `PAIRED_ROUNDS` rounds of one slice per side; the sums by side name. With `rotate`, each
 * round starts with the next side; without, every round keeps the given order.
 */
export async function pairedRounds(
  sides: readonly PairedSide[],
  durationSeconds: number,
  connections: number,
  rotate = true,
): Promise<Map<string, PairedSums>> {
  const sums = new Map<string, PairedSums>(
    sides.map((side) => [side.name, { rps: 0, requests: 0, cpuMicros: 0, non2xx: 0, errors: 0 }]),
  );
  const slice = { connections, durationSeconds: durationSeconds / PAIRED_ROUNDS };
  for (let round = 0; round < PAIRED_ROUNDS; round++) {
    for (let i = 0; i < sides.length; i++) {
      const side = sides[((rotate ? round : 0) + i) % sides.length] as PairedSide;
      const before = (await side.proc.stats()).cpuMicros;
      const result = await runLoad(side.proc.baseUrl, side.shape, slice);
      const sum = sums.get(side.name) as PairedSums;
      sum.cpuMicros += (await side.proc.stats()).cpuMicros - before;
      sum.rps += result.rps / PAIRED_ROUNDS;
      sum.requests += result.requests;
      sum.non2xx += result.non2xx;
      sum.errors += result.errors + result.timeouts;
    }
  }
  return sums;
}
