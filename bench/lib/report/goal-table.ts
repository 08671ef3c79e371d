/** The goal table: each goal's figure on the medians decides its status; each repeat's figure is shown beside it. */
import type { Backend } from '../database.js';
import type { BackendView } from './backend-view.js';
import { formatPercent, formatRatio } from './format.js';
import { boundText, GOALS, type Goal, type GoalUnit, type MetricsOf, meets, parseBound } from './goals.js';

/** A goal evaluated on one set of figures. */
export interface GoalRow {
  readonly goal: Goal;
  readonly label: string;
  /** The bound as written, or undefined for a figure shown for reference. */
  readonly bound: string | undefined;
  readonly value: number | undefined;
}

/** Every goal evaluated on the figures `get` gives, in table order. */
export function evaluateGoals(get: MetricsOf, backend: Backend): GoalRow[] {
  return GOALS.map((goal) => ({
    goal,
    label: typeof goal.label === 'function' ? goal.label(get) : goal.label,
    bound: boundText(goal, backend),
    value: goal.figure(get),
  }));
}

/** A goal row's status column: met, missed, not measured, or empty for a reference figure. */
export function goalStatus(row: GoalRow): string {
  if (row.value === undefined || !Number.isFinite(row.value)) return 'not measured';
  if (row.bound === undefined) return '';
  return meets(parseBound(row.bound), row.value) ? 'met' : '**missed**';
}

/** A figure as its unit writes it; a figure a results file holds as null (NaN or Infinity when written) is missing. */
function shown(value: number | undefined, unit: GoalUnit): string {
  if (value === undefined || !Number.isFinite(value)) return '–';
  return unit === '×' ? formatRatio(value) : formatPercent(value);
}

/** The goal table of one backend: the figure of the medians, its status, and the same figure in each repeat. */
export function goalsTable(view: BackendView): string[] {
  const records = view.results.records.filter((r) => r.backend === view.backend);
  const repeats = [...new Set(records.map((r) => r.repeat))].sort((x, y) => x - y);
  const rows = evaluateGoals((s, c) => view.medians(s, c), view.backend);
  const perRepeat = repeats.map((repeat) =>
    evaluateGoals(
      (s, c) => records.find((r) => r.scenario === s && r.contender === c && r.repeat === repeat)?.metrics,
      view.backend,
    ),
  );
  const lines: string[] = [];
  rows.forEach((row, i) => {
    // A reference figure the run lacks is left out; a goal it lacks says "not measured".
    if (row.bound === undefined && !Number.isFinite(row.value)) return;
    const unit = row.goal.unit;
    const repeatFigures = perRepeat.map((rowsOf) => shown(rowsOf[i]?.value, unit)).join(', ');
    lines.push(
      `| ${row.label} | ${row.bound ?? 'for reference'} | ${shown(row.value, unit)} | ${goalStatus(row)} | ${repeatFigures} |`,
    );
  });
  return ['| scenario | goal | measured | status | per repeat |', '|---|---|---:|---|---|', ...lines];
}
