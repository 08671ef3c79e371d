/** Writes docs/benchmarks.md (tables, ratios, goals, machine) and docs/images/benchmarks.svg from a results file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHARTED, renderChart } from './chart.js';
import type { ContenderName } from './contenders.js';
import type { Backend } from './database.js';
import { medians, type ResultsFile } from './results.js';
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
  const scenarios: ScenarioName[] = ['get_by_id', 'list_20', 'auth_get', 'create', 'login'];
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

/** The goals of issue 5, evaluated on the framework's medians. */
function goalsTable(v: View): string[] {
  const f = (s: ScenarioName) => v.m(s, 'framework');
  const o = (s: ScenarioName, c: ContenderName) => v.m(s, c);
  const row = (
    what: string,
    goal: string,
    value: number | undefined,
    ok: (x: number) => boolean,
    unit = '×',
  ): string =>
    `| ${what} | ${goal} | ${value === undefined ? '–' : unit === '×' ? times(value) : `${(value * 100).toFixed(1)} %`} | ${value === undefined ? 'not measured' : ok(value) ? 'met' : '**missed**'} |`;
  const ceilingGoal = v.backend === 'sqlite' ? 0.3 : 0.5;
  const lines = ['| scenario | goal | measured | status |', '|---|---|---:|---|'];
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
      'list 20 vs hand-written',
      '≥ 2×',
      ratio(f('list_20')?.rps, o('list_20', 'handwritten')?.rps),
      (x) => x >= 2,
    ),
  );
  for (const s of ['create', 'update', 'delete'] as const) {
    lines.push(
      row(`${s} vs hand-written`, '≥ 1.0×', ratio(f(s)?.rps, o(s, 'handwritten')?.rps), (x) => x >= 1),
    );
    lines.push(row(`${s} vs Feathers`, '≥ 1.1×', ratio(f(s)?.rps, o(s, 'feathers')?.rps), (x) => x >= 1.1));
  }
  lines.push(
    row(
      'authenticated GET vs hand-written',
      '≥ 1.5×',
      ratio(f('auth_get')?.rps, o('auth_get', 'handwritten')?.rps),
      (x) => x >= 1.5,
    ),
  );
  const authCost = ratio(f('auth_get')?.rps, f('get_by_id')?.rps);
  lines.push(
    row(
      'auth + policy cost vs GET without auth',
      '≤ 10 %',
      authCost === undefined ? undefined : 1 - authCost,
      (x) => x <= 0.1,
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
  lines.push('| GET with 200 models vs 1 | ≥ 0.9× | – | not measured (route sweep not in the suite yet) |');
  lines.push(
    '| keyset page at 1M rows vs page 1 | ≤ 1.2× | – | not measured (big-table pages not in the suite yet) |',
  );
  lines.push('| RSS growth over a 5-minute soak | ≤ 5 % | – | not measured (soak not in the suite yet) |');
  return lines;
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

/** The markdown of docs/benchmarks.md. */
export function renderMarkdown(results: ResultsFile, source: string): string {
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
    '| hand-written Koa + MikroORM | Koa 3 + @koa/router + MikroORM 7 written by hand as their docs recommend: `RequestContext` per request, `em.findOne`, `wrap().toObject()`, `persist`/`flush`, jsonwebtoken (HS256, exp, iss/aud) with the user reloaded per request, @node-rs/bcrypt |',
    '| Feathers 5 (koa + knex) | @feathersjs/koa + `KnexService` + @feathersjs/authentication (local + JWT strategies), schema resolvers for the response shape; passwords are verified by its local strategy, which uses bcryptjs |',
    '| ceiling | bare `node:http` with prepared statements (better-sqlite3, or pg named statements), the same JWT and bcrypt work where a route needs a caller |',
    '',
    '![Requests per second per scenario and contender](images/benchmarks.svg)',
    '',
    '## Goals (koa-model-api, medians of the same run)',
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
  const flags = flagged(results);
  if (flags.length > 0) out.push('## Runs with non-2xx answers or errors (⚠ above)', '', ...flags, '');
  out.push(
    '## Method',
    '',
    `- Seed: ${num(results.seed.users)} users, ${num(results.seed.posts)} posts; passwords hashed with bcrypt cost 10 for every contender. Each contender gets its own copy of the seeded database per repeat, so writes never leak between contenders.`,
    `- Load: autocannon (programmatic API), ${options.connections} connections (login: 8), ${options.warmupSeconds} s warm-up then ${options.durationSeconds} s measured per scenario and contender, ${options.repeats} repeat(s) with the contender order rotated; the medians of the repeats are reported.`,
    `- Pinning: ${results.pinning}.`,
    '- Profiles: public reads (`GET /posts/:id`, `GET /posts?limit=20`, login) run on a process whose posts reads are public; the authenticated GET and the writes run on a process where every posts route needs a Bearer token and GET/PUT/DELETE need the owner (or an admin).',
    "- Latencies are autocannon's, with millisecond resolution.",
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
  writeFileSync(join(root, 'docs', 'benchmarks.md'), renderMarkdown(results, source));
}
