/** `runConformanceSuite`: registers one `node:test` test per named case for one target. */
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

/** How long `setup()` and the two servers' start may take (a database created, a schema made). */
const SETUP_TIMEOUT_MS = 120_000;

/**
 * Registers the conformance suite for one target: a `describe` named `conformance <target>` whose
 * `before` hook runs `setup()` and starts the servers (also when `--test-name-pattern` picks one
 * case), then one `it` per case; the cases share that schema and stay independent by giving their
 * data a prefix of their own. Prints `conformance <name>: N passed, M skipped` (and failures) at
 * the end. When `setup()` fails, the first case that runs fails with the cause, the others are
 * skipped as not run, and the last line names the error.
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
 *   // An adapter without links() serves no collections (docs/adapters.md, "Relations"):
 *   skip: { 'include-one-to-many-ordered-by-key': 'no links(): the adapter serves no to-many relations' },
 * });
 */
export function runConformanceSuite(target: ConformanceTarget): void {
  checkSkips(target);
  const run = randomBytes(3).toString('hex');
  const counts = { passed: 0, failed: 0, skipped: 0 };
  let env: ConformanceEnvironment | undefined;
  let servers: RunningServers | undefined;
  // Set when setup() or the servers failed: the cases then skip, so the run fails once, with the
  // cause, instead of once per case with "setup() did not complete" and the cause far above.
  let setupError: unknown;

  describe(`conformance ${target.name}`, () => {
    after(async () => {
      try {
        await servers?.close();
      } finally {
        await env?.teardown();
        // A setup() the runner cancelled (its timeout) threw nothing this code saw.
        const unfinished = servers === undefined ? new Error('setup() did not finish') : undefined;
        console.log(summary(target.name, counts, setupError ?? unfinished));
      }
    });

    // A hook, not a test: `--test-name-pattern` picking one case still runs it. Its failure is kept
    // for the first case that runs to report, once.
    before(
      async () => {
        try {
          env = await target.setup();
          servers = await startServers(env, target.name);
        } catch (error) {
          setupError = error ?? new Error('setup() rejected');
        }
      },
      { timeout: SETUP_TIMEOUT_MS },
    );
    let reported = false;

    conformanceCases.forEach((name: ConformanceCaseName, index) => {
      const body = caseBodies[name];
      const title = `${name}: ${body.description}`;
      const reason = target.skip?.[name];
      if (reason !== undefined) {
        counts.skipped++;
        it(title, { skip: reason });
        return;
      }
      it(title, { timeout: 60_000 }, async (t) => {
        if (setupError !== undefined && !reported) {
          reported = true;
          throw new Error(`Conformance target ${target.name}: setup() failed: ${messageOf(setupError)}`, {
            cause: setupError,
          });
        }
        if (env === undefined || servers === undefined) {
          t.skip(setupError === undefined ? 'not run: setup() did not finish' : 'not run: setup() failed');
          return;
        }
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

/** The error's own words (`Error: connect ECONNREFUSED 127.0.0.1:5432`), without its stack. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * The last line of a run: `conformance <name>: N passed, M skipped[, K failed]`, or, when setup()
 * failed, that line's cause and how many cases did not run.
 */
function summary(
  name: string,
  counts: { readonly passed: number; readonly failed: number; readonly skipped: number },
  setupError: unknown,
): string {
  if (setupError !== undefined) {
    const notRun = conformanceCases.length - counts.skipped;
    return `conformance ${name}: setup() failed (${messageOf(setupError)}); ${notRun} cases not run, ${counts.skipped} skipped`;
  }
  const failed = counts.failed > 0 ? `, ${counts.failed} failed` : '';
  return `conformance ${name}: ${counts.passed} passed, ${counts.skipped} skipped${failed}`;
}
