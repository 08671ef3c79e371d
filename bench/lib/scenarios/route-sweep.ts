/**
 * The route sweep: GET by id on `/posts/:id` with 1, 50 and 200 registered models. The extra models
 * (`sweep_<n>`, each with its five routes and a table of its own) are registered before posts, so
 * a router that matches routes one by one meets every one of them on each request.
 */
import { measure, prefixed, randomInt } from '../measure.js';
import type { Metrics, OwnScenario } from '../scenario-types.js';

/** The resource path of extra model `n` (1-based); the contenders use the same rule. */
export const sweepPath = (n: number): string => `/sweep_${n}`;

export const routeSweep: OwnScenario = {
  name: 'route_sweep',
  title: 'GET /posts/:id with 1, 50 and 200 registered models',
  profile: 'own',
  contenders: ['framework', 'handwritten'],
  async run(ctx) {
    const metrics: Metrics = {};
    const most = Math.max(...ctx.settings.sweepModels);
    await ctx.db.createSweepTables(ctx.dbUrl, most - 1);
    for (const models of ctx.settings.sweepModels) {
      const proc = await ctx.launch({ profile: 'open', env: { BENCH_MODELS: String(models) } });
      try {
        // Every extra model answers on its routes: an empty table gives 404 for a record.
        if (models > 1) {
          const response = await fetch(`${proc.baseUrl}${sweepPath(models - 1)}/1`);
          if (response.status !== 404)
            throw new Error(`route sweep: ${sweepPath(models - 1)}/1 answered ${response.status}, not 404`);
        }
        const result = await measure(proc, ctx.timing, {
          method: 'GET',
          path: () => `/posts/${randomInt(ctx.data.posts)}`,
        });
        Object.assign(metrics, prefixed(`m${models}_`, result));
      } finally {
        await proc.stop();
      }
    }
    return metrics;
  },
};
