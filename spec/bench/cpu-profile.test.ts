/**
 * Reading contenders' CPU profiles (bench/lib/cpu-profile.ts): the measured load is the busy stretch
 * of a profile that spans the process's life, and self time is grouped by where the code comes from.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { busiestWindow, type CpuProfile, groupOf, summarize } from '../../bench/lib/cpu-profile.js';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

/** A profile sampled every 100 ms; `plan[s]` lists the node ids of second `s`'s ten samples. */
function profileOf(plan: readonly (readonly number[])[]): CpuProfile {
  const samples = plan.flat();
  return {
    nodes: [
      { id: 1, callFrame: frame('(idle)') },
      { id: 2, callFrame: frame('findOne', 'file:///app/node_modules/@mikro-orm/core/EntityManager.js') },
      { id: 3, callFrame: frame('list', 'file:///app/dist/adapters/mikro-orm/adapter.js') },
    ],
    startTime: 0,
    samples,
    timeDeltas: samples.map((_, i) => (i === 0 ? 50_000 : 100_000)),
  };
}

const idle = Array(10).fill(1);
const busy = [2, 2, 2, 2, 2, 2, 3, 3, 3, 1];

describe('bench CPU profiles', () => {
  it('finds the longest busy stretch and sums self time there only', () => {
    // Start-up busy for a second, idle, the load for three seconds, idle again.
    const profile = profileOf([busy, idle, busy, busy, busy, idle, idle]);
    assert.deepEqual(busiestWindow(profile), { from: 2, to: 5 });
    const summary = summarize(profile);
    assert.equal(summary.samples, 30);
    assert.deepEqual(summary.byGroup, [
      ['@mikro-orm/core', 18],
      ['kma: adapters/', 9],
      ['(idle)', 3],
    ]);
    assert.equal(summary.byFunction[0]?.[0], 'findOne core/EntityManager.js:1');
  });

  it('groups code by package, by the framework folder, or as Node or native', () => {
    assert.equal(groupOf('file:///x/node_modules/pg/lib/client.js', 'query'), 'pg');
    assert.equal(groupOf('file:///x/dist/lib/crud/crud-handlers.js', 'read'), 'kma: lib/');
    assert.equal(groupOf('node:internal/timers', 'insert'), 'node:internal');
    assert.equal(groupOf('', 'writev'), '(native)');
    assert.equal(groupOf('', '(garbage collector)'), '(garbage collector)');
  });
});
