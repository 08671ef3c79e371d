/** The scenarios of the original suite: throughput per route, the login storm and idle memory. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dataset } from '../dataset.js';
import { closeAll, openIdleConnections } from '../idle-connections.js';
import { type RequestShape, runLoad } from '../load.js';
import { bearer, loadMetrics, measure, pick, randomInt } from '../measure.js';
import { pairedRounds } from '../paired.js';
import { INCLUDE_PATH } from '../probes.js';
import type { ScenarioContext, SharedScenario } from '../scenario-types.js';

// Logins are bcrypt-bound (~70 ms each on one core): more connections only lengthen the queue.
const LOGIN_CONNECTIONS = 8;
// The login storm's foreground: light GET traffic whose latency is compared with and without the storm.
const STORM_GET_RATE = 100;
const STORM_GET_CONNECTIONS = 4;
const STORM_LOGIN_CONNECTIONS = 16;
const STORM_SETTLE_SECONDS = 2;

/** `POST /login` as a random seeded user. */
export function loginShape(data: Dataset): RequestShape {
  return {
    method: 'POST',
    path: '/login',
    body: () => {
      const id = randomInt(data.users);
      return JSON.stringify({ username: data.username(id), password: data.password(id) });
    },
  };
}

/** The parts of a scenario that measures one request shape, which its paired rounds repeat. */
function measured(shape: (ctx: ScenarioContext) => RequestShape): Pick<SharedScenario, 'paired' | 'run'> {
  return { paired: shape, run: (ctx) => measure(ctx.proc, ctx.timing, shape(ctx)) };
}

/** The scenarios run on the processes shared by a profile, in run order. */
export const SHARED_SCENARIOS: readonly SharedScenario[] = [
  {
    name: 'get_by_id',
    title: 'GET /posts/:id (random ids)',
    profile: 'open',
    ...measured((ctx) => ({ method: 'GET', path: () => `/posts/${randomInt(ctx.data.posts)}` })),
  },
  {
    name: 'list_20',
    title: 'GET /posts?limit=20',
    profile: 'open',
    ...measured(() => ({ method: 'GET', path: '/posts?limit=20' })),
  },
  {
    name: 'list_20_nocount',
    title: 'GET /posts?limit=20&count=false',
    profile: 'open',
    ...measured(() => ({ method: 'GET', path: '/posts?limit=20&count=false' })),
  },
  {
    // Issue 17: each post with its owner and its tags embedded, in a fixed number of statements.
    name: 'list_20_include',
    title: `GET ${INCLUDE_PATH}`,
    profile: 'open',
    ...measured(() => ({ method: 'GET', path: INCLUDE_PATH })),
  },
  {
    name: 'login',
    title: 'POST /login (bcrypt cost 10)',
    profile: 'open',
    run: (ctx) => measure(ctx.proc, ctx.timing, loginShape(ctx.data), LOGIN_CONNECTIONS),
  },
  {
    name: 'login_storm',
    title: `GET p99 at ${STORM_GET_RATE} req/s, idle vs during a login storm`,
    profile: 'open',
    async run(ctx) {
      const get: RequestShape = { method: 'GET', path: () => `/posts/${randomInt(ctx.data.posts)}` };
      const foreground = {
        connections: STORM_GET_CONNECTIONS,
        durationSeconds: ctx.timing.stormPhaseSeconds,
        overallRate: STORM_GET_RATE,
      };
      // A process that has not run these routes yet compiles them during the baseline (on the one
      // core it is pinned to), so both are warmed first, as every other scenario does.
      if (ctx.timing.warmupSeconds > 0) {
        const warmup = { durationSeconds: ctx.timing.warmupSeconds };
        await Promise.all([
          runLoad(ctx.proc.baseUrl, get, { ...warmup, connections: ctx.timing.connections }),
          runLoad(ctx.proc.baseUrl, loginShape(ctx.data), { ...warmup, connections: LOGIN_CONNECTIONS }),
        ]);
      }
      // Logins still queued from the warm-up or the scenario before (bcrypt, ~50 ms each) would land
      // in the idle baseline: an unmeasured stretch of the same light load lets them drain first.
      await runLoad(ctx.proc.baseUrl, get, {
        ...foreground,
        durationSeconds: Math.min(STORM_SETTLE_SECONDS, ctx.timing.stormPhaseSeconds),
      });
      const idle = await runLoad(ctx.proc.baseUrl, get, foreground);
      await ctx.proc.resetStats();
      const [storm, logins] = await Promise.all([
        runLoad(ctx.proc.baseUrl, get, foreground),
        runLoad(ctx.proc.baseUrl, loginShape(ctx.data), {
          connections: STORM_LOGIN_CONNECTIONS,
          durationSeconds: ctx.timing.stormPhaseSeconds,
        }),
      ]);
      const stats = await ctx.proc.stats();
      return {
        ...loadMetrics(idle, 'idle_'),
        ...loadMetrics(storm, 'storm_'),
        ...loadMetrics(logins, 'login_'),
        p99_ratio: idle.latency.p99 > 0 ? storm.latency.p99 / idle.latency.p99 : Number.NaN,
        // Paced loads are timed per response to the microsecond (load.ts); older results files lack this.
        exact_latency: 1,
        eld_p50: stats.eld.p50,
        eld_p99: stats.eld.p99,
        eld_max: stats.eld.max,
      };
    },
  },
  {
    name: 'auth_get',
    title: 'GET /posts/:id with token and ownership policy',
    profile: 'secure',
    async run(ctx) {
      const owned = ctx.data.postsOwnedBy(1);
      const secured: RequestShape = {
        method: 'GET',
        path: () => `/posts/${pick(owned)}`,
        headers: bearer(ctx.tokens.owner),
      };
      const metrics = await measure(ctx.proc, ctx.timing, secured);
      if (ctx.contender !== 'framework') return metrics;
      // The goal's auth cost compares this GET with the same GET without auth. Measured as separate
      // scenarios they are minutes apart in separate processes, and on a machine whose speed drifts
      // the ratio follows the drift: the framework's secure process also serves the same reads
      // without a token under /open, and the two are timed here in alternating slices.
      const open: RequestShape = { method: 'GET', path: () => `/open/posts/${pick(owned)}` };
      // Open then secured in every round, on the one process.
      const sums = await pairedRounds(
        [
          { name: 'open', proc: ctx.proc, shape: open },
          { name: 'secured', proc: ctx.proc, shape: secured },
        ],
        ctx.timing.durationSeconds,
        ctx.timing.connections,
        false,
      );
      const kinds = ['open', 'secured'] as const;
      // A failing slice (a 401 answers fast) would fake the figure: its answers count with the scenario's.
      let non2xx = metrics.non2xx ?? 0;
      let errors = metrics.errors ?? 0;
      for (const kind of kinds) {
        non2xx += sums.get(kind)?.non2xx ?? 0;
        errors += sums.get(kind)?.errors ?? 0;
      }
      const rpsOf = (kind: (typeof kinds)[number]): number => sums.get(kind)?.rps ?? 0;
      const cpuOf = (kind: (typeof kinds)[number]): number => {
        const sum = sums.get(kind);
        return sum === undefined || sum.requests === 0 ? Number.NaN : sum.cpuMicros / sum.requests;
      };
      const costOf = (auth: number, open: number): number => (open > 0 ? 1 - auth / open : Number.NaN);
      return {
        ...metrics,
        non2xx,
        errors,
        paired_open_rps: rpsOf('open'),
        paired_auth_rps: rpsOf('secured'),
        // The share of the unauthenticated GET's throughput the token and the policy cost, this repeat.
        paired_auth_cost: costOf(rpsOf('secured'), rpsOf('open')),
        // The same in the process's CPU time per request, which a load generator near its own limit
        // cannot blur: how much more each authenticated GET costs the server.
        paired_open_cpu_us: cpuOf('open'),
        paired_auth_cpu_us: cpuOf('secured'),
        paired_auth_cpu_cost: cpuOf('secured') / cpuOf('open') - 1,
      };
    },
  },
  {
    name: 'create',
    title: 'POST /posts',
    profile: 'secure',
    ...measured((ctx) => ({
      method: 'POST',
      path: '/posts',
      body: JSON.stringify({ title: 'Benchmark post', body: 'Written by the load generator.' }),
      headers: bearer(ctx.tokens.owner),
    })),
  },
  {
    name: 'update',
    title: 'PUT /posts/:id (owner)',
    profile: 'secure',
    ...measured((ctx) => {
      const owned = ctx.data.postsOwnedBy(1);
      let n = 0;
      return {
        method: 'PUT',
        path: () => `/posts/${pick(owned)}`,
        body: () =>
          JSON.stringify({ title: `Updated title ${++n % 1000}`, body: 'Updated by the load generator.' }),
        headers: bearer(ctx.tokens.owner),
      };
    }),
  },
  {
    name: 'delete',
    title: 'DELETE /posts/:id (owner)',
    profile: 'secure',
    async run(ctx) {
      // Every DELETE needs a row of its own: insert more than the contender can delete in the run.
      // The hint is the contender's create rate, and a delete is cheaper: on SQLite deletes ran up to
      // 2.9× as fast as creates (ceiling 25.8k vs 8.8k req/s), and twice the hint ran out of rows.
      const seconds = ctx.timing.warmupSeconds + ctx.timing.durationSeconds;
      const rate = Math.max(ctx.writeRateHint ?? 20_000, 2_000);
      const rows = Math.ceil(rate * seconds * 5) + 1000;
      const { first, last } = await ctx.db.insertPosts(ctx.dbUrl, 1, rows);
      let next = first;
      const metrics = await measure(ctx.proc, ctx.timing, {
        method: 'DELETE',
        path: () => `/posts/${next <= last ? next++ : last + 1}`,
        headers: bearer(ctx.tokens.owner),
      });
      return { ...metrics, rows_exhausted: next > last ? 1 : 0 };
    },
  },
  {
    name: 'memory',
    title: `RSS idle and with idle keep-alive connections`,
    profile: 'fresh',
    async run(ctx) {
      // Load every route once so lazily compiled code is in, then let the process settle.
      await runLoad(
        ctx.proc.baseUrl,
        { method: 'GET', path: () => `/posts/${randomInt(ctx.data.posts)}` },
        {
          connections: 8,
          durationSeconds: Math.min(1, ctx.timing.durationSeconds / 2),
        },
      );
      await sleep(ctx.timing.settleSeconds * 1000);
      const idle = ctx.proc.rss();
      const sockets = await openIdleConnections(ctx.proc.port, '/posts/1', ctx.timing.idleConnections);
      await sleep(ctx.timing.settleSeconds * 500);
      const connected = ctx.proc.rss();
      closeAll(sockets);
      return { idle_rss: idle, connected_rss: connected, connections: sockets.length };
    },
  },
];
