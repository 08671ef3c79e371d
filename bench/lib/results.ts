/** The results file: every run's figures plus where and how they were measured, and the medians derived from it. */
import type { ContenderName } from './contenders.js';
import type { Backend } from './database.js';
import type { MachineInfo } from './machine.js';
import type { RunOptions } from './options.js';
import type { Metrics, ScenarioName } from './scenarios.js';

/** The figures of one scenario for one contender in one repeat. */
export interface RunRecord {
  readonly backend: Backend;
  readonly scenario: ScenarioName;
  readonly contender: ContenderName;
  readonly repeat: number;
  readonly metrics: Metrics;
}

/** The content of `bench/results/<timestamp>.json`. */
export interface ResultsFile {
  readonly format: 1;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly options: Omit<RunOptions, 'pgUrl' | 'reportFrom'>;
  readonly machine: MachineInfo;
  readonly pinning: string;
  readonly seed: { readonly users: number; readonly posts: number };
  readonly labels: Readonly<Record<Backend, Readonly<Partial<Record<ContenderName, string>>>>>;
  readonly records: readonly RunRecord[];
}

/** The median of a list of numbers (NaN for none). */
export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Per-metric medians over the repeats of one backend/scenario/contender, or undefined when it did not run. */
export function medians(
  records: readonly RunRecord[],
  backend: Backend,
  scenario: ScenarioName,
  contender: ContenderName,
): Metrics | undefined {
  const runs = records.filter(
    (r) => r.backend === backend && r.scenario === scenario && r.contender === contender,
  );
  if (runs.length === 0) return undefined;
  const keys = new Set(runs.flatMap((r) => Object.keys(r.metrics)));
  const out: Metrics = {};
  for (const key of keys) out[key] = median(runs.map((r) => r.metrics[key] ?? Number.NaN));
  return out;
}
