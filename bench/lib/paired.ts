/**
 * Paired rounds: the contenders of a scenario, already warm from their own runs, timed again in
 * short alternating slices. Measured one after another, two contenders are a minute or more apart,
 * and this machine's speed drifts by more than the gaps some goals decide on (the same contender
 * moved by a fifth between 5 s repeats, bench/NOTES.md); in rounds of slices, every contender sees
 * the same stretch of time. Each round starts with the next contender, so none is always first.
 */
import { type RequestShape, runLoad } from './load.js';
import type { ContenderProcess } from './process.js';
import type { Metrics } from './scenario-types.js';

/** Rounds per scenario; each slice lasts the scenario's duration over this. */
export const PAIRED_ROUNDS = 4;

/** One contender of the paired rounds: its process and the request it is measured with. */
export interface PairedContender {
  readonly name: string;
  readonly proc: ContenderProcess;
  readonly shape: RequestShape;
}

/** The figures one contender's slices add to its record of the scenario. */
export interface PairedFigures extends Metrics {
  /** The mean of the slices' throughputs. */
  paired_rps: number;
  /** Answers other than 2xx, and connection errors and timeouts, over the slices. */
  paired_non2xx: number;
  paired_errors: number;
}

/** Runs `PAIRED_ROUNDS` rounds of one slice per contender; the figures by contender name. */
export async function pairedRounds(
  contenders: readonly PairedContender[],
  durationSeconds: number,
  connections: number,
): Promise<Map<string, PairedFigures>> {
  const figures = new Map<string, PairedFigures>(
    contenders.map((c) => [c.name, { paired_rps: 0, paired_non2xx: 0, paired_errors: 0 }]),
  );
  const slice = { connections, durationSeconds: durationSeconds / PAIRED_ROUNDS };
  for (let round = 0; round < PAIRED_ROUNDS; round++) {
    for (let i = 0; i < contenders.length; i++) {
      const contender = contenders[(round + i) % contenders.length] as PairedContender;
      const result = await runLoad(contender.proc.baseUrl, contender.shape, slice);
      const sum = figures.get(contender.name) as PairedFigures;
      sum.paired_rps += result.rps / PAIRED_ROUNDS;
      sum.paired_non2xx += result.non2xx;
      sum.paired_errors += result.errors + result.timeouts;
    }
  }
  return figures;
}
