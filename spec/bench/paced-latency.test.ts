import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pacedInterval, pacedLatency } from '../../bench/lib/load.js';

describe('latency of a paced bench load', () => {
  it('gives each connection its share of the rate', () => {
    assert.equal(pacedInterval(4, 100), 40);
    // autocannon never opens more connections than requests per second.
    assert.equal(pacedInterval(50, 10), 1000);
  });

  it('keeps fractions of a millisecond and reads percentiles by nearest rank', () => {
    const times = Array.from({ length: 100 }, (_, i) => (i + 1) / 10); // 0.1 … 10.0 ms
    const latency = pacedLatency(times, 40);
    assert.equal(latency.p50, 5);
    assert.equal(latency.p90, 9);
    assert.equal(latency.p99, 9.9);
    assert.equal(latency.max, 10);
    assert.equal(latency.mean, 5.05);
  });

  it('counts the requests a slow response held back, at the real interval only', () => {
    const fast = Array.from({ length: 999 }, () => 0.5);
    // One 20 ms stall on a 40 ms interval held nothing back: one sample, not twenty.
    assert.equal(pacedLatency([...fast, 20], 40).p99, 0.5);
    // A 130 ms stall held back the next three requests of its connection (90, 50 and 10 ms late).
    const held = pacedLatency([0.5, 130], 40);
    assert.equal(held.max, 130);
    assert.equal(held.mean, round((0.5 + 130 + 90 + 50 + 10) / 5));
  });

  it('answers zeros when nothing came back', () => {
    assert.deepEqual(pacedLatency([], 40), { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 });
  });
});

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
