import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as argon2 from '@node-rs/argon2';
import * as bcrypt from '@node-rs/bcrypt';
import { Argon2idHasher, BcryptHasher } from '../../../lib/auth/hashers.js';
import { HashingThreads, sharedHashingThreads } from '../../../lib/auth/hashing-threads.js';
import { Passwords } from '../../../lib/auth/passwords.js';
import { ApiError } from '../../../lib/errors.js';

const run = promisify(execFile);

/** The nice value of every thread of this process, from /proc (Linux). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').flatMap((tid) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      return []; // the thread ended between the listing and the read
    }
    // Fields after the command name, which sits in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [Number(fields[16])];
  });
}

describe('HashingThreads', () => {
  const pools: HashingThreads[] = [];
  const pool = (options: ConstructorParameters<typeof HashingThreads>[0]) => {
    const threads = new HashingThreads(options);
    pools.push(threads);
    return threads;
  };
  after(async () => {
    await Promise.all(pools.map((threads) => threads.close()));
  });

  it('makes hashes the libraries verify, and verifies theirs', async () => {
    const threads = pool({ size: 1 });
    const bcryptHasher = new BcryptHasher({ cost: 4, threads });
    const made = await bcryptHasher.hash('correct horse');
    assert.match(made, /^\$2b\$04\$/);
    assert.equal(bcrypt.verifySync('correct horse', made), true);
    const theirs = bcrypt.hashSync('battery staple', { cost: 4 });
    assert.equal(await bcryptHasher.verify('battery staple', theirs), true);
    assert.equal(await bcryptHasher.verify('wrong password', theirs), false);

    const argonHasher = new Argon2idHasher({ memoryCost: 1024, timeCost: 1, threads });
    const argonMade = await argonHasher.hash('correct horse');
    assert.match(argonMade, /^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    assert.equal(argon2.verifySync(argonMade, 'correct horse'), true);
    assert.equal(await argonHasher.verify('wrong password', argonMade), false);
  });

  it('answers false for a malformed stored hash and rejects a hash it cannot make', async () => {
    const threads = pool({ size: 1 });
    assert.equal(await threads.run({ op: 'bcrypt.verify', password: 'pw', stored: '$2b$04$short' }), false);
    assert.equal(
      await threads.run({ op: 'argon2id.verify', password: 'pw', stored: '$argon2id$bad' }),
      false,
    );
    await assert.rejects(threads.run({ op: 'bcrypt.hash', password: 'pw', cost: 99 }), Error);
    // The thread survives a failed job.
    assert.equal(typeof (await threads.run({ op: 'bcrypt.hash', password: 'pw', cost: 4 })), 'string');
    assert.equal(threads.threads, 1);
  });

  it('runs at most `size` jobs at once and queues the rest', async () => {
    const threads = pool({ size: 2 });
    const jobs = [0, 1, 2, 3, 4, 5].map((n) =>
      threads.run({ op: 'bcrypt.hash', password: `password ${n}`, cost: 6 }),
    );
    assert.equal(threads.threads, 2);
    assert.equal(threads.waiting, 4);
    assert.equal((await Promise.all(jobs)).length, 6);
    assert.equal(threads.threads, 2);
    assert.equal(threads.waiting, 0);
  });

  it('refuses a job with 503 and Retry-After when the queue is full, and takes jobs again once it drains', async () => {
    const threads = pool({ size: 1, maxQueue: 2 });
    const accepted = [0, 1, 2].map((n) =>
      threads.run({ op: 'bcrypt.hash', password: `password ${n}`, cost: 8 }),
    );
    const refused = await threads.run({ op: 'bcrypt.hash', password: 'one too many', cost: 4 }).then(
      () => undefined,
      (error: unknown) => error,
    );
    assert.ok(refused instanceof ApiError);
    assert.equal(refused.status, 503);
    assert.equal(refused.headers['Retry-After'], '1');
    assert.equal((await Promise.all(accepted)).length, 3);
    assert.equal(typeof (await threads.run({ op: 'bcrypt.hash', password: 'later', cost: 4 })), 'string');
  });

  it("bounds the jobs on libuv's pool the same way (size 0)", async () => {
    const threads = pool({ size: 0, maxQueue: 1 });
    const accepted = [0, 1].map((n) =>
      threads.run({ op: 'bcrypt.hash', password: `password ${n}`, cost: 8 }),
    );
    await assert.rejects(threads.run({ op: 'bcrypt.hash', password: 'one too many', cost: 4 }), (error) => {
      return error instanceof ApiError && error.status === 503;
    });
    assert.equal((await Promise.all(accepted)).length, 2);
  });

  it('runs queued jobs in arrival order', async () => {
    const threads = pool({ size: 1 });
    const finished: number[] = [];
    await Promise.all(
      [0, 1, 2, 3].map((n) =>
        threads.run({ op: 'bcrypt.hash', password: `password ${n}`, cost: 4 }).then(() => finished.push(n)),
      ),
    );
    assert.deepEqual(finished, [0, 1, 2, 3]);
  });

  it('stops a thread after idleMs without work and starts a fresh one for the next job', async () => {
    const threads = pool({ size: 1, idleMs: 50 });
    await threads.run({ op: 'bcrypt.hash', password: 'password', cost: 4 });
    assert.equal(threads.threads, 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(threads.threads, 0);
    assert.equal(await threads.run({ op: 'bcrypt.verify', password: 'pw', stored: 'x' }), false);
    assert.equal(threads.threads, 1);
  });

  it('rejects the jobs still queued when closed', async () => {
    const threads = pool({ size: 1 });
    const first = threads.run({ op: 'bcrypt.hash', password: 'password', cost: 8 });
    const queued = threads.run({ op: 'bcrypt.hash', password: 'password', cost: 4 });
    const closing = threads.close();
    await assert.rejects(queued);
    await assert.rejects(first);
    await closing;
    assert.equal(threads.threads, 0);
  });

  it('lowers the priority of its threads only, on Linux', {
    skip: process.platform !== 'linux',
  }, async () => {
    const mainNice = getPriority();
    const before = threadNices().filter((nice) => nice === 13).length;
    const threads = pool({ size: 1, nice: 13 });
    await threads.run({ op: 'bcrypt.hash', password: 'password', cost: 4 });
    assert.equal(threadNices().filter((nice) => nice === 13).length, before + 1);
    assert.equal(getPriority(), mainNice);
  });

  it("falls back to libuv's pool, with one warning, when its script cannot run", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code === 'KMA_HASHING_THREADS') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      const threads = pool({ size: 2, workerUrl: new URL('./no-such-hashing-worker.js', import.meta.url) });
      const [first, second] = await Promise.all([
        threads.run({ op: 'bcrypt.hash', password: 'password one', cost: 4 }),
        threads.run({ op: 'bcrypt.hash', password: 'password two', cost: 4 }),
      ]);
      assert.equal(bcrypt.verifySync('password one', String(first)), true);
      assert.equal(bcrypt.verifySync('password two', String(second)), true);
      assert.ok(threads.unavailable instanceof Error);
      assert.equal(
        await threads.run({ op: 'bcrypt.verify', password: 'password two', stored: String(second) }),
        true,
      );
      assert.equal(threads.threads, 0);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(warnings.length, 1);
      assert.match(warnings[0] ?? '', /could not start/);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('makes the start-up dummy hash without starting a thread; logins start one', async () => {
    const shared = sharedHashingThreads();
    try {
      const passwords = new Passwords(new BcryptHasher({ cost: 4 }));
      await passwords.warmUp();
      assert.equal(shared.threads, 0);
      assert.equal((await passwords.check('any password', undefined)).ok, false);
      assert.equal(shared.threads, 1);
      const stored = await passwords.hash('a password');
      assert.equal((await passwords.check('a password', stored)).ok, true);
      // A hasher given threads of its own makes its dummy hash on libuv's pool too.
      const own = pool({ size: 1 });
      await new Passwords(new BcryptHasher({ cost: 4, threads: own })).warmUp();
      assert.equal(own.threads, 0);
    } finally {
      await shared.close();
    }
  });

  it('tries threads again once retryMs has passed after a failed start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kma-hashing-'));
    process.env.KMA_FLAKY_HASHING_FLAG = join(dir, 'failed-once');
    try {
      const threads = pool({
        size: 1,
        retryMs: 200,
        workerUrl: new URL('./support/flaky-hashing-worker.js', import.meta.url),
      });
      const first = await threads.run({ op: 'bcrypt.hash', password: 'password', cost: 4 });
      assert.equal(bcrypt.verifySync('password', String(first)), true);
      assert.ok(threads.unavailable instanceof Error);
      assert.equal(threads.threads, 0);
      // Once retryMs has passed, the next job starts a thread again, and this time it runs.
      await new Promise((resolve) => setTimeout(resolve, 250));
      assert.equal(
        await threads.run({ op: 'bcrypt.verify', password: 'password', stored: String(first) }),
        true,
      );
      assert.equal(threads.unavailable, undefined);
      assert.equal(threads.threads, 1);
    } finally {
      delete process.env.KMA_FLAKY_HASHING_FLAG;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails the job of a thread that dies, and gives the next job a fresh thread', async () => {
    const threads = pool({
      size: 1,
      workerUrl: new URL('./support/dying-hashing-worker.js', import.meta.url),
    });
    const first = threads.run({ op: 'bcrypt.hash', password: 'password', cost: 4 });
    const second = threads.run({ op: 'bcrypt.hash', password: 'password', cost: 4 });
    await assert.rejects(first, /exited with code/);
    await assert.rejects(second, /exited with code/);
    // It had started, so its death is the job's failure, not a reason to give up on threads.
    assert.equal(threads.unavailable, undefined);
  });

  it('refuses options it cannot honour', () => {
    assert.throws(() => new HashingThreads({ size: Number.NaN }), /size/);
    assert.throws(() => new HashingThreads({ size: -1 }), /size/);
    assert.throws(() => new HashingThreads({ nice: 20 }), /nice/);
    assert.throws(() => new HashingThreads({ idleMs: Number.POSITIVE_INFINITY }), /idleMs/);
    assert.throws(() => new HashingThreads({ retryMs: -1 }), /retryMs/);
    assert.throws(() => new HashingThreads({ maxQueue: -1 }), /maxQueue/);
    assert.equal(new HashingThreads({ size: 0 }).size, 0);
  });

  it('keeps a process alive while a job runs, and lets it exit when idle', async () => {
    const module = fileURLToPath(new URL('../../../lib/auth/hashing-threads.js', import.meta.url));
    const script = `
      import { HashingThreads } from ${JSON.stringify(module)};
      const threads = new HashingThreads({ size: 1, idleMs: 60000 });
      threads.run({ op: 'bcrypt.hash', password: 'password', cost: 6 }).then((hash) => console.log(hash.slice(0, 7)));
    `;
    const started = Date.now();
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script]);
    assert.equal(stdout.trim(), '$2b$06$');
    // An idle thread is unreferenced: the process does not wait for the 60 s idle timeout.
    assert.ok(Date.now() - started < 30_000);
  });
});
