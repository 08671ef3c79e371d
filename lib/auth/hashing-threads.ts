/**
 * Password hashes run on a `piscina` pool of threads at a lowered priority, so a login storm cannot
 * take the core from the event loop: on libuv's pool a hash is one runnable thread among equals and
 * requests waited for its time slice (the measurement: bench/NOTES.md, "Password hashes on
 * lowered-priority threads"). One thread per core, started with the first job, stopped after a
 * minute without work. The queue in front of the threads is bounded: when it is full a job is
 * refused at once with 503 and `Retry-After` instead of waiting behind a flood (issue 15). When a
 * thread cannot start (a bundler left the worker script behind, a thread limit), jobs run on libuv's
 * pool, after one warning, with the same bound, and threads are tried again later.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ApiError, ConfigurationError } from '../errors.js';
import { type HashingJob, runHashingJobOnPool } from './hashing-job.js';
import type { HashingOutcome } from './hashing-worker.js';

/** Options of `HashingThreads`. */
export interface HashingThreadsOptions {
  /** Threads at most (default: the cores this process may run on); 0 runs every job on libuv's pool. */
  readonly size?: number;
  /** How much the threads lower their priority on Linux, as a nice increment (default 10; 0 keeps the event loop's). */
  readonly nice?: number;
  /** Milliseconds without work after which a thread stops (default 60,000). */
  readonly idleMs?: number;
  /** Jobs that may wait for a thread (default 32); one more is refused with 503 and `Retry-After`. */
  readonly maxQueue?: number;
  /** After a thread failed to start, milliseconds during which jobs run on libuv's pool before threads are tried again (default 60,000). */
  readonly retryMs?: number;
  /** The thread's script (default: `hashing-worker.js` beside this module; set it when a bundler moves it). */
  readonly workerUrl?: URL;
}

/** The default bound of the queue: a login storm of 16 connections on one core still fits. */
export const DEFAULT_HASHING_QUEUE = 32;

const WORKER_URL = new URL('./hashing-worker.js', import.meta.url);

const MAX_TIMER_MS = 2 ** 31 - 1;

/** Seconds a refused client is asked to wait: a queue of hashes drains within about that. */
const BUSY_RETRY_AFTER_SECONDS = 1;

let warned = false;

/** The 503 of a full hashing queue. */
export function hashingBusy(): ApiError {
  return new ApiError('service_unavailable', 'Too many password checks are waiting; retry shortly.', {
    headers: { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) },
  });
}

/** Piscina's rejection of a job when its queue is full. */
const QUEUE_FULL = /^Task queue is at limit/;
/** Piscina's rejection of the job of a thread that exited. */
const DIED = /^worker exited with code/;
/** Piscina's rejection of the jobs still queued when the pool is destroyed. */
const TERMINATED = /^Terminating worker thread/;

function integerOption(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError(
      `HashingThreads ${name} must be an integer from ${min} to ${max}, got ${String(value)}.`,
    );
  }
  return value;
}

/** A bounded pool of lowered-priority threads that run hashing jobs in arrival order. */
export class HashingThreads {
  readonly size: number;
  readonly nice: number;
  readonly idleMs: number;
  readonly maxQueue: number;
  readonly retryMs: number;
  readonly workerUrl: URL;
  /** Started with the first job, dropped by `close()` or a failed start. */
  #pool: Piscina<HashingJob, HashingOutcome> | undefined;
  /** Why threads cannot start; set, jobs run on libuv's pool. */
  #unavailable: Error | undefined;
  /** When threads are tried again after a failed start (Date.now() milliseconds). */
  #retryAt = 0;
  /** Jobs on libuv's pool now (size 0 or the fallback): the same bound holds there. */
  #onLibuv = 0;
  /**
   * Pools given up after a thread failed. Piscina starts no thread for the jobs queued behind a
   * thread that died, or failed to load, while it keeps no idle thread (minThreads 0): they would
   * wait for ever, so the pool is destroyed and its queued jobs run again on a fresh one.
   */
  readonly #retired = new WeakSet<object>();

  constructor(options: HashingThreadsOptions = {}) {
    this.size = integerOption('size', options.size ?? availableParallelism(), 0, 1024);
    this.nice = integerOption('nice', options.nice ?? 10, 0, 19);
    // setTimeout fires at once for a delay it cannot hold (over 2^31 - 1 ms).
    this.idleMs = integerOption('idleMs', options.idleMs ?? 60_000, 0, MAX_TIMER_MS);
    this.maxQueue = integerOption('maxQueue', options.maxQueue ?? DEFAULT_HASHING_QUEUE, 0, 1_000_000);
    const retryMs = options.retryMs ?? 60_000;
    if (!Number.isFinite(retryMs) || retryMs < 0) {
      throw new ConfigurationError(`HashingThreads retryMs must be 0 or more, got ${String(retryMs)}.`);
    }
    this.retryMs = retryMs;
    this.workerUrl = options.workerUrl ?? WORKER_URL;
  }

  /** Runs a job on a free thread or queues it; a full queue rejects with a 503 `ApiError`. */
  async run(job: HashingJob): Promise<string | boolean> {
    for (;;) {
      if (this.size === 0) return this.#runOnLibuv(job);
      if (this.#unavailable !== undefined) {
        // A thread that could not start may have met a passing limit (memory, threads): try again later.
        if (Date.now() < this.#retryAt) return this.#runOnLibuv(job);
        this.#unavailable = undefined;
      }
      const pool = this.#started();
      let outcome: HashingOutcome;
      try {
        outcome = await pool.run(job);
      } catch (raw) {
        const error = raw instanceof Error ? raw : new Error(String(raw));
        if (QUEUE_FULL.test(error.message)) throw hashingBusy();
        // A job queued in a pool retired after a thread failed: it runs again where jobs now go.
        if (this.#retired.has(pool) && TERMINATED.test(error.message)) continue;
        if (DIED.test(error.message)) {
          this.#retire(pool);
          throw error;
        }
        if (TERMINATED.test(error.message)) throw new Error('The hashing threads were closed.');
        // The script did not load: more threads would fail the same way for a while.
        this.#fallBack(error, pool);
        return this.#runOnLibuv(job);
      }
      if (!outcome.ok) throw new Error(outcome.message);
      return outcome.value;
    }
  }

  /** Threads running now (busy or idle). */
  get threads(): number {
    return this.#pool?.threads.length ?? 0;
  }

  /** Why no hashing thread could start (jobs then run on libuv's pool), or undefined. */
  get unavailable(): Error | undefined {
    return this.#unavailable;
  }

  /** Jobs waiting for a thread. */
  get waiting(): number {
    return this.#pool?.queueSize ?? 0;
  }

  /** Stops every thread; jobs not finished are rejected (a later `run` starts threads again). */
  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    await pool?.destroy();
  }

  #started(): Piscina<HashingJob, HashingOutcome> {
    if (this.#pool !== undefined) return this.#pool;
    const pool = new Piscina<HashingJob, HashingOutcome>({
      filename: this.workerUrl.href,
      minThreads: 0,
      maxThreads: this.size,
      idleTimeout: this.idleMs,
      maxQueue: this.maxQueue,
      niceIncrement: this.nice,
      // Jobs start in arrival order (without it a queued job may overtake another).
      stricterFIFO: true,
      // The thread runs compiled JS only: the process's own flags (loaders, --input-type, profilers)
      // have no business there, and some of them make a worker fail to start.
      execArgv: [],
    });
    // A thread that fails outside a job (its script did not load) is reported here, and its pool
    // then starts no other: jobs go to libuv's pool for a while. Unheard, it would end the process.
    pool.on('error', (error: unknown) => {
      this.#fallBack(error instanceof Error ? error : new Error(String(error)), pool);
    });
    this.#pool = pool;
    return pool;
  }

  async #runOnLibuv(job: HashingJob): Promise<string | boolean> {
    if (this.#onLibuv >= Math.max(1, this.size) + this.maxQueue) throw hashingBusy();
    this.#onLibuv++;
    try {
      return await runHashingJobOnPool(job);
    } finally {
      this.#onLibuv--;
    }
  }

  /** Destroys a pool whose thread failed; its queued jobs run again (see `#retired`). */
  #retire(pool: Piscina<HashingJob, HashingOutcome>): void {
    if (this.#retired.has(pool)) return;
    this.#retired.add(pool);
    if (this.#pool === pool) this.#pool = undefined;
    void pool.destroy().catch(() => {});
  }

  /** Until retryMs has passed, every job runs on libuv's pool. */
  #fallBack(error: Error, pool: Piscina<HashingJob, HashingOutcome>): void {
    this.#unavailable = error;
    this.#retryAt = Date.now() + this.retryMs;
    this.#retire(pool);
    if (!warned) {
      warned = true;
      process.emitWarning(
        `Password hashing threads could not start (${error.message}); hashes run on libuv's pool instead.`,
        { code: 'KMA_HASHING_THREADS' },
      );
    }
  }
}

/** The process's shared hashing threads, started on first use. */
let shared: HashingThreads | undefined;

/** The hashing threads the built-in hashers use unless given others. */
export function sharedHashingThreads(): HashingThreads {
  shared ??= new HashingThreads();
  return shared;
}
