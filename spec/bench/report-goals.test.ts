/**
 * The goal table of docs/benchmarks.md: the goals are data (bench/lib/report/goals.ts), the figure of
 * the medians decides, each repeat is shown beside it; and the per-scenario tables of the statement
 * count and the include scenario, which results files written before them lack.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { boundText, GOALS, goalById, meets, parseBound } from '../../bench/lib/report/goals.js';
import { renderMarkdown } from '../../bench/lib/report.js';
import type { ResultsFile, RunRecord } from '../../bench/lib/results.js';

/** The bound a goal has on SQLite, as the goal table writes it. */
const sqliteBound = (id: string): string | undefined => boundText(goalById(id), 'sqlite');

/** A results file of a run on SQLite holding these records. */
function resultsWith(records: readonly RunRecord[]): ResultsFile {
  return {
    format: 1,
    startedAt: '2026-11-22T08:13:43.886Z',
    finishedAt: '2026-11-22T09:14:23.329Z',
    options: {
      smoke: false,
      backends: ['sqlite'],
      scenarios: ['get_by_id', 'auth_get'],
      contenders: ['framework', 'handwritten'],
      durationSeconds: 5,
      warmupSeconds: 2,
      repeats: 2,
      connections: 50,
      idleConnections: 1000,
      users: 1000,
      postsPerUser: 10,
      pageSizes: [1000],
      sweepModels: [1],
      soakSeconds: 300,
      docs: false,
      profileDir: undefined,
    },
    machine: {
      cpu: 'test CPU',
      cores: 2,
      memoryGiB: 8,
      kernel: 'test',
      node: 'v24',
      postgres: undefined,
      packages: {},
    },
    pinning: 'none',
    seed: { users: 1000, posts: 10000 },
    labels: { sqlite: { framework: 'koa-model-api', handwritten: 'hand-written' }, postgres: {} },
    records,
  };
}

/** The goal row of the SQLite table whose label starts with `label`. */
function goalRow(markdown: string, label: string): string[] {
  const line = markdown.split('\n').find((text) => text.startsWith(`| ${label}`));
  assert.ok(line !== undefined, `no row "${label}"`);
  return line
    .split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

function render(records: readonly RunRecord[]): string {
  // A folder without bench/NOTES.md: only the generated part.
  const root = mkdtempSync(join(tmpdir(), 'kma-report-'));
  try {
    return renderMarkdown(resultsWith(records), 'test.json', root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const run = (
  scenario: RunRecord['scenario'],
  contender: RunRecord['contender'],
  repeat: number,
  metrics: RunRecord['metrics'],
): RunRecord => ({ backend: 'sqlite', scenario, contender, repeat, metrics });

describe('bench report: goal table', () => {
  it('decides on the ratio of the medians and shows the ratio of each repeat', () => {
    const markdown = render([
      run('get_by_id', 'framework', 0, { rps: 100 }),
      run('get_by_id', 'framework', 1, { rps: 200 }),
      run('get_by_id', 'handwritten', 0, { rps: 50 }),
      run('get_by_id', 'handwritten', 1, { rps: 50 }),
    ]);
    const [, goal, measured, status, perRepeat] = goalRow(markdown, 'GET by id vs hand-written');
    assert.equal(goal, sqliteBound('get_by_id_vs_handwritten'));
    assert.equal(measured, '3.00×');
    assert.equal(status, 'met');
    assert.equal(perRepeat, '2.00×, 4.00×');
  });

  it('decides a throughput ratio on the paired rounds when both contenders have them, else on their own runs', () => {
    const markdown = render([
      run('get_by_id', 'framework', 0, { rps: 100, paired_rps: 90 }),
      run('get_by_id', 'framework', 1, { rps: 200, paired_rps: 110 }),
      run('get_by_id', 'handwritten', 0, { rps: 50, paired_rps: 60 }),
      run('get_by_id', 'handwritten', 1, { rps: 50, paired_rps: 40 }),
      // Only one side paired: the own runs decide.
      run('get_by_id', 'ceiling', 0, { rps: 400 }),
      run('get_by_id', 'ceiling', 1, { rps: 400 }),
    ]);
    assert.deepEqual(goalRow(markdown, 'GET by id vs hand-written').slice(2), [
      '2.00×',
      'met',
      '1.50×, 2.75×',
    ]);
    assert.deepEqual(goalRow(markdown, 'GET by id vs ceiling').slice(2, 4), ['0.38×', 'met']);
    assert.match(markdown, /- Paired rounds: /);
  });

  it('takes the paired auth cost when the results have it, else the two scenarios', () => {
    const scenarios = [
      run('get_by_id', 'framework', 0, { rps: 1000 }),
      run('get_by_id', 'framework', 1, { rps: 1000 }),
    ];
    const separate = render([
      ...scenarios,
      run('auth_get', 'framework', 0, { rps: 700 }),
      run('auth_get', 'framework', 1, { rps: 900 }),
    ]);
    assert.deepEqual(goalRow(separate, 'auth + policy cost').slice(2), [
      '20.0 %',
      '**missed**',
      '30.0 %, 10.0 %',
    ]);
    assert.match(
      separate,
      /- Auth \+ policy cost: the authenticated GET scenario against the GET by id scenario/,
    );
    const paired = render([
      ...scenarios,
      run('auth_get', 'framework', 0, { rps: 700, paired_auth_cost: 0.04 }),
      run('auth_get', 'framework', 1, { rps: 900, paired_auth_cost: 0.12 }),
    ]);
    const row = goalRow(paired, 'auth + policy cost');
    assert.equal(row[0], 'auth + policy cost vs the same GET without auth (paired)');
    assert.deepEqual(row.slice(2), ['8.0 %', 'met', '4.0 %, 12.0 %']);
    assert.match(paired, /timed in four alternating rounds/);
    assert.ok(!paired.includes('| … in '), 'no reference rows without their figures');
  });

  it('shows the pair in CPU time per request for reference, deciding nothing', () => {
    const markdown = render([
      run('get_by_id', 'framework', 0, { rps: 1000 }),
      run('auth_get', 'framework', 0, {
        rps: 700,
        paired_auth_cost: 0.15,
        paired_auth_cpu_cost: 0.12,
      }),
      run('auth_get', 'framework', 1, {
        rps: 900,
        paired_auth_cost: 0.19,
        paired_auth_cpu_cost: 0.14,
      }),
    ]);
    assert.deepEqual(goalRow(markdown, 'auth + policy cost').slice(2), [
      '17.0 %',
      '**missed**',
      '15.0 %, 19.0 %',
    ]);
    assert.deepEqual(goalRow(markdown, "… the authenticated GET's extra CPU time").slice(1), [
      'for reference',
      '13.0 %',
      '',
      '12.0 %, 14.0 %',
    ]);
    assert.match(markdown, /CPU time per request \(`process.cpuUsage\(\)` over each slice/);
  });

  it("shows the plain mode against the hand-written app as a goal, and the fast path's worth for reference", () => {
    const markdown = render([
      run('get_by_id', 'framework', 0, { rps: 3000 }),
      run('get_by_id', 'framework-plain', 0, { rps: 1500, paired_cpu_us: 100 }),
      run('get_by_id', 'handwritten', 0, { rps: 1200, paired_cpu_us: 110 }),
      run('create', 'framework', 0, { rps: 900 }),
      run('create', 'framework-plain', 0, { rps: 450 }),
      run('create', 'handwritten', 0, { rps: 500 }),
    ]);
    assert.deepEqual(goalRow(markdown, 'plain mode: GET by id vs hand-written').slice(1), [
      sqliteBound('plain_get_by_id_vs_handwritten'),
      '1.25×',
      'met',
      '1.25×',
    ]);
    assert.deepEqual(goalRow(markdown, '… GET by id: the fast path vs the plain mode').slice(1), [
      'for reference',
      '2.00×',
      '',
      '2.00×',
    ]);
    // CPU per request over the paired slices, for reference: above 1× when the plain mode spends less.
    assert.deepEqual(goalRow(markdown, '… GET by id: CPU per request, hand-written ÷ plain mode').slice(1), [
      'for reference',
      '1.10×',
      '',
      '1.10×',
    ]);
    assert.ok(!markdown.includes('| … create: CPU per request'));
    assert.deepEqual(goalRow(markdown, 'plain mode: create vs hand-written').slice(2, 4), [
      '0.90×',
      '**missed**',
    ]);
    // Scenarios the plain mode did not run are goals not measured; their reference rows are left out.
    assert.deepEqual(goalRow(markdown, 'plain mode: update vs hand-written').slice(2, 4), [
      '–',
      'not measured',
    ]);
    assert.ok(!markdown.includes('| … update: the fast path'));
    // The goals of the fast path are unchanged beside the new rows.
    assert.deepEqual(goalRow(markdown, 'GET by id vs hand-written').slice(1, 4), [
      sqliteBound('get_by_id_vs_handwritten'),
      '2.50×',
      'met',
    ]);
    assert.match(markdown, /\| koa-model-api, plain mode \| the same application with/);
  });

  it('keeps each repeat in line with the medians when only some repeats have the reference figure', () => {
    const markdown = render([
      run('auth_get', 'framework', 0, { rps: 700, paired_auth_cost: 0.1, paired_auth_cpu_cost: 0.12 }),
      run('auth_get', 'framework', 1, { rps: 900, paired_auth_cost: 0.2, paired_auth_cpu_cost: Number.NaN }),
      run('login', 'framework', 0, { rps: 20 }),
      run('login', 'framework', 1, { rps: 30 }),
      run('login', 'handwritten', 0, { rps: 20 }),
      run('login', 'handwritten', 1, { rps: 20 }),
    ]);
    assert.equal(goalRow(markdown, "… the authenticated GET's extra CPU time")[4], '12.0 %, –');
    assert.deepEqual(goalRow(markdown, 'login vs hand-written').slice(2), ['1.25×', 'met', '1.00×, 1.50×']);
  });
});

describe('bench report: goals as data', () => {
  it('writes every bound the way the table parses it, in the unit of its figure', () => {
    const ids = new Set<string>();
    for (const goal of GOALS) {
      assert.ok(!ids.has(goal.id), `goal id ${goal.id} is used twice`);
      ids.add(goal.id);
      for (const backend of ['sqlite', 'postgres'] as const) {
        const text = boundText(goal, backend);
        if (text !== undefined) assert.equal(parseBound(text).unit, goal.unit, `${goal.id} on ${backend}`);
      }
    }
    assert.throws(() => parseBound('at least 2'), /is not written like/);
  });

  it('meets a bound on the bound itself and misses it just beyond', () => {
    assert.deepEqual(parseBound('≥ 1.5×'), { atLeast: true, value: 1.5, unit: '×' });
    assert.deepEqual(parseBound('≤ 10 %'), { atLeast: false, value: 0.1, unit: '%' });
    assert.equal(meets(parseBound('≥ 2×'), 2), true);
    assert.equal(meets(parseBound('≥ 2×'), 1.99), false);
    assert.equal(meets(parseBound('≤ 10 %'), 0.1), true);
    assert.equal(meets(parseBound('≤ 10 %'), 0.1001), false);
  });

  it('holds the per-backend bound of the ceiling goal', () => {
    assert.equal(boundText(goalById('get_by_id_vs_ceiling'), 'sqlite'), '≥ 0.30×');
    assert.equal(boundText(goalById('get_by_id_vs_ceiling'), 'postgres'), '≥ 0.50×');
  });
});

describe('bench report: list 20 with include=owner,tags and the statement count', () => {
  it("decides the include goal on the framework's throughput against the hand-written app's populate", () => {
    const markdown = render([
      run('list_20_include', 'framework', 0, { rps: 900, statements: 5 }),
      run('list_20_include', 'handwritten', 0, { rps: 300, statements: 3 }),
    ]);
    const goal = goalById('list_20_include_vs_handwritten');
    assert.deepEqual(goalRow(markdown, goal.label as string).slice(1), [
      sqliteBound(goal.id),
      '3.00×',
      'met',
      '3.00×',
    ]);
    assert.match(markdown, /\| list 20 with include=owner,tags \| koa-model-api \| 900 \|/);
    assert.match(markdown, /- List 20 with `include=owner,tags`: every contender answers/);
  });

  it('shows the statements per request of each scenario and contender', () => {
    const markdown = render([
      run('get_by_id', 'framework', 0, { rps: 100, statements: 1 }),
      run('get_by_id', 'handwritten', 0, { rps: 50, statements: 1 }),
      run('list_20_include', 'framework', 0, { rps: 90, statements: 5 }),
      run('list_20_include', 'framework', 1, { rps: 90, statements: 4 }),
      run('list_20_include', 'handwritten', 0, { rps: 30, statements: 3 }),
    ]);
    const table = markdown.split('### SQL statements per request')[1]?.split('###')[0] ?? '';
    assert.match(table, /\| contender \| get_by_id \| list_20_include \|/);
    // Medians over the repeats: 4 and 5 give 4.5.
    assert.match(table, /\| koa-model-api \| 1 \| 4\.5 \|/);
    assert.match(table, /\| hand-written \| 1 \| 3 \|/);
    assert.match(markdown, /- SQL statements per request: counted inside each contender/);
  });

  it('leaves the statement table and the include column out for a run without them', () => {
    const markdown = render([
      run('get_by_id', 'framework', 0, { rps: 100, eld_p99: 1 }),
      run('get_by_id', 'handwritten', 0, { rps: 50, eld_p99: 2 }),
    ]);
    assert.ok(!markdown.includes('SQL statements per request'));
    assert.ok(!markdown.includes('List 20 with `include=owner,tags`'));
    // The event-loop table keeps the columns it always had, and gains the new scenario only once measured.
    assert.match(markdown, /\| contender \| get_by_id \| list_20 \| list_20_nocount \| auth_get \|/);
    assert.deepEqual(goalRow(markdown, 'list 20 with `include=owner,tags`').slice(2, 4), [
      '–',
      'not measured',
    ]);
  });
});
