/**
 * `runConformanceSuite` when `setup()` fails: one failure naming the cause, the cases skipped as
 * not run, and a last line that says why. It printed `0 passed, 0 skipped` before, then one failure
 * per case ("setup() did not complete"), the cause once, far above.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { conformanceCases } from '../../conformance/index.js';

describe('runConformanceSuite with a failing setup()', () => {
  // Without NODE_TEST_CONTEXT, which would make the child report to this runner, not print TAP.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const result = spawnSync(
    process.execPath,
    ['--test', '--test-reporter=tap', join(import.meta.dirname, 'failing-setup.js')],
    { encoding: 'utf8', timeout: 60_000, env },
  );
  const out = result.stdout;

  it('fails the run once, with the cause', () => {
    assert.notEqual(result.status, 0, 'the run fails');
    assert.match(out, /^# fail 1$/m, out);
    assert.match(out, /^# pass 0$/m, out);
    assert.match(out, /setup\(\) failed: Error: cannot connect to 127\.0\.0\.1:1 \(ECONNREFUSED\)/);
  });

  it('skips every case, saying why', () => {
    assert.match(out, new RegExp(`^# skipped ${conformanceCases.length}$`, 'm'), out);
    assert.match(out, /# SKIP not run: setup\(\) failed/);
    assert.doesNotMatch(out, /did not complete/);
  });

  it('ends with a summary naming the error', () => {
    const notRun = conformanceCases.length - 1;
    assert.ok(
      out.includes(
        `conformance unreachable: setup() failed (Error: cannot connect to 127.0.0.1:1 (ECONNREFUSED)); ${notRun} cases not run, 1 skipped`,
      ),
      out,
    );
  });
});
