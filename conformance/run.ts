/** `runConformanceSuite`: registers one `node:test` test per named case for one target. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { caseBodies } from './cases/index.js';
import type { CaseContext } from './context.js';
import { type ConformanceCaseName, conformanceCases } from './names.js';
import { type RunningServers, startServers } from './servers.js';
import type { ConformanceEnvironment, ConformanceTarget } from './types.js';

/** Refuses skips without a reason and skips of cases that do not exist (typos would hide cases). */
function checkSkips(target: ConformanceTarget): void {
  for (const [name, reason] of Object.entries(target.skip ?? {})) {
    if (!(conformanceCases as readonly string[]).includes(name)) {
      throw new Error(`Conformance target ${target.name}: cannot skip unknown case "${name}".`);
    }
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw new Error(`Conformance target ${target.name}: skipping "${name}" needs a reason.`);
    }
  }
}

/**
 * Registers the conformance suite for one target: a `describe` named `conformance <target>` with
 * one `it` per case. `setup()` runs once before the first case; the cases share that schema and
 * stay independent by giving their data a prefix of their own. Prints
 * `conformance <name>: N passed, M skipped` (and failures) at the end.
 *
 * @example
 * // spec/my-adapter.conformance.test.ts of an adapter package, run with `node --test`
 * import { runConformanceSuite } from 'koa-model-api/conformance';
 * runConformanceSuite({
 *   name: 'my-orm:sqlite',
 *   async setup() {
 *     const adapter = await MyAdapter.connect({ url: 'sqlite::memory:', entities: [Gadget, Person, ...] });
 *     return { adapter, models: { Gadget, Person, ... }, teardown: () => adapter.close() };
 *   },
 *   skip: { 'list-filter-like-case-sensitive': 'SQLite LIKE ignores ASCII case' },
 * });
 */
export function runConformanceSuite(target: ConformanceTarget): void {
  checkSkips(target);
  const run = randomBytes(3).toString('hex');
  const counts = { passed: 0, failed: 0, skipped: 0 };
  let env: ConformanceEnvironment | undefined;
  let servers: RunningServers | undefined;

  describe(`conformance ${target.name}`, () => {
    before(async () => {
      env = await target.setup();
      servers = await startServers(env, target.name);
    });

    after(async () => {
      try {
        await servers?.close();
      } finally {
        await env?.teardown();
        const failed = counts.failed > 0 ? `, ${counts.failed} failed` : '';
        console.log(
          `conformance ${target.name}: ${counts.passed} passed, ${counts.skipped} skipped${failed}`,
        );
      }
    });

    conformanceCases.forEach((name: ConformanceCaseName, index) => {
      const body = caseBodies[name];
      const title = `${name}: ${body.description}`;
      const reason = target.skip?.[name];
      if (reason !== undefined) {
        counts.skipped++;
        it(title, { skip: reason });
        return;
      }
      it(title, { timeout: 60_000 }, async () => {
        assert.ok(env !== undefined && servers !== undefined, 'setup() did not complete');
        const ctx: CaseContext = {
          http: servers.http,
          strictHttp: servers.strictHttp,
          models: env.models,
          adapter: env.adapter,
          prefix: `c${run}x${index}`,
        };
        try {
          await body.run(ctx);
          counts.passed++;
        } catch (error) {
          counts.failed++;
          throw error;
        }
      });
    });
  });
}
