/**
 * The soak: five minutes of a mixed authenticated load (read, list, create, update) at 70 % of what
 * the contender sustains, with RSS sampled every few seconds. The goal is on the growth after the
 * first minute, once caches, pools and JIT have settled. RSS follows the high-water mark of V8's
 * heap (freed pages stay resident), and V8 raises the old generation's limit over its first full
 * collections, later at a low request rate: so the live heap after each full collection is recorded
 * too, which a leak grows and a warm-up does not.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Dataset } from '../dataset.js';
import { type RequestShape, runLoad } from '../load.js';
import { bearer, loadMetrics, pick } from '../measure.js';
import { login } from '../probes.js';
import type { OwnScenario } from '../scenario-types.js';

const LOAD_SHARE = 0.7;
const SAMPLE_SECONDS = 5;
const SETTLE_SECONDS = 60;

/** The soak's request mix, sent in turn on every connection. */
function soakMix(data: Dataset, token: string): RequestShape[] {
  const owned = data.postsOwnedBy(1);
  const headers = bearer(token);
  let n = 0;
  return [
    { method: 'GET', path: () => `/posts/${pick(owned)}`, headers },
    { method: 'GET', path: '/posts?limit=20&count=false', headers },
    {
      method: 'POST',
      path: '/posts',
      body: JSON.stringify({ title: 'Soak post', body: 'Soaked.' }),
      headers,
    },
    {
      method: 'PUT',
      path: () => `/posts/${pick(owned)}`,
      body: () => JSON.stringify({ title: `Soak update ${++n % 1000}`, body: null }),
      headers,
    },
  ];
}

export const soak: OwnScenario = {
  name: 'soak',
  title: 'RSS over a soak at 70 % load (read, list, create, update)',
  profile: 'own',
  contenders: ['framework'],
  once: true,
  async run(ctx) {
    const proc = await ctx.launch({ profile: 'secure' });
    const tokens = await login(proc.baseUrl, ctx.data);
    const mix = soakMix(ctx.data, tokens.owner);
    const probeSeconds = Math.min(5, Math.max(1, ctx.settings.soakSeconds / 10));
    const capacity = await runLoad(proc.baseUrl, mix, {
      connections: ctx.timing.connections,
      durationSeconds: probeSeconds,
    });
    const rate = Math.max(1, Math.round(capacity.rps * LOAD_SHARE));
    // Short soaks (tests of the bench itself) settle for a fifth of their length instead of a minute.
    const settle = Math.min(SETTLE_SECONDS, ctx.settings.soakSeconds / 5);
    const samples: {
      at: number;
      rss: number;
      heap: number;
      external: number;
      majorGcs: number;
      live: number;
    }[] = [];
    const sample = async () => {
      const stats = await proc.stats();
      samples.push({
        at: (Date.now() - started) / 1000,
        rss: proc.rss(),
        heap: stats.heapUsed,
        external: stats.external,
        majorGcs: stats.majorGcs - gcsBefore,
        live: stats.liveHeap,
      });
    };
    await proc.resetStats();
    const gcsBefore = (await proc.stats()).majorGcs;
    const started = Date.now();
    let done = false;
    const sampler = (async () => {
      while (!done) {
        await sample();
        await sleep(Math.min(SAMPLE_SECONDS, ctx.settings.soakSeconds / 10) * 1000);
      }
    })();
    const result = await runLoad(proc.baseUrl, mix, {
      connections: ctx.timing.connections,
      durationSeconds: ctx.settings.soakSeconds,
      overallRate: rate,
    });
    done = true;
    await sampler;
    await sample();
    const stats = await proc.stats();
    const afterSettle = samples.find((sample) => sample.at >= settle) ?? samples[0];
    const last = samples[samples.length - 1];
    const first = samples[0];
    if (afterSettle === undefined || last === undefined || first === undefined)
      throw new Error('soak: no RSS sample');
    return {
      ...loadMetrics(result),
      exact_latency: 1,
      capacity_rps: capacity.rps,
      target_rps: rate,
      seconds: ctx.settings.soakSeconds,
      settle_seconds: settle,
      major_gcs: last.majorGcs,
      rss_start: first.rss,
      rss_settled: afterSettle.rss,
      rss_end: last.rss,
      rss_max: Math.max(...samples.map((sample) => sample.rss)),
      growth: (last.rss - afterSettle.rss) / afterSettle.rss,
      heap_settled: afterSettle.heap,
      heap_end: last.heap,
      heap_max: Math.max(...samples.map((s) => s.heap)),
      heap_growth: (last.heap - afterSettle.heap) / afterSettle.heap,
      live_heap_settled: afterSettle.live,
      live_heap_end: last.live,
      live_heap_growth: afterSettle.live > 0 ? (last.live - afterSettle.live) / afterSettle.live : Number.NaN,
      external_settled: afterSettle.external,
      external_end: last.external,
      eld_p50: stats.eld.p50,
      eld_p99: stats.eld.p99,
      eld_max: stats.eld.max,
    };
  },
};
