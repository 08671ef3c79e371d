/**
 * A conformance run whose `setup()` cannot connect, run by run.test.ts in a child process (its
 * failure must not fail the parent's run). Not a test file itself: no `.test` in its name.
 */
import { runConformanceSuite } from '../../conformance/index.js';

runConformanceSuite({
  name: 'unreachable',
  async setup() {
    throw new Error('cannot connect to 127.0.0.1:1 (ECONNREFUSED)');
  },
  skip: { 'unknown-route-404': 'skipped by the fixture, to show skips counted apart' },
});
