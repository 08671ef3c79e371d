import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BcryptHasher } from '../../../lib/auth/hashers.js';
import { HashingGate } from '../../../lib/auth/hashing-gate.js';
import { Passwords } from '../../../lib/auth/passwords.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('HashingGate', () => {
  it('runs at most `limit` tasks at once and starts the queued ones in arrival order', async () => {
    const gate = new HashingGate(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const tasks = [0, 1, 2, 3, 4].map((n) =>
      gate.run(async () => {
        started.push(n);
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return n;
      }),
    );
    await tick();
    assert.deepEqual(started, [0, 1]);
    assert.equal(gate.waiting, 3);
    while (releases.length > 0) {
      releases.shift()?.();
      await tick();
      await tick();
    }
    assert.deepEqual(await Promise.all(tasks), [0, 1, 2, 3, 4]);
    assert.deepEqual(started, [0, 1, 2, 3, 4]);
    assert.equal(peak, 2);
  });

  it('frees the slot of a task that fails', async () => {
    const gate = new HashingGate(1);
    await assert.rejects(
      gate.run(async () => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(await gate.run(async () => 'next'), 'next');
  });

  it('limits the hashes and verifications of Passwords', async () => {
    let running = 0;
    let peak = 0;
    const inner = new BcryptHasher({ cost: 4 });
    const counting = Object.assign(Object.create(inner) as BcryptHasher, {
      async hash(password: string) {
        running++;
        peak = Math.max(peak, running);
        try {
          return await inner.hash(password);
        } finally {
          running--;
        }
      },
    });
    const passwords = new Passwords(counting, new HashingGate(1));
    const hashes = await Promise.all(
      ['one-password', 'two-password', 'three-password'].map((p) => passwords.hash(p)),
    );
    assert.equal(peak, 1);
    assert.equal((await passwords.check('two-password', hashes[1])).ok, true);
  });
});
