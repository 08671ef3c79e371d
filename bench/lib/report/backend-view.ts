/** The figures of one backend in a results file, as every table of the report reads them. */
import type { ContenderName } from '../contenders.js';
import type { Backend } from '../database.js';
import { medians, type ResultsFile } from '../results.js';
import type { Metrics, ScenarioName } from '../scenarios.js';

/** How the report titles a backend. */
export function backendTitle(backend: Backend): string {
  return backend === 'sqlite' ? 'SQLite' : 'PostgreSQL';
}

/** One backend's records: its contenders, their medians per scenario, and their labels. */
export class BackendView {
  constructor(
    readonly results: ResultsFile,
    readonly backend: Backend,
  ) {}

  /** The contenders measured on this backend, in the order the results file first names them. */
  get contenders(): ContenderName[] {
    return [
      ...new Set(this.results.records.filter((r) => r.backend === this.backend).map((r) => r.contender)),
    ];
  }

  /** The medians over the repeats of one scenario and contender, or undefined when it did not run. */
  medians(scenario: ScenarioName, contender: ContenderName): Metrics | undefined {
    return medians(this.results.records, this.backend, scenario, contender);
  }

  /** The contender's name in the report. */
  label(contender: ContenderName): string {
    return this.results.labels[this.backend]?.[contender] ?? contender;
  }
}
