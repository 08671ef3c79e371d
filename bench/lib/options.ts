/** Command-line flags of the runner. */
import { parseArgs } from 'node:util';
import { CONTENDERS, type ContenderName } from './contenders.js';
import type { Backend } from './database.js';
import { SCENARIO_NAMES, type ScenarioName } from './scenarios.js';

/** Everything a run is configured with. */
export interface RunOptions {
  readonly smoke: boolean;
  readonly backends: readonly Backend[];
  readonly scenarios: readonly ScenarioName[];
  readonly contenders: readonly ContenderName[];
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  readonly repeats: number;
  readonly connections: number;
  readonly idleConnections: number;
  readonly users: number;
  readonly postsPerUser: number;
  readonly pgUrl: string;
  /** Rows of the big tables the `pages` scenario pages through. */
  readonly pageSizes: readonly number[];
  /** Model counts of the route sweep. */
  readonly sweepModels: readonly number[];
  /** Length of the soak, in seconds. */
  readonly soakSeconds: number;
  /** Write CPU profiles (`--cpu-prof`) of the framework's processes into this folder. */
  readonly profileDir: string | undefined;
  /** Write docs/benchmarks.md and the chart (off in smoke mode). */
  readonly docs: boolean;
  /** Only regenerate the docs from this results file. */
  readonly reportFrom: string | undefined;
}

/** The usage text. */
export const USAGE = `usage: node dist/bench/run.js [flags]
  --smoke                 tiny run: 0.5 s per scenario, no warm-up, 1 repeat, SQLite, no docs; fails unless all contenders run and agree
  --backend LIST          sqlite,postgres (default: both)
  --only LIST             scenarios: ${SCENARIO_NAMES.join(',')}
                          (default: all; soak only in a full run, i.e. without --smoke and --only, or with --soak)
  --soak                  add the soak to a run with --only or --smoke
  --soak-seconds S        length of the soak (default 300)
  --page-sizes LIST       rows of the big tables of the pages scenario (default 1000,100000,1000000; smoke 1000)
  --sweep-models LIST     model counts of the route sweep (default 1,50,200)
  --profile DIR           run every contender's process with --cpu-prof, profiles (named after the contender) written to DIR
  --contenders LIST       ${CONTENDERS.map((c) => c.name).join(',')} (default: all)
  --duration S            measured seconds per run (default 10)
  --warmup S              warm-up seconds per run (default 3)
  --repeats N             repeats, medians reported (default 3)
  --connections N         autocannon connections (default 50)
  --idle-connections N    connections of the memory scenario (default 1000; smoke 200)
  --users N / --posts-per-user N   seed size (default 1000 / 10)
  --pg-url URL            PostgreSQL admin URL (default $BENCH_PG_URL or postgres://postgres@127.0.0.1:5432/postgres)
  --no-docs               do not rewrite docs/benchmarks.md and docs/images/benchmarks.svg
  --report FILE           only regenerate the docs from a results file`;

function list<T extends string>(
  raw: string | undefined,
  allowed: readonly T[],
  fallback: readonly T[],
  flag: string,
): T[] {
  if (raw === undefined) return [...fallback];
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!allowed.includes(item as T))
      throw new Error(`${flag}: unknown value ${item} (allowed: ${allowed.join(', ')})`);
  }
  return items as T[];
}

function positive(raw: string | undefined, fallback: number, flag: string): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${flag} must be a positive number`);
  return value;
}

function counts(raw: string | undefined, fallback: readonly number[], flag: string): number[] {
  if (raw === undefined) return [...fallback];
  return raw.split(',').map((item) => {
    const value = Number(item.trim());
    if (!Number.isInteger(value) || value < 1) throw new Error(`${flag}: ${item} is not a positive integer`);
    return value;
  });
}

/** Parses argv (without node and script). */
export function parseOptions(argv: readonly string[]): RunOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      smoke: { type: 'boolean', default: false },
      backend: { type: 'string' },
      only: { type: 'string' },
      contenders: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      repeats: { type: 'string' },
      connections: { type: 'string' },
      'idle-connections': { type: 'string' },
      users: { type: 'string' },
      'posts-per-user': { type: 'string' },
      'pg-url': { type: 'string' },
      soak: { type: 'boolean', default: false },
      'soak-seconds': { type: 'string' },
      'page-sizes': { type: 'string' },
      'sweep-models': { type: 'string' },
      profile: { type: 'string' },
      'no-docs': { type: 'boolean', default: false },
      report: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const smoke = values.smoke ?? false;
  const backends = list<Backend>(
    values.backend,
    ['sqlite', 'postgres'],
    smoke ? ['sqlite'] : ['sqlite', 'postgres'],
    '--backend',
  );
  const full = !smoke && values.only === undefined;
  const named = list(values.only, SCENARIO_NAMES, SCENARIO_NAMES, '--only');
  // The soak takes minutes: only a full run or an explicit flag includes it.
  const withSoak = full || values.soak === true || (values.only?.split(',').includes('soak') ?? false);
  const scenarios = named.filter((name) => name !== 'soak' || withSoak);
  if (withSoak && !scenarios.includes('soak')) scenarios.push('soak');
  return {
    smoke,
    backends,
    scenarios,
    contenders: list(
      values.contenders,
      CONTENDERS.map((c) => c.name),
      CONTENDERS.map((c) => c.name),
      '--contenders',
    ),
    durationSeconds: positive(values.duration, smoke ? 0.5 : 10, '--duration'),
    warmupSeconds:
      values.warmup === '0' || (smoke && values.warmup === undefined)
        ? 0
        : positive(values.warmup, 3, '--warmup'),
    repeats: Math.round(positive(values.repeats, smoke ? 1 : 3, '--repeats')),
    connections: Math.round(positive(values.connections, 50, '--connections')),
    idleConnections: Math.round(
      positive(values['idle-connections'], smoke ? 200 : 1000, '--idle-connections'),
    ),
    users: Math.round(positive(values.users, smoke ? 20 : 1000, '--users')),
    postsPerUser: Math.round(positive(values['posts-per-user'], smoke ? 5 : 10, '--posts-per-user')),
    pgUrl: values['pg-url'] ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    pageSizes: counts(values['page-sizes'], smoke ? [1000] : [1000, 100_000, 1_000_000], '--page-sizes'),
    sweepModels: counts(values['sweep-models'], [1, 50, 200], '--sweep-models'),
    soakSeconds: positive(values['soak-seconds'], 300, '--soak-seconds'),
    profileDir: values.profile,
    docs: !smoke && !(values['no-docs'] ?? false),
    reportFrom: values.report,
  };
}
