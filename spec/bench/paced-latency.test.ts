import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pacedLatency, ResponseTimes } from '../../bench/lib/load.js';

describe('latency of a paced bench load', () => {
  it('keeps fractions of a millisecond and reads percentiles by nearest rank', () => {
    const times = Array.from({ length: 100 }, (_, i) => (i + 1) / 10); // 0.1 … 10.0 ms
    const latency = pacedLatency(times);
    assert.equal(latency.p50, 5);
    assert.equal(latency.p90, 9);
    assert.equal(latency.p99, 9.9);
    assert.equal(latency.max, 10);
    assert.equal(latency.mean, 5.05);
  });

  it('counts a slow response once, whatever the pace', () => {
    const times = [...Array.from({ length: 999 }, () => 0.5), 20];
    // autocannon's 1 ms "expected interval" would add 19 more samples for the 20 ms one.
    assert.equal(pacedLatency(times).p99, 0.5);
    assert.equal(pacedLatency(times).max, 20);
  });

  it('is not thrown off by rounding in the rank', () => {
    // 0.9 × 70 is 63.00000000000001 in floating point: the 63rd time, not the 64th.
    const times = Array.from({ length: 70 }, (_, i) => i + 1);
    assert.equal(pacedLatency(times).p90, 63);
  });

  it('collects many times in order of arrival and sorts them numerically', () => {
    const times = new ResponseTimes();
    for (let i = 100_000; i >= 1; i--) times.add(i / 1000);
    const latency = pacedLatency(times);
    assert.equal(latency.max, 100);
    assert.equal(latency.p50, 50);
    assert.equal(latency.p99, 99);
  });

  it('answers zeros when nothing came back', () => {
    assert.deepEqual(pacedLatency([]), { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 });
  });
});
