/**
 * `runConformanceSuite` when `setup()` fails: one failure naming the cause, the cases skipped as
 * not run, and a last line that says why; and with `--test-name-pattern` picking one case, whose
 * set-up (a hook) still runs. It printed `0 passed, 0 skipped` before, then one failure
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
    // The first case reports the cause; the others, and the fixture's own skip, skip.
    assert.match(out, new RegExp(`^# skipped ${conformanceCases.length - 1}$`, 'm'), out);
    assert.match(out, /# SKIP not run: setup\(\) failed/);
    assert.doesNotMatch(out, /did not complete/);
  });

  it('ends with a summary naming the error', () => {
    const notRun = conformanceCases.length - 1;
    // The case that reported the cause did not run either.
    assert.ok(
      out.includes(
        `conformance unreachable: setup() failed (Error: cannot connect to 127.0.0.1:1 (ECONNREFUSED)); ${notRun} cases not run, 1 skipped`,
      ),
      out,
    );
  });
});

describe('runConformanceSuite picking one case with --test-name-pattern', () => {
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const result = spawnSync(
    process.execPath,
    [
      '--test',
      '--test-reporter=tap',
      '--test-name-pattern=malformed-json-400',
      join(import.meta.dirname, '..', 'adapters', 'memory', 'memory.conformance.test.js'),
    ],
    { encoding: 'utf8', timeout: 60_000, env },
  );
  const out = result.stdout;

  it('still runs setup(), then that case alone, which passes', () => {
    assert.equal(result.status, 0, out);
    assert.match(out, /^# pass 1$/m, out);
    assert.match(out, /^# fail 0$/m, out);
    assert.doesNotMatch(out, /not run: setup\(\)/);
  });
});
