/** The closing sections of the report: runs with failed answers, how the run was made, and the machine. */
import type { ResultsFile } from '../results.js';
import { formatNumber } from './format.js';

/** One line per record with non-2xx answers, errors or a delete scenario that ran out of rows. */
export function flaggedRuns(results: ResultsFile): string[] {
  return results.records
    .filter(
      (r) =>
        (r.metrics.non2xx ?? 0) + (r.metrics.errors ?? 0) + (r.metrics.login_non2xx ?? 0) > 0 ||
        r.metrics.rows_exhausted,
    )
    .map(
      (r) =>
        `- ${r.backend} / ${r.scenario} / ${r.contender} (repeat ${r.repeat + 1}): ${formatNumber((r.metrics.non2xx ?? 0) + (r.metrics.login_non2xx ?? 0))} non-2xx, ${formatNumber(r.metrics.errors)} errors${r.metrics.rows_exhausted ? ', ran out of rows to delete' : ''}`,
    );
}

/** The "Method" section: seed, load, pinning and what each measurement means. */
export function methodSection(results: ResultsFile): string[] {
  const { options } = results;
  const has = (test: (metrics: ResultsFile['records'][number]['metrics']) => boolean): boolean =>
    results.records.some((r) => test(r.metrics));
  return [
    '## Method',
    '',
    `- Seed: ${formatNumber(results.seed.users)} users, ${formatNumber(results.seed.posts)} posts; passwords hashed with bcrypt cost 10 for every contender. Each contender gets its own copy of the seeded database per repeat, so writes never leak between contenders.`,
    `- Load: autocannon (programmatic API), ${options.connections} connections (login: 8), ${options.warmupSeconds} s warm-up then ${options.durationSeconds} s measured per scenario and contender, ${options.repeats} repeat(s) with the contender order rotated; the medians of the repeats are reported.`,
    `- Pinning: ${results.pinning}.`,
    ...(has((m) => m.paired_rps !== undefined)
      ? [
          "- Paired rounds: after every contender's own run of GET by id, the three lists, create and update, the contenders (all still running, all warm) are timed again in four rounds of one slice each, a quarter of the scenario's duration per slice, each round starting with the next contender. The goals comparing two contenders' throughput take the mean of these slices where both have them: measured one after another the two are a minute or more apart, and this machine's speed drifted by more than some goals' margins between 5 s repeats. The throughput tables show the contenders' own runs.",
        ]
      : []),
    '- Profiles: public reads (`GET /posts/:id`, `GET /posts?limit=20`, login) run on a process whose posts reads are public; the authenticated GET and the writes run on a process where every posts route needs a Bearer token and GET/PUT/DELETE need the owner (or an admin).',
    '- What each contender does per request is the same: list 20 runs the page query and a `COUNT(*)` for `X-Total-Count` in every contender (the ceiling runs both at once; the framework too on SQLite, and on PostgreSQL as one statement with the count as a subquery column; the hand-written app through `em.findAndCount`, Feathers through its paginated `find`); with `count=false` none of them counts. Every authenticated request verifies the JWT (HS256, `exp`, `iss`, `aud`) and reloads the user by `sub`; every write reads the post first when a policy needs its owner.',
    ...(results.records.some((r) => r.scenario === 'list_20_include')
      ? [
          "- List 20 with `include=owner,tags`: every contender answers each post of the page with its owner (the user's public fields) and its tags (ordered by id) embedded, and counts for `X-Total-Count`. The framework serves it with `include=` on its posts router (its users and tags routers serve the targets); the hand-written app with `em.findAndCount` and `populate: ['owner', 'tags']` (MikroORM's default `balanced` strategy: the owner joined, the tags by a second query); Feathers with an after hook that loads the page's owners and tags in two knex queries; the ceiling with two prepared statements.",
        ]
      : []),
    ...(has((m) => m.statements !== undefined)
      ? [
          "- SQL statements per request: counted inside each contender by wrappers around its database driver's calls (better-sqlite3's statement `run`/`get`/`all`/`iterate` and `exec`, or pg's `Client.query`), over ten requests sent one at a time after the measured run, once the count had stopped moving; `BEGIN` and `COMMIT` count. It sees every statement whatever the ORM does (a MikroORM logger or `onQuery` hook would make the framework's adapter step aside from its own SQL path).",
        ]
      : []),
    '- Event-loop delay: `monitorEventLoopDelay` (10 ms resolution) inside each contender, reset before each measured run and read after it.',
    '- Route sweep, big-table pages and the soak start processes of their own (pinned like the others) and run after the shared scenarios; the soak runs once per backend, in the first repeat.',
    has((m) => m.paired_auth_cost !== undefined)
      ? `- Auth + policy cost: the framework's authenticated GET against the same GET without a token, both served by its secure process (the unauthenticated twin under \`/open\`) and timed in four alternating rounds of slices a quarter of the scenario's duration each, after the scenario's own run; comparing the separately measured scenarios instead put minutes and another process between the two figures.${
          has((m) => m.paired_auth_cpu_cost !== undefined)
            ? " Below the goal, for reference: the same pair in the contender process's CPU time per request (`process.cpuUsage()` over each slice: every thread, user and system), which a load generator near its own limit cannot blur."
            : ''
        }`
      : '- Auth + policy cost: the authenticated GET scenario against the GET by id scenario (medians).',
    has((m) => m.exact_latency === 1)
      ? "- Latencies: autocannon's, in whole milliseconds, for unpaced loads. For paced loads (the login storm's foreground, the soak) each response's own time, from write to response, to the microsecond, without autocannon's coordinated-omission correction: autocannon 9 makes it with a 1 ms interval whatever the rate, which turns one slow response into one sample per millisecond, and it paces a connection in bursts (a second's share back to back), so there is no even schedule to correct against (`bench/lib/load.ts`)."
      : "- Latencies are autocannon's, in whole milliseconds; for paced loads (the login storm's foreground, the soak) with its coordinated-omission correction at a 1 ms interval, which counts one slow response once per millisecond (later runs measure paced loads exactly, see `bench/lib/load.ts`).",
    '',
  ];
}

/** The "Machine" section: hardware, kernel, runtime and package versions. */
export function machineSection(results: ResultsFile): string[] {
  const { machine } = results;
  return [
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
  ];
}
