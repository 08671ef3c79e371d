/**
 * The benchmark runner: seeds a database per backend, starts every contender in its own pinned process,
 * checks that they all answer alike, then measures each scenario with autocannon (warm-up, measured run,
 * contenders rotated, repeats) and writes the results file and docs/benchmarks.md.
 *
 *   npm run bench                      # full run, both backends
 *   npm run bench:smoke                # CI: 0.5 s per scenario, SQLite, fails unless everything runs and agrees
 *   node dist/bench/run.js --backend sqlite --only get_by_id,list_20 --duration 5
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Profile } from './contenders/shared/env.js';
import { CONTENDERS, type ContenderName, type ContenderSpec } from './lib/contenders.js';
import { type BenchDatabase, createDatabase } from './lib/database.js';
import { Dataset } from './lib/dataset.js';
import { machineInfo } from './lib/machine.js';
import { parseOptions, type RunOptions } from './lib/options.js';
import { type PairedSums, pairedRounds } from './lib/paired.js';
import { pinRunner } from './lib/pinning.js';
import { compareAnswers, login, type ProbeAnswer, probe, type Tokens } from './lib/probes.js';
import { ContenderProcess } from './lib/process.js';
import { writeDocs } from './lib/report.js';
import type { ResultsFile, RunRecord } from './lib/results.js';
import type {
  LaunchRequest,
  Metrics,
  OwnScenario,
  ScenarioContext,
  SharedScenario,
} from './lib/scenario-types.js';
import { SCENARIOS, type Scenario, type ScenarioName, type Timing } from './lib/scenarios.js';

const here = import.meta.dirname;

/** The repository root: the nearest folder above the bench whose package.json is koa-model-api's. */
function findRoot(): string {
  for (let dir = here; dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'koa-model-api'
    ) {
      return dir;
    }
  }
  throw new Error('cannot find the koa-model-api package root');
}

/** Contender order for a repeat: rotated so that no contender always runs first or last. */
function rotate<T>(items: readonly T[], by: number): T[] {
  const k = items.length === 0 ? 0 : by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

const fmt = (n: number | undefined, digits = 0): string =>
  n === undefined || !Number.isFinite(n) ? '-' : n.toFixed(digits);

/** Runs the probes against every running contender and throws with the differences if they disagree. */
async function checkEquality(
  procs: ReadonlyMap<ContenderName, ContenderProcess>,
  tokens: ReadonlyMap<ContenderName, Tokens>,
  profile: Profile,
  data: Dataset,
): Promise<void> {
  const answers = new Map<ContenderName, Map<string, ProbeAnswer>>();
  for (const [name, proc] of procs)
    answers.set(name, await probe(proc.baseUrl, profile, data, tokens.get(name) as Tokens));
  const names = [...answers.keys()];
  const reference = names.includes('handwritten') ? 'handwritten' : (names[0] as ContenderName);
  const problems: string[] = [];
  for (const name of names) {
    if (name === reference) continue;
    const differences = compareAnswers(
      answers.get(reference) as Map<string, ProbeAnswer>,
      answers.get(name) as Map<string, ProbeAnswer>,
    );
    if (differences.length > 0)
      problems.push(`${name} differs from ${reference}:\n  ${differences.join('\n  ')}`);
  }
  if (problems.length > 0)
    throw new Error(`equality check failed (${profile} profile):\n${problems.join('\n')}`);
  console.log(`  probes (${profile}): ${names.join(', ')} answer alike`);
}

interface RepeatEnv {
  readonly options: RunOptions;
  readonly data: Dataset;
  readonly db: BenchDatabase;
  readonly secret: string;
  readonly serverCpu: string | undefined;
  readonly timing: Timing;
  readonly records: RunRecord[];
  readonly failures: string[];
}

const start = (
  env: RepeatEnv,
  spec: ContenderSpec,
  url: string,
  profile: Profile,
  extraEnv?: Readonly<Record<string, string>>,
): Promise<ContenderProcess> =>
  ContenderProcess.start({
    script: join(here, spec.script),
    databaseUrl: url,
    jwtSecret: env.secret,
    profile,
    cpu: env.serverCpu,
    // The contender's own settings (the framework's adapter mode), then the scenario's.
    ...(spec.env === undefined && extraEnv === undefined ? {} : { env: { ...spec.env, ...extraEnv } }),
    // --profile: every contender's CPU profile, one file per process named after it, written when it exits.
    ...(env.options.profileDir !== undefined
      ? {
          nodeArgs: [
            '--cpu-prof',
            `--cpu-prof-dir=${env.options.profileDir}`,
            `--cpu-prof-name=${spec.name}-${profile}-${Date.now()}.cpuprofile`,
          ],
        }
      : {}),
  });

/** Starts the contenders together (startup mostly waits on module loading and the database); on failure the started ones are still in `into` for cleanup. */
async function startAll(
  env: RepeatEnv,
  order: readonly ContenderSpec[],
  urls: ReadonlyMap<ContenderName, string>,
  profile: Profile,
  into: Map<ContenderName, ContenderProcess>,
): Promise<void> {
  const started = await Promise.allSettled(
    order.map((spec) => start(env, spec, urls.get(spec.name) as string, profile)),
  );
  started.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') into.set((order[i] as ContenderSpec).name, outcome.value);
  });
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
}

function record(
  env: RepeatEnv,
  spec: ContenderSpec,
  scenario: Scenario,
  repeat: number,
  metrics: RunRecord['metrics'],
): void {
  env.records.push({
    backend: env.db.backend,
    scenario: scenario.name,
    contender: spec.name,
    repeat,
    metrics,
  });
  const bad =
    (metrics.non2xx ?? 0) + (metrics.errors ?? 0) + (metrics.login_non2xx ?? 0) + (metrics.storm_non2xx ?? 0);
  if (bad > 0 || metrics.rows_exhausted) {
    env.failures.push(
      `${env.db.backend} ${scenario.name} ${spec.name}: ${bad} non-2xx/errors${metrics.rows_exhausted ? ', ran out of rows to delete' : ''}`,
    );
  }
  const line =
    scenario.profile === 'own'
      ? ownSummary(metrics)
      : scenario.name === 'memory'
        ? `idle ${fmt((metrics.idle_rss ?? 0) / 2 ** 20, 1)} MiB, ${metrics.connections} conns ${fmt((metrics.connected_rss ?? 0) / 2 ** 20, 1)} MiB`
        : scenario.name === 'login_storm'
          ? `GET p99 idle ${fmt(metrics.idle_p99, 1)} ms, storm ${fmt(metrics.storm_p99, 1)} ms, logins ${fmt(metrics.login_rps, 1)}/s`
          : `${fmt(metrics.rps)} req/s  p50 ${fmt(metrics.p50, 1)} ms  p99 ${fmt(metrics.p99, 1)} ms  eld p99 ${fmt(metrics.eld_p99, 1)} ms  ${fmt(metrics.statements, 1)} statements/request${bad > 0 ? `  (${bad} non-2xx/errors)` : ''}`;
  console.log(
    `  [${env.db.backend} r${repeat + 1}] ${scenario.name.padEnd(15)} ${spec.name.padEnd(12)} ${line}`,
  );
}

/** The console line of a scenario that starts its own processes. */
function ownSummary(metrics: RunRecord['metrics']): string {
  const keys = Object.keys(metrics).filter((key) => key.endsWith('_rps') || key === 'growth');
  return keys
    .map((key) =>
      key === 'growth'
        ? `growth ${fmt((metrics[key] ?? 0) * 100, 1)} %`
        : `${key.slice(0, -4)} ${fmt(metrics[key])}/s`,
    )
    .join('  ')
    .slice(0, 400);
}

/** Runs the scenarios that start their own processes, on every contender they measure. */
async function runOwn(
  env: RepeatEnv,
  order: readonly ContenderSpec[],
  urls: ReadonlyMap<ContenderName, string>,
  scenarios: readonly OwnScenario[],
  repeat: number,
): Promise<void> {
  for (const scenario of scenarios) {
    if (scenario.once === true && repeat > 0) continue;
    for (const spec of order.filter((c) => scenario.contenders.includes(c.name))) {
      const launched: ContenderProcess[] = [];
      const dbUrl = urls.get(spec.name) as string;
      try {
        const metrics = await scenario.run({
          data: env.data,
          db: env.db,
          dbUrl,
          timing: env.timing,
          settings: env.options,
          launch: async (request: LaunchRequest) => {
            const proc = await start(env, spec, request.databaseUrl ?? dbUrl, request.profile, request.env);
            launched.push(proc);
            return proc;
          },
        });
        record(env, spec, scenario, repeat, metrics);
      } finally {
        for (const proc of launched) await proc.stop();
      }
      await sleep(env.timing.settleSeconds * 200);
    }
  }
}

/** The paired rounds of a scenario (paired.ts), added to each contender's record of this repeat. */
async function runPaired(
  env: RepeatEnv,
  scenario: ScenarioName,
  shapeOf: NonNullable<SharedScenario['paired']>,
  measured: ReadonlyMap<ContenderName, { ctx: ScenarioContext; metrics: Metrics }>,
): Promise<void> {
  const sums = await pairedRounds(
    [...measured].map(([name, { ctx }]) => ({ name, proc: ctx.proc, shape: shapeOf(ctx) })),
    env.timing.durationSeconds,
    env.timing.connections,
  );
  const line: string[] = [];
  for (const [name, { metrics }] of measured) {
    const sum = sums.get(name) as PairedSums;
    Object.assign(metrics, {
      paired_rps: sum.rps,
      paired_non2xx: sum.non2xx,
      paired_errors: sum.errors,
      // CPU per request over the same slices: what a load generator near its own limit cannot flatten.
      ...(sum.requests > 0 ? { paired_cpu_us: sum.cpuMicros / sum.requests } : {}),
    });
    line.push(`${name} ${fmt(sum.rps)}`);
    if (sum.non2xx + sum.errors > 0)
      env.failures.push(
        `${env.db.backend} ${scenario} ${name}: ${sum.non2xx + sum.errors} non-2xx/errors in the paired rounds`,
      );
  }
  console.log(`  [${env.db.backend}] ${scenario.padEnd(15)} paired rounds (req/s): ${line.join(', ')}`);
}

/** One repeat on one backend: fresh database copies, both profiles, the memory scenario, then the scenarios with processes of their own. */
async function runRepeat(env: RepeatEnv, order: readonly ContenderSpec[], repeat: number): Promise<void> {
  const urls = new Map<ContenderName, string>();
  for (const spec of order) urls.set(spec.name, await env.db.copy(spec.name));
  const writeRates = new Map<ContenderName, number>();
  const chosen = SCENARIOS.filter((s) => env.options.scenarios.includes(s.name));
  const selected = chosen.filter((s): s is SharedScenario => s.profile !== 'own');
  const own = chosen.filter((s): s is OwnScenario => s.profile === 'own');
  try {
    for (const profile of ['open', 'secure'] as const) {
      const scenarios = selected.filter((s) => s.profile === profile);
      if (scenarios.length === 0 && !env.options.smoke) continue;
      const procs = new Map<ContenderName, ContenderProcess>();
      try {
        await startAll(env, order, urls, profile, procs);
        const tokens = new Map<ContenderName, Tokens>();
        for (const [name, proc] of procs) tokens.set(name, await login(proc.baseUrl, env.data));
        await checkEquality(procs, tokens, profile, env.data);
        for (const scenario of scenarios) {
          const measured = new Map<ContenderName, { ctx: ScenarioContext; metrics: Metrics }>();
          for (const spec of order) {
            const ctx: ScenarioContext = {
              contender: spec.name,
              data: env.data,
              tokens: tokens.get(spec.name) as Tokens,
              proc: procs.get(spec.name) as ContenderProcess,
              db: env.db,
              dbUrl: urls.get(spec.name) as string,
              timing: env.timing,
              writeRateHint: writeRates.get(spec.name),
            };
            const metrics = await scenario.run(ctx);
            if (scenario.name === 'create') writeRates.set(spec.name, metrics.rps ?? 0);
            record(env, spec, scenario, repeat, metrics);
            measured.set(spec.name, { ctx, metrics });
            await sleep(env.timing.settleSeconds * 200);
          }
          const shapeOf = scenario.paired;
          if (shapeOf !== undefined && measured.size > 1)
            await runPaired(env, scenario.name, shapeOf, measured);
        }
      } finally {
        for (const proc of procs.values()) await proc.stop();
      }
    }
    for (const scenario of selected.filter((s) => s.profile === 'fresh')) {
      // Fresh processes, started together but measured one at a time: an idle neighbour changes no RSS.
      const fresh = new Map<ContenderName, ContenderProcess>();
      try {
        await startAll(env, order, urls, 'open', fresh);
        for (const spec of order) {
          const metrics = await scenario.run({
            contender: spec.name,
            data: env.data,
            tokens: { owner: '', other: '' },
            proc: fresh.get(spec.name) as ContenderProcess,
            db: env.db,
            dbUrl: urls.get(spec.name) as string,
            timing: env.timing,
            writeRateHint: undefined,
          });
          record(env, spec, scenario, repeat, metrics);
        }
      } finally {
        for (const proc of fresh.values()) await proc.stop();
      }
    }
    await runOwn(env, order, urls, own, repeat);
  } finally {
    for (const url of urls.values()) await env.db.drop(url);
  }
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  const root = findRoot();
  if (options.reportFrom) {
    const results = JSON.parse(readFileSync(options.reportFrom, 'utf8')) as ResultsFile;
    writeDocs(root, results, options.reportFrom);
    console.log('docs/benchmarks.md and docs/images/benchmarks.svg regenerated');
    return;
  }
  const startedAt = new Date();
  const pinning = pinRunner();
  const machine = machineInfo(root, options.backends.includes('postgres') ? options.pgUrl : undefined);
  const specs = CONTENDERS.filter((c) => options.contenders.includes(c.name));
  console.log(
    `koa-model-api bench: ${specs.map((s) => s.name).join(', ')} on ${options.backends.join(', ')}`,
  );
  console.log(`  ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${pinning.description}`);
  const data = await Dataset.create({ users: options.users, postsPerUser: options.postsPerUser });
  const timing: Timing = {
    durationSeconds: options.durationSeconds,
    warmupSeconds: options.warmupSeconds,
    connections: options.connections,
    idleConnections: options.idleConnections,
    settleSeconds: options.smoke ? 0.2 : 1,
    stormPhaseSeconds: options.smoke ? options.durationSeconds / 2 : options.durationSeconds,
  };
  const records: RunRecord[] = [];
  const failures: string[] = [];
  const secret = randomBytes(32).toString('hex');
  for (const backend of options.backends) {
    const db = await createDatabase(backend, data, options.pgUrl);
    // Ctrl-C: contenders follow the runner out on their own (IPC disconnect); the databases need dropping.
    const onInterrupt = (): void => {
      void db.close().finally(() => process.exit(130));
    };
    process.once('SIGINT', onInterrupt);
    console.log(`${backend}: seeded ${data.users} users, ${data.posts} posts`);
    try {
      const env: RepeatEnv = {
        options,
        data,
        db,
        secret,
        serverCpu: pinning.serverCpu,
        timing,
        records,
        failures,
      };
      for (let repeat = 0; repeat < options.repeats; repeat++)
        await runRepeat(env, rotate(specs, repeat), repeat);
    } finally {
      process.off('SIGINT', onInterrupt);
      await db.close();
    }
  }
  const { pgUrl: _pgUrl, reportFrom: _reportFrom, ...recordedOptions } = options;
  const labels = { sqlite: {}, postgres: {} } as Record<'sqlite' | 'postgres', Record<string, string>>;
  for (const backend of ['sqlite', 'postgres'] as const)
    for (const spec of specs) labels[backend][spec.name] = spec.label(backend);
  const results: ResultsFile = {
    format: 1,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    options: recordedOptions,
    machine,
    pinning: pinning.description,
    seed: { users: data.users, posts: data.posts },
    labels,
    records,
  };
  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const dir = options.smoke ? tmpdir() : join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, options.smoke ? `kma-bench-smoke-${stamp}.json` : `${stamp}.json`);
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`results: ${file}`);
  if (options.docs) {
    writeDocs(root, results, join('bench', 'results', `${stamp}.json`));
    console.log('docs: docs/benchmarks.md, docs/images/benchmarks.svg');
  }
  if (failures.length > 0) {
    console.error(`runs with non-2xx answers or errors:\n  ${failures.join('\n  ')}`);
    if (options.smoke) process.exitCode = 1;
  }
  if (options.smoke && process.exitCode !== 1)
    console.log('smoke: every contender ran every scenario and answered alike');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
