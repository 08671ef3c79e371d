/**
 * The goals of the bench, as data: what each one compares and its bound, written as the goal table
 * shows it (`≥ 1.5×`, `≤ 10 %`). The report evaluates them on the medians and on each repeat
 * (goal-table.ts); the tests read the same table.
 */
import type { ContenderName } from '../contenders.js';
import type { Backend } from '../database.js';
import { sizePrefix } from '../scenarios/pages.js';
import type { Metrics, ScenarioName } from '../scenarios.js';
import { formatNumber, ratioOf, rowsLabel } from './format.js';
import { pageSizes, sweepCounts } from './metric-keys.js';

/** The figures of a set of metrics: a contender's medians, or one repeat's records. */
export type MetricsOf = (scenario: ScenarioName, contender: ContenderName) => Metrics | undefined;

/** How a goal's figure is written: a ratio (`1.23×`) or a fraction (`12.3 %`). */
export type GoalUnit = '×' | '%';

/** One goal, or a figure shown for reference beside the goals. */
export interface Goal {
  /** A stable name (tests look goals up by it). */
  readonly id: string;
  /** The row's label; a function when it names a size of the run (models, rows, minutes). */
  readonly label: string | ((get: MetricsOf) => string);
  /** The bound as the table writes it, per backend where they differ; none for a figure shown for reference. */
  readonly bound?: string | Readonly<Record<Backend, string>>;
  readonly unit: GoalUnit;
  /** The framework's figure the bound applies to, or undefined when the run lacks it. */
  readonly figure: (get: MetricsOf) => number | undefined;
}

/** A parsed bound: the figure must be at least, or at most, `value` (a fraction for `%`). */
export interface Bound {
  readonly atLeast: boolean;
  readonly value: number;
  readonly unit: GoalUnit;
}

/** Reads a bound written as `≥ 1.5×` or `≤ 10 %`; throws on anything else. */
export function parseBound(text: string): Bound {
  const match = /^(≥|≤) (\d+(?:\.\d+)?) ?(×|%)$/.exec(text);
  if (match === null) throw new Error(`goal bound "${text}" is not written like "≥ 1.5×" or "≤ 10 %"`);
  const unit = match[3] as GoalUnit;
  return { atLeast: match[1] === '≥', value: Number(match[2]) / (unit === '%' ? 100 : 1), unit };
}

/** Whether a figure meets a bound. */
export function meets(bound: Bound, figure: number): boolean {
  return bound.atLeast ? figure >= bound.value : figure <= bound.value;
}

/** A goal's bound on a backend as the table writes it, or undefined for a reference figure. */
export function boundText(goal: Goal, backend: Backend): string | undefined {
  return typeof goal.bound === 'object' ? goal.bound[backend] : goal.bound;
}

/** The goal with this id; throws when there is none (a test or a caller named a goal that is gone). */
export function goalById(id: string): Goal {
  const goal = GOALS.find((g) => g.id === id);
  if (goal === undefined) throw new Error(`no goal "${id}"`);
  return goal;
}

/**
 * The framework's throughput on a scenario against another contender's: from the paired rounds
 * (bench/lib/paired.ts) where both have them, which time the two in the same stretch of minutes,
 * else from their own runs.
 */
const throughputVs =
  (scenario: ScenarioName, other: ContenderName, contender: ContenderName = 'framework') =>
  (get: MetricsOf): number | undefined => {
    const mine = get(scenario, contender);
    const theirs = get(scenario, other);
    if (mine?.paired_rps !== undefined && theirs?.paired_rps !== undefined)
      return ratioOf(mine.paired_rps, theirs.paired_rps);
    return ratioOf(mine?.rps, theirs?.rps);
  };

/** Throughput goals against the hand-written app (and, for writes, Feathers). */
const writeGoals = (['create', 'update', 'delete'] as const).flatMap((scenario): Goal[] => [
  {
    id: `${scenario}_vs_handwritten`,
    label: `${scenario} vs hand-written`,
    bound: '≥ 1.0×',
    unit: '×',
    figure: throughputVs(scenario, 'handwritten'),
  },
  {
    id: `${scenario}_vs_feathers`,
    label: `${scenario} vs Feathers`,
    bound: '≥ 1.1×',
    unit: '×',
    figure: throughputVs(scenario, 'feathers'),
  },
]);

/**
 * Issue 14's goal for the adapter's plain mode (MikroORM's public API only): at least the
 * hand-written app's throughput. Beside each, for reference, the two processes' CPU time per request
 * over the same paired slices (above 1× when the plain mode spends less), and the fast path against
 * the plain mode: what the adapter's own SQL path is worth, measured.
 */
const plainModeGoals = (
  [
    ['get_by_id', 'GET by id'],
    ['list_20', 'list 20'],
    ['create', 'create'],
    ['update', 'update'],
  ] as const
).flatMap(([scenario, title]): Goal[] => [
  {
    id: `plain_${scenario}_vs_handwritten`,
    label: `plain mode: ${title} vs hand-written`,
    bound: '≥ 1.0×',
    unit: '×',
    figure: throughputVs(scenario, 'handwritten', 'framework-plain'),
  },
  {
    id: `plain_${scenario}_cpu_vs_handwritten`,
    label: `… ${title}: CPU per request, hand-written ÷ plain mode`,
    unit: '×',
    figure: (get) =>
      ratioOf(get(scenario, 'handwritten')?.paired_cpu_us, get(scenario, 'framework-plain')?.paired_cpu_us),
  },
  {
    id: `fast_vs_plain_${scenario}`,
    label: `… ${title}: the fast path vs the plain mode`,
    unit: '×',
    figure: throughputVs(scenario, 'framework-plain'),
  },
]);

/** The auth cost paired in one process (alternating slices) where the run has it, else two scenarios' medians. */
function authCost(get: MetricsOf): number | undefined {
  const paired = get('auth_get', 'framework')?.paired_auth_cost;
  if (paired !== undefined) return paired;
  const separate = ratioOf(get('auth_get', 'framework')?.rps, get('get_by_id', 'framework')?.rps);
  return separate === undefined ? undefined : 1 - separate;
}

/** The most models of the run's route sweep. */
const mostModels = (get: MetricsOf): number | undefined =>
  sweepCounts(get('route_sweep', 'framework')).at(-1);

/** The biggest table of the run's pages scenario. */
const biggestTable = (get: MetricsOf): number | undefined => pageSizes(get('pages', 'framework')).at(-1);

/** Time per request is the inverse of throughput at saturation: `page` time over `base` time on the biggest table. */
function pageTime(get: MetricsOf, page: string, base: string): number | undefined {
  const pages = get('pages', 'framework');
  const biggest = biggestTable(get);
  const p = biggest === undefined ? '' : sizePrefix(biggest);
  return ratioOf(pages?.[`${p}${base}_rps`], pages?.[`${p}${page}_rps`]);
}

const biggestLabel = (get: MetricsOf): string => {
  const biggest = biggestTable(get);
  return biggest === undefined ? '1M' : rowsLabel(biggest);
};

/** Every goal, in the order of the goal table. */
export const GOALS: readonly Goal[] = [
  {
    id: 'get_by_id_vs_handwritten',
    label: 'GET by id vs hand-written',
    bound: '≥ 1.5×',
    unit: '×',
    figure: throughputVs('get_by_id', 'handwritten'),
  },
  {
    id: 'get_by_id_vs_ceiling',
    label: 'GET by id vs ceiling',
    bound: { sqlite: '≥ 0.30×', postgres: '≥ 0.50×' },
    unit: '×',
    figure: throughputVs('get_by_id', 'ceiling'),
  },
  {
    id: 'get_by_id_vs_feathers',
    label: 'GET by id vs Feathers',
    bound: '≥ 1.1×',
    unit: '×',
    figure: throughputVs('get_by_id', 'feathers'),
  },
  {
    id: 'list_20_vs_handwritten',
    label: 'list 20 vs hand-written (both count for X-Total-Count)',
    bound: '≥ 2×',
    unit: '×',
    figure: throughputVs('list_20', 'handwritten'),
  },
  {
    id: 'list_20_nocount_vs_handwritten',
    label: 'list 20 vs hand-written, `count=false` (neither counts)',
    bound: '≥ 2×',
    unit: '×',
    figure: throughputVs('list_20_nocount', 'handwritten'),
  },
  {
    // Issue 17: the framework's `include=` against MikroORM's `populate` in the hand-written app.
    id: 'list_20_include_vs_handwritten',
    label: 'list 20 with `include=owner,tags` vs hand-written (`populate`)',
    bound: '≥ 2×',
    unit: '×',
    figure: throughputVs('list_20_include', 'handwritten'),
  },
  ...writeGoals,
  ...plainModeGoals,
  {
    id: 'auth_get_vs_handwritten',
    label: 'authenticated GET vs hand-written',
    bound: '≥ 1.5×',
    unit: '×',
    figure: throughputVs('auth_get', 'handwritten'),
  },
  {
    id: 'auth_cost',
    label: (get) =>
      get('auth_get', 'framework')?.paired_auth_cost === undefined
        ? 'auth + policy cost vs GET without auth'
        : 'auth + policy cost vs the same GET without auth (paired)',
    bound: '≤ 10 %',
    unit: '%',
    figure: authCost,
  },
  {
    // In CPU time, which a load generator near its own limit cannot flatten.
    id: 'auth_cpu_cost',
    label: "… the authenticated GET's extra CPU time per request (the contender's process, paired)",
    unit: '%',
    figure: (get) => get('auth_get', 'framework')?.paired_auth_cpu_cost,
  },
  {
    id: 'login_vs_handwritten',
    label: 'login vs hand-written',
    bound: '≥ 0.95×',
    unit: '×',
    figure: throughputVs('login', 'handwritten'),
  },
  {
    id: 'storm_p99_vs_idle',
    label: 'GET p99 during login storm vs idle',
    bound: '≤ 2×',
    unit: '×',
    figure: (get) =>
      ratioOf(get('login_storm', 'framework')?.storm_p99, get('login_storm', 'framework')?.idle_p99),
  },
  {
    id: 'idle_rss_vs_handwritten',
    label: 'idle RSS vs hand-written',
    bound: '≤ 1.15×',
    unit: '×',
    figure: (get) => ratioOf(get('memory', 'framework')?.idle_rss, get('memory', 'handwritten')?.idle_rss),
  },
  {
    id: 'route_sweep',
    label: (get) => `GET with ${mostModels(get) ?? 200} models vs 1`,
    bound: '≥ 0.9×',
    unit: '×',
    figure: (get) => {
      const most = mostModels(get);
      const sweep = get('route_sweep', 'framework');
      return most === undefined || most === 1 ? undefined : ratioOf(sweep?.[`m${most}_rps`], sweep?.m1_rps);
    },
  },
  {
    id: 'keyset_vs_first_page',
    label: (get) => `keyset page at ${biggestLabel(get)} rows vs page 1 (time)`,
    bound: '≤ 1.2×',
    unit: '×',
    figure: (get) => pageTime(get, 'keyset', 'first'),
  },
  {
    id: 'keyset_vs_walk_start',
    label: (get) => `keyset page at ${biggestLabel(get)} rows vs the walk's first page (\`after=\`)`,
    bound: '≤ 1.2×',
    unit: '×',
    figure: (get) => pageTime(get, 'keyset', 'start'),
  },
  {
    id: 'soak_rss_growth',
    label: (get) => {
      const soak = get('soak', 'framework');
      const minutes = soak === undefined ? '5-minute' : `${formatNumber((soak.seconds ?? 0) / 60, 1)}-minute`;
      return `RSS growth over a ${minutes} soak, after ${formatNumber(soak?.settle_seconds ?? 60)} s`;
    },
    bound: '≤ 5 %',
    unit: '%',
    figure: (get) => get('soak', 'framework')?.growth,
  },
];
