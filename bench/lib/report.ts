/** Writes docs/benchmarks.md (tables, ratios, goals, machine) and docs/images/benchmarks.svg from a results file. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHARTED, renderChart } from './chart.js';
import type { ContenderName } from './contenders.js';
import type { Backend } from './database.js';
import { medians, type ResultsFile } from './results.js';
import { sizePrefix } from './scenarios/pages.js';
import type { Metrics, ScenarioName } from './scenarios.js';

const MiB = 2 ** 20;
const num = (n: number | undefined, digits = 0): string =>
  n === undefined || !Number.isFinite(n)
    ? '–'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ratio = (a: number | undefined, b: number | undefined): number | undefined =>
  a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0
    ? undefined
    : a / b;
const times = (r: number | undefined): string => (r === undefined ? '–' : `${r.toFixed(2)}×`);

class View {
  constructor(
    readonly results: ResultsFile,
    readonly backend: Backend,
  ) {}

  get contenders(): ContenderName[] {
    return [
      ...new Set(this.results.records.filter((r) => r.backend === this.backend).map((r) => r.contender)),
    ];
  }

  m(scenario: ScenarioName, contender: ContenderName): Metrics | undefined {
    return medians(this.results.records, this.backend, scenario, contender);
  }

  label(contender: ContenderName): string {
    return this.results.labels[this.backend]?.[contender] ?? contender;
  }
}

function throughputTable(v: View): string[] {
  const lines = [
    '| scenario | contender | req/s | p50 ms | p99 ms | × hand-written | × ceiling | × Feathers |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of CHARTED) {
    const hw = v.m(scenario.name, 'handwritten')?.rps;
    const ceiling = v.m(scenario.name, 'ceiling')?.rps;
    const feathers = v.m(scenario.name, 'feathers')?.rps;
    for (const c of v.contenders) {
      const m = v.m(scenario.name, c);
      if (!m) continue;
      const flag = (m.non2xx ?? 0) + (m.errors ?? 0) > 0 ? ' ⚠' : '';
      lines.push(
        `| ${scenario.title} | ${v.label(c)} | ${num(m.rps)}${flag} | ${num(m.p50)} | ${num(m.p99)} | ${times(ratio(m.rps, hw))} | ${times(ratio(m.rps, ceiling))} | ${times(ratio(m.rps, feathers))} |`,
      );
    }
  }
  return lines;
}

function stormTable(v: View): string[] {
  const lines = [
    '| contender | GET p99 idle ms | GET p99 during storm ms | storm / idle | logins/s during storm | event-loop delay p99 ms |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const c of v.contenders) {
    const m = v.m('login_storm', c);
    if (m) {
      lines.push(
        `| ${v.label(c)} | ${num(m.idle_p99)} | ${num(m.storm_p99)} | ${times(ratio(m.storm_p99, m.idle_p99))} | ${num(m.login_rps, 1)} | ${num(m.eld_p99, 1)} |`,
      );
    }
  }
  return lines.length > 2 ? lines : [];
}

function loopDelayTable(v: View): string[] {
  const scenarios: ScenarioName[] = [
    'get_by_id',
    'list_20',
    'list_20_nocount',
    'auth_get',
    'create',
    'update',
    'delete',
    'login',
  ];
  const lines = [
    `| contender | ${scenarios.join(' | ')} |`,
    `|---|${scenarios.map(() => '---:').join('|')}|`,
  ];
  for (const c of v.contenders) {
    lines.push(`| ${v.label(c)} | ${scenarios.map((s) => num(v.m(s, c)?.eld_p99, 1)).join(' | ')} |`);
  }
  return lines;
}

function memoryTable(v: View): string[] {
  const hw = v.m('memory', 'handwritten');
  const lines = [
    '| contender | idle RSS MiB | RSS with idle connections MiB | connections | idle × hand-written |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const c of v.contenders) {
    const m = v.m('memory', c);
    if (m) {
      lines.push(
        `| ${v.label(c)} | ${num((m.idle_rss ?? Number.NaN) / MiB, 1)} | ${num((m.connected_rss ?? Number.NaN) / MiB, 1)} | ${num(m.connections)} | ${times(ratio(m.idle_rss, hw?.idle_rss))} |`,
      );
    }
  }
  return lines.length > 2 ? lines : [];
}

/** One goal row: its label, the goal, the figure and whether it meets the goal. */
interface GoalRow {
  readonly what: string;
  readonly goal: string;
  readonly value: number | undefined;
  /** Whether the figure meets the goal; absent for a figure shown for reference, beside a goal. */
  readonly ok?: (x: number) => boolean;
  readonly unit: '×' | '%';
}

/**
 * Issue 14's goal for the adapter's plain mode (MikroORM's public API only): on each of these scenarios,
 * at least `atLeast` × the hand-written app's throughput. Beside each, for reference, the fast path
 * against the plain mode: what the adapter's own SQL path is worth, measured.
 */
const PLAIN_MODE_GOALS: readonly { scenario: ScenarioName; title: string; atLeast: number }[] = [
  { scenario: 'get_by_id', title: 'GET by id', atLeast: 1.0 },
  { scenario: 'list_20', title: 'list 20', atLeast: 1.0 },
  { scenario: 'create', title: 'create', atLeast: 1.0 },
  { scenario: 'update', title: 'update', atLeast: 1.0 },
];

/** The figures of a set of metrics: a contender's medians, or one repeat's records. */
type MetricsOf = (scenario: ScenarioName, contender: ContenderName) => Metrics | undefined;

/** The goals of issue 5, evaluated on the framework's figures as `get` gives them. */
function goalRows(get: MetricsOf, backend: Backend): GoalRow[] {
  const f = (s: ScenarioName) => get(s, 'framework');
  const o = (s: ScenarioName, c: ContenderName) => get(s, c);
  const row = (
    what: string,
    goal: string,
    value: number | undefined,
    ok: ((x: number) => boolean) | undefined,
    unit: '×' | '%' = '×',
  ): GoalRow => ({ what, goal, value, unit, ...(ok === undefined ? {} : { ok }) });
  const ceilingGoal = backend === 'sqlite' ? 0.3 : 0.5;
  const lines: GoalRow[] = [];
  lines.push(
    row(
      'GET by id vs hand-written',
      '≥ 1.5×',
      ratio(f('get_by_id')?.rps, o('get_by_id', 'handwritten')?.rps),
      (x) => x >= 1.5,
    ),
  );
  lines.push(
    row(
      'GET by id vs ceiling',
      `≥ ${ceilingGoal.toFixed(2)}×`,
      ratio(f('get_by_id')?.rps, o('get_by_id', 'ceiling')?.rps),
      (x) => x >= ceilingGoal,
    ),
  );
  lines.push(
    row(
      'GET by id vs Feathers',
      '≥ 1.1×',
      ratio(f('get_by_id')?.rps, o('get_by_id', 'feathers')?.rps),
      (x) => x >= 1.1,
    ),
  );
  lines.push(
    row(
      'list 20 vs hand-written (both count for X-Total-Count)',
      '≥ 2×',
      ratio(f('list_20')?.rps, o('list_20', 'handwritten')?.rps),
      (x) => x >= 2,
    ),
  );
  lines.push(
    row(
      'list 20 vs hand-written, `count=false` (neither counts)',
      '≥ 2×',
      ratio(f('list_20_nocount')?.rps, o('list_20_nocount', 'handwritten')?.rps),
      (x) => x >= 2,
    ),
  );
  for (const s of ['create', 'update', 'delete'] as const) {
    lines.push(
      row(`${s} vs hand-written`, '≥ 1.0×', ratio(f(s)?.rps, o(s, 'handwritten')?.rps), (x) => x >= 1),
    );
    lines.push(row(`${s} vs Feathers`, '≥ 1.1×', ratio(f(s)?.rps, o(s, 'feathers')?.rps), (x) => x >= 1.1));
  }
  for (const goal of PLAIN_MODE_GOALS) {
    const plain = o(goal.scenario, 'framework-plain')?.rps;
    lines.push(
      row(
        `plain mode: ${goal.title} vs hand-written`,
        `≥ ${goal.atLeast.toFixed(1)}×`,
        ratio(plain, o(goal.scenario, 'handwritten')?.rps),
        (x) => x >= goal.atLeast,
      ),
    );
    lines.push(
      row(
        `… ${goal.title}: the fast path vs the plain mode`,
        'for reference',
        ratio(f(goal.scenario)?.rps, plain),
        undefined,
      ),
    );
  }
  lines.push(
    row(
      'authenticated GET vs hand-written',
      '≥ 1.5×',
      ratio(f('auth_get')?.rps, o('auth_get', 'handwritten')?.rps),
      (x) => x >= 1.5,
    ),
  );
  // Paired (one process, alternating slices) where the results file has it; else two scenarios' medians.
  const paired = f('auth_get')?.paired_auth_cost;
  const separate = ratio(f('auth_get')?.rps, f('get_by_id')?.rps);
  const authCost = paired ?? (separate === undefined ? undefined : 1 - separate);
  lines.push(
    row(
      paired === undefined
        ? 'auth + policy cost vs GET without auth'
        : 'auth + policy cost vs the same GET without auth (paired)',
      '≤ 10 %',
      authCost,
      (x) => x <= 0.1,
      '%',
    ),
  );
  // For reference (no status): the same pair in the contender's CPU time per request. Always a row, so
  // that the rows of every repeat line up with the medians'; the table leaves it out when unmeasured.
  lines.push(
    row(
      "… the authenticated GET's extra CPU time per request (the contender's process, paired)",
      'for reference',
      f('auth_get')?.paired_auth_cpu_cost,
      undefined,
      '%',
    ),
  );
  lines.push(
    row(
      'login vs hand-written',
      '≥ 0.95×',
      ratio(f('login')?.rps, o('login', 'handwritten')?.rps),
      (x) => x >= 0.95,
    ),
  );
  lines.push(
    row(
      'GET p99 during login storm vs idle',
      '≤ 2×',
      ratio(f('login_storm')?.storm_p99, f('login_storm')?.idle_p99),
      (x) => x <= 2,
    ),
  );
  lines.push(
    row(
      'idle RSS vs hand-written',
      '≤ 1.15×',
      ratio(f('memory')?.idle_rss, o('memory', 'handwritten')?.idle_rss),
      (x) => x <= 1.15,
    ),
  );
  const sweep = f('route_sweep');
  const most = sweepCounts(sweep).at(-1);
  lines.push(
    row(
      `GET with ${most ?? 200} models vs 1`,
      '≥ 0.9×',
      most === undefined || most === 1 ? undefined : ratio(sweep?.[`m${most}_rps`], sweep?.m1_rps),
      (x) => x >= 0.9,
    ),
  );
  const pages = f('pages');
  const biggest = pageSizes(pages).at(-1);
  const p = biggest === undefined ? '' : sizePrefix(biggest);
  // Time per request is the inverse of throughput at saturation: keyset time / first-page time.
  lines.push(
    row(
      `keyset page at ${biggest === undefined ? '1M' : rowsLabel(biggest)} rows vs page 1 (time)`,
      '≤ 1.2×',
      ratio(pages?.[`${p}first_rps`], pages?.[`${p}keyset_rps`]),
      (x) => x <= 1.2,
    ),
  );
  lines.push(
    row(
      `keyset page at ${biggest === undefined ? '1M' : rowsLabel(biggest)} rows vs the walk's first page (\`after=\`)`,
      '≤ 1.2×',
      ratio(pages?.[`${p}start_rps`], pages?.[`${p}keyset_rps`]),
      (x) => x <= 1.2,
    ),
  );
  const soak = f('soak');
  lines.push(
    row(
      `RSS growth over a ${soak === undefined ? '5-minute' : `${num((soak.seconds ?? 0) / 60, 1)}-minute`} soak, after ${num(soak?.settle_seconds ?? 60)} s`,
      '≤ 5 %',
      soak?.growth,
      (x) => x <= 0.05,
      '%',
    ),
  );
  return lines;
}

/** The goal table: the figure of the medians, its status, and the same figure in each repeat. */
function goalsTable(v: View): string[] {
  const records = v.results.records.filter((r) => r.backend === v.backend);
  const repeats = [...new Set(records.map((r) => r.repeat))].sort((x, y) => x - y);
  const rows = goalRows((s, c) => v.m(s, c), v.backend);
  const perRepeat = repeats.map((repeat) =>
    goalRows(
      (s, c) => records.find((r) => r.scenario === s && r.contender === c && r.repeat === repeat)?.metrics,
      v.backend,
    ),
  );
  // A figure a results file holds as null (NaN or Infinity when it was written) is shown as missing.
  const shown = (value: number | undefined, unit: '×' | '%'): string =>
    !Number.isFinite(value)
      ? '–'
      : unit === '×'
        ? times(value as number)
        : `${((value as number) * 100).toFixed(1)} %`;
  const lines: string[] = [];
  rows.forEach((row, i) => {
    if (row.ok === undefined && !Number.isFinite(row.value)) return;
    lines.push(
      `| ${row.what} | ${row.goal} | ${shown(row.value, row.unit)} | ${status(row)} | ${perRepeat.map((rowsOf) => shown(rowsOf[i]?.value, row.unit)).join(', ')} |`,
    );
  });
  return ['| scenario | goal | measured | status | per repeat |', '|---|---|---:|---|---|', ...lines];
}

/** A goal row's status column. */
function status(row: GoalRow): string {
  if (row.value === undefined || !Number.isFinite(row.value)) return 'not measured';
  if (row.ok === undefined) return '';
  return row.ok(row.value) ? 'met' : '**missed**';
}

/** The model counts a route sweep record holds (`m<count>_rps`), ascending. */
function sweepCounts(m: Metrics | undefined): number[] {
  return Object.keys(m ?? {})
    .map((key) => /^m(\d+)_rps$/.exec(key)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/** The table sizes a pages record holds (`n<rows>_first_rps`), ascending. */
function pageSizes(m: Metrics | undefined): number[] {
  return Object.keys(m ?? {})
    .map((key) => /^n(\d+)_first_rps$/.exec(key)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

const rowsLabel = (rows: number): string =>
  rows >= 1e6 && rows % 1e6 === 0
    ? `${rows / 1e6}M`
    : rows >= 1e3 && rows % 1e3 === 0
      ? `${rows / 1e3}k`
      : num(rows);

function sweepTable(v: View): string[] {
  const lines = [
    '| contender | models | req/s | p50 ms | p99 ms | × 1 model | event-loop delay p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of v.contenders) {
    const m = v.m('route_sweep', c);
    for (const count of sweepCounts(m)) {
      const k = (stat: string) => m?.[`m${count}_${stat}`];
      lines.push(
        `| ${v.label(c)} | ${count} | ${num(k('rps'))} | ${num(k('p50'))} | ${num(k('p99'))} | ${times(ratio(k('rps'), m?.m1_rps))} | ${num(k('eld_p99'), 1)} |`,
      );
    }
  }
  return lines.length > 2 ? lines : [];
}

const PAGES: readonly [key: string, title: string][] = [
  ['first', 'first page, `count=false`'],
  ['counted', 'first page with `X-Total-Count`'],
  ['start', 'first page of a keyset walk (`after=`), `count=false`'],
  ['offset', 'deep offset page (90 %), `count=false`'],
  ['keyset', 'keyset page at the same depth, `count=false`'],
];

function pagesTable(v: View): string[] {
  const lines = [
    '| rows | page | req/s | mean ms | p99 ms | time × first page |',
    '|---:|---|---:|---:|---:|---:|',
  ];
  const m = v.m('pages', 'framework');
  for (const rows of pageSizes(m)) {
    const p = sizePrefix(rows);
    for (const [key, title] of PAGES) {
      const rps = m?.[`${p}${key}_rps`];
      lines.push(
        `| ${rowsLabel(rows)} | ${title} | ${num(rps)} | ${num(m?.[`${p}${key}_mean`], 1)} | ${num(m?.[`${p}${key}_p99`])} | ${times(ratio(m?.[`${p}first_rps`], rps))} |`,
      );
    }
  }
  return lines.length > 2 ? lines : [];
}

function soakTable(v: View): string[] {
  const lines = [
    '| contender | seconds | target req/s (70 %) | achieved req/s | p99 ms | RSS start MiB | RSS after settling MiB | RSS end MiB | RSS growth after settling | JS heap after settling MiB | JS heap end MiB | live heap after settling MiB | live heap end MiB | full GCs | event-loop delay p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of v.contenders) {
    const m = v.m('soak', c);
    if (!m) continue;
    const mib = (key: string) => num((m[key] ?? Number.NaN) / MiB, 1);
    lines.push(
      `| ${v.label(c)} | ${num(m.seconds)} | ${num(m.target_rps)} | ${num(m.rps)} | ${num(m.p99)} | ${mib('rss_start')} | ${mib('rss_settled')} | ${mib('rss_end')} | ${num((m.growth ?? Number.NaN) * 100, 1)} % | ${mib('heap_settled')} | ${mib('heap_end')} | ${mib('live_heap_settled')} | ${mib('live_heap_end')} | ${num(m.major_gcs)} | ${num(m.eld_p99, 1)} |`,
    );
  }
  return lines.length > 2 ? lines : [];
}

function flagged(results: ResultsFile): string[] {
  return results.records
    .filter(
      (r) =>
        (r.metrics.non2xx ?? 0) + (r.metrics.errors ?? 0) + (r.metrics.login_non2xx ?? 0) > 0 ||
        r.metrics.rows_exhausted,
    )
    .map(
      (r) =>
        `- ${r.backend} / ${r.scenario} / ${r.contender} (repeat ${r.repeat + 1}): ${num((r.metrics.non2xx ?? 0) + (r.metrics.login_non2xx ?? 0))} non-2xx, ${num(r.metrics.errors)} errors${r.metrics.rows_exhausted ? ', ran out of rows to delete' : ''}`,
    );
}

/** The markdown of docs/benchmarks.md; `bench/NOTES.md` (the analysis of the run, by hand) is included when present. */
export function renderMarkdown(results: ResultsFile, source: string, root: string): string {
  const { machine, options } = results;
  const backends = [...new Set(results.records.map((r) => r.backend))] as Backend[];
  const out: string[] = [
    '# Benchmarks',
    '',
    `Generated by \`npm run bench\` (bench/run.ts) on ${results.startedAt.slice(0, 10)} from \`${source}\`. Do not edit by hand: run the bench again, or \`node dist/bench/run.js --report <results.json>\` to redraw this page from a results file.`,
    '',
    'Every contender serves the same example application (users and their posts, JWT login, owner-or-admin policy) on the same seeded database, each in its own process. Before anything is measured, the runner sends the same probe requests to all of them and stops unless every status and JSON body is equal.',
    '',
    '| contender | what it is |',
    '|---|---|',
    '| koa-model-api | this framework: `CrudRouter` + `AuthRouter` on `MikroOrmAdapter`, shaped like the example application |',
    ...(results.records.some((r) => r.contender === 'framework-plain')
      ? [
          "| koa-model-api, plain mode | the same application with `MikroOrmAdapter`'s `mode: 'plain'`: every read and write through MikroORM's public API (`em.find`/`findOne`/`count`, `em.create`/`assign`/`flush`/`remove`, `toObject()`), none through the adapter's own SQL path |",
        ]
      : []),
    '| hand-written Koa + MikroORM | Koa 3 + @koa/router + MikroORM 7 written by hand as their docs recommend: `RequestContext` per request, `em.findOne`, `wrap().toObject()`, `persist`/`flush`, jsonwebtoken (HS256, exp, iss/aud) with the user reloaded per request, @node-rs/bcrypt |',
    '| Feathers 5 (koa + knex) | @feathersjs/koa + `KnexService` + @feathersjs/authentication (local + JWT strategies), schema resolvers for the response shape; passwords are verified by its local strategy, which uses bcryptjs |',
    '| ceiling | bare `node:http` with prepared statements (better-sqlite3, or pg named statements), the same JWT and bcrypt work where a route needs a caller |',
    '',
    '![Requests per second per scenario and contender](images/benchmarks.svg)',
    '',
    '## Goals (koa-model-api, medians of the same run)',
    '',
    '"measured" is the figure of the medians, which decides the status; "per repeat" gives the same figure for each repeat on its own (contenders measured minutes apart, in rotated order), which shows how far the run\'s noise reaches.',
    '',
  ];
  for (const backend of backends) {
    out.push(
      `### ${backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
      '',
      ...goalsTable(new View(results, backend)),
      '',
    );
  }
  for (const backend of backends) {
    const v = new View(results, backend);
    out.push(
      `## ${backend === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`,
      '',
      '### Throughput and latency',
      '',
      ...throughputTable(v),
      '',
    );
    const storm = stormTable(v);
    if (storm.length > 0) {
      out.push(
        '### GET latency during a login storm',
        '',
        'A light GET load (100 req/s over 4 connections) is measured alone, then again while 16 connections hammer `POST /login`.',
        '',
        ...storm,
        '',
      );
    }
    out.push(
      '### Event-loop delay p99 (ms, `monitorEventLoopDelay` in each contender during the measured run)',
      '',
      ...loopDelayTable(v),
      '',
    );
    const sweep = sweepTable(v);
    if (sweep.length > 0) {
      out.push(
        '### Route sweep',
        '',
        '`GET /posts/:id` (random ids) on a process serving 1, 50 or 200 models; the extra models (five routes each, tables of their own) are registered before posts.',
        '',
        ...sweep,
        '',
      );
    }
    const pageRows = pagesTable(v);
    if (pageRows.length > 0) {
      out.push(
        '### List pages of big tables (koa-model-api)',
        '',
        '`GET /posts?limit=20` on tables of the seeded users and 1k, 100k or 1M posts, 10 connections. The keyset page uses the cursor of the row before the deep offset page and is checked to return the same rows. “time × first page” is the first page’s throughput divided by the page’s.',
        '',
        ...pageRows,
        '',
      );
    }
    const soakRows = soakTable(v);
    if (soakRows.length > 0) {
      out.push(
        '### Soak',
        '',
        'An authenticated mix (GET own post, list 20 with `count=false`, create, update) at 70 % of the throughput a short unthrottled run of the same mix reached; RSS read from `/proc` and the JS heap from `process.memoryUsage()` every 5 s. Growth is measured from the end of the first minute (the settling time) to the end.',
        '',
        ...soakRows,
        '',
      );
    }
    const memory = memoryTable(v);
    if (memory.length > 0) {
      out.push(
        '### Memory',
        '',
        'A freshly started process after a short GET warm-up, then with idle keep-alive connections open (each made one request).',
        '',
        ...memory,
        '',
      );
    }
  }
  const notes = join(root, 'bench', 'NOTES.md');
  if (existsSync(notes)) out.push(readFileSync(notes, 'utf8').trimEnd(), '');
  const flags = flagged(results);
  if (flags.length > 0) out.push('## Runs with non-2xx answers or errors (⚠ above)', '', ...flags, '');
  out.push(
    '## Method',
    '',
    `- Seed: ${num(results.seed.users)} users, ${num(results.seed.posts)} posts; passwords hashed with bcrypt cost 10 for every contender. Each contender gets its own copy of the seeded database per repeat, so writes never leak between contenders.`,
    `- Load: autocannon (programmatic API), ${options.connections} connections (login: 8), ${options.warmupSeconds} s warm-up then ${options.durationSeconds} s measured per scenario and contender, ${options.repeats} repeat(s) with the contender order rotated; the medians of the repeats are reported.`,
    `- Pinning: ${results.pinning}.`,
    '- Profiles: public reads (`GET /posts/:id`, `GET /posts?limit=20`, login) run on a process whose posts reads are public; the authenticated GET and the writes run on a process where every posts route needs a Bearer token and GET/PUT/DELETE need the owner (or an admin).',
    '- What each contender does per request is the same: list 20 runs the page query and a `COUNT(*)` for `X-Total-Count` in every contender (the ceiling runs both at once; the framework too on SQLite, and on PostgreSQL as one statement with the count as a subquery column; the hand-written app through `em.findAndCount`, Feathers through its paginated `find`); with `count=false` none of them counts. Every authenticated request verifies the JWT (HS256, `exp`, `iss`, `aud`) and reloads the user by `sub`; every write reads the post first when a policy needs its owner.',
    '- Event-loop delay: `monitorEventLoopDelay` (10 ms resolution) inside each contender, reset before each measured run and read after it.',
    '- Route sweep, big-table pages and the soak start processes of their own (pinned like the others) and run after the shared scenarios; the soak runs once per backend, in the first repeat.',
    results.records.some((r) => r.metrics.paired_auth_cost !== undefined)
      ? `- Auth + policy cost: the framework's authenticated GET against the same GET without a token, both served by its secure process (the unauthenticated twin under \`/open\`) and timed in four alternating rounds of slices a quarter of the scenario's duration each, after the scenario's own run; comparing the separately measured scenarios instead put minutes and another process between the two figures.${
          results.records.some((r) => r.metrics.paired_auth_cpu_cost !== undefined)
            ? " Below the goal, for reference: the same pair in the contender process's CPU time per request (`process.cpuUsage()` over each slice: every thread, user and system), which a load generator near its own limit cannot blur."
            : ''
        }`
      : '- Auth + policy cost: the authenticated GET scenario against the GET by id scenario (medians).',
    results.records.some((r) => r.metrics.exact_latency === 1)
      ? "- Latencies: autocannon's, in whole milliseconds, for unpaced loads. For paced loads (the login storm's foreground, the soak) each response's own time, from write to response, to the microsecond, without autocannon's coordinated-omission correction: autocannon 9 makes it with a 1 ms interval whatever the rate, which turns one slow response into one sample per millisecond, and it paces a connection in bursts (a second's share back to back), so there is no even schedule to correct against (`bench/lib/load.ts`)."
      : "- Latencies are autocannon's, in whole milliseconds; for paced loads (the login storm's foreground, the soak) with its coordinated-omission correction at a 1 ms interval, which counts one slow response once per millisecond (later runs measure paced loads exactly, see `bench/lib/load.ts`).",
    '',
    '## Machine',
    '',
    '| | |',
    '|---|---|',
    `| CPU | ${machine.cpu} (${machine.cores} cores) |`,
    `| memory | ${machine.memoryGiB} GiB |`,
    `| kernel | ${machine.kernel} |`,
    `| Node.js | ${machine.node} |`,
    `| PostgreSQL | ${machine.postgres ?? '–'} |`,
    '',
    '| package | version |',
    '|---|---|',
    ...Object.entries(machine.packages).map(([name, version]) => `| ${name} | ${version} |`),
    '',
  );
  return out.join('\n');
}

/** Writes docs/benchmarks.md and docs/images/benchmarks.svg under the repository root. */
export function writeDocs(root: string, results: ResultsFile, source: string): void {
  mkdirSync(join(root, 'docs', 'images'), { recursive: true });
  writeFileSync(join(root, 'docs', 'images', 'benchmarks.svg'), renderChart(results));
  writeFileSync(join(root, 'docs', 'benchmarks.md'), renderMarkdown(results, source, root));
}
