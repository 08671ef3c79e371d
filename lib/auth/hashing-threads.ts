/**
 * Password hashes run on threads of their own at a lowered priority, so a login storm cannot take
 * the core from the event loop. On libuv's pool a hash is one runnable thread among equals, and the
 * scheduler let it keep the core for up to a time slice while requests waited: GET p99 during a
 * login storm rose 5-10× on one core (docs/benchmarks.md). A thread at nice 10 yields the core as
 * soon as the event loop wakes. One thread per core; threads start with the first job and stop
 * after a minute without work. A thread costs about 17 MiB of RSS while it runs, and about 12 MiB
 * stay resident after it stops. When a thread cannot start (a bundler left the worker script
 * behind, a thread limit), jobs run on libuv's pool as before, after one warning, and threads are
 * tried again a minute later.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { ConfigurationError } from '../errors.js';
import { type HashingJob, runHashingJobOnPool } from './hashing-job.js';
import type { HashingReply, HashingRequest, HashingWorkerData } from './hashing-worker.js';

/** Options of `HashingThreads`. */
export interface HashingThreadsOptions {
  /** Threads at most (default: the cores this process may run on); 0 runs every job on libuv's pool. */
  readonly size?: number;
  /** The nice value of the threads on Linux (default 10; 0 keeps the event loop's priority). */
  readonly nice?: number;
  /** Milliseconds without work after which a thread stops (default 60,000). */
  readonly idleMs?: number;
  /** After a thread failed to start, milliseconds during which jobs run on libuv's pool before threads are tried again (default 60,000). */
  readonly retryMs?: number;
  /** The thread's script (default: `hashing-worker.js` beside this module; set it when a bundler moves it). */
  readonly workerUrl?: URL;
}

interface Pending {
  readonly id: number;
  readonly job: HashingJob;
  readonly resolve: (value: string | boolean) => void;
  readonly reject: (error: Error) => void;
}

interface HashingThread {
  readonly worker: Worker;
  /** The thread has loaded its script. */
  ready: boolean;
  current: Pending | undefined;
  idleTimer: NodeJS.Timeout | undefined;
}

const WORKER_URL = new URL('./hashing-worker.js', import.meta.url);

const MAX_TIMER_MS = 2 ** 31 - 1;

let warned = false;

/** A pool of lowered-priority threads that run hashing jobs in arrival order. */
export class HashingThreads {
  readonly size: number;
  readonly nice: number;
  readonly idleMs: number;
  readonly retryMs: number;
  readonly workerUrl: URL;
  /** Why threads cannot start; set, jobs run on libuv's pool. */
  #unavailable: Error | undefined;
  /** When threads are tried again after a failed start (Date.now() milliseconds). */
  #retryAt = 0;
  readonly #threads = new Set<HashingThread>();
  readonly #idle: HashingThread[] = [];
  readonly #queue: Pending[] = [];
  #nextId = 1;

  constructor(options: HashingThreadsOptions = {}) {
    const size = options.size ?? availableParallelism();
    const nice = options.nice ?? 10;
    const idleMs = options.idleMs ?? 60_000;
    const retryMs = options.retryMs ?? 60_000;
    if (!Number.isInteger(size) || size < 0) {
      throw new ConfigurationError(
        `HashingThreads size must be an integer of 0 or more, got ${String(size)}.`,
      );
    }
    if (!Number.isInteger(nice) || nice < 0 || nice > 19) {
      throw new ConfigurationError(
        `HashingThreads nice must be an integer from 0 to 19, got ${String(nice)}.`,
      );
    }
    // setTimeout fires at once for a delay it cannot hold (over 2^31 - 1 ms).
    if (!Number.isInteger(idleMs) || idleMs < 0 || idleMs > MAX_TIMER_MS) {
      throw new ConfigurationError(
        `HashingThreads idleMs must be an integer from 0 to ${MAX_TIMER_MS}, got ${String(idleMs)}.`,
      );
    }
    if (!Number.isFinite(retryMs) || retryMs < 0) {
      throw new ConfigurationError(`HashingThreads retryMs must be 0 or more, got ${String(retryMs)}.`);
    }
    this.size = size;
    this.nice = nice;
    this.idleMs = idleMs;
    this.retryMs = retryMs;
    this.workerUrl = options.workerUrl ?? WORKER_URL;
  }

  /** Runs a job on a free thread, or queues it until one is free. */
  run(job: HashingJob): Promise<string | boolean> {
    if (this.size === 0) return runHashingJobOnPool(job);
    if (this.#unavailable !== undefined) {
      // A thread that could not start may have met a passing limit (memory, threads): try again later.
      if (Date.now() < this.#retryAt) return runHashingJobOnPool(job);
      this.#unavailable = undefined;
    }
    return new Promise((resolve, reject) => {
      const pending: Pending = { id: this.#nextId++, job, resolve, reject };
      const idle = this.#idle.pop();
      if (idle !== undefined) this.#give(idle, pending);
      else if (this.#threads.size < this.size) this.#startWith(pending);
      else this.#queue.push(pending);
    });
  }

  /** Threads running now (busy or idle). */
  get threads(): number {
    return this.#threads.size;
  }

  /** Why no hashing thread could start (jobs then run on libuv's pool), or undefined. */
  get unavailable(): Error | undefined {
    return this.#unavailable;
  }

  /** Jobs waiting for a thread. */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Stops every thread; jobs not finished are rejected (a later `run` starts threads again). */
  async close(): Promise<void> {
    const threads = [...this.#threads];
    for (const pending of this.#queue.splice(0))
      pending.reject(new Error('The hashing threads were closed.'));
    await Promise.all(threads.map((thread) => this.#stop(thread)));
  }

  #start(): HashingThread {
    const workerData: HashingWorkerData = { nice: this.nice };
    // The thread runs compiled JS only: the process's own flags (loaders, --input-type, profilers)
    // have no business there, and some of them make a worker fail to start.
    const worker = new Worker(this.workerUrl, { workerData, name: 'kma-hashing', execArgv: [] });
    const thread: HashingThread = { worker, ready: false, current: undefined, idleTimer: undefined };
    this.#threads.add(thread);
    worker.on('message', (reply: HashingReply) => this.#settle(thread, reply));
    worker.on('error', (error) => this.#lose(thread, error));
    worker.on('exit', (code) => this.#lose(thread, new Error(`A hashing thread exited with code ${code}.`)));
    return thread;
  }

  #give(thread: HashingThread, pending: Pending): void {
    if (thread.idleTimer !== undefined) clearTimeout(thread.idleTimer);
    thread.idleTimer = undefined;
    thread.current = pending;
    // A job in flight keeps the process alive, as a hash on libuv's pool would; an idle thread does not.
    thread.worker.ref();
    const request: HashingRequest = { id: pending.id, job: pending.job };
    thread.worker.postMessage(request);
  }

  #settle(thread: HashingThread, reply: HashingReply): void {
    if (reply === 'ready') {
      thread.ready = true;
      return;
    }
    const pending = thread.current;
    if (pending === undefined || pending.id !== reply.id) return;
    thread.current = undefined;
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(new Error(reply.message));
    const next = this.#queue.shift();
    if (next !== undefined) {
      this.#give(thread, next);
      return;
    }
    thread.worker.unref();
    this.#idle.push(thread);
    thread.idleTimer = setTimeout(() => void this.#stop(thread), this.idleMs);
    thread.idleTimer.unref();
  }

  /** A thread that died: its job fails, and a queued job gets a fresh thread. */
  #lose(thread: HashingThread, error: Error): void {
    if (!this.#threads.delete(thread)) return;
    if (thread.idleTimer !== undefined) clearTimeout(thread.idleTimer);
    const idleAt = this.#idle.indexOf(thread);
    if (idleAt >= 0) this.#idle.splice(idleAt, 1);
    const current = thread.current;
    thread.current = undefined;
    if (!thread.ready) {
      // The thread never ran (a missing script, a refused thread): more threads now would fail the
      // same way, so jobs go to libuv's pool until retryMs has passed.
      this.#fallBack(error, current);
      return;
    }
    current?.reject(error);
    const next = this.#queue.shift();
    if (next !== undefined) this.#startWith(next);
  }

  /** Starts a thread for a job; when the system refuses a thread, the job runs on libuv's pool. */
  #startWith(pending: Pending): void {
    let thread: HashingThread;
    try {
      thread = this.#start();
    } catch (error) {
      this.#fallBack(error instanceof Error ? error : new Error(String(error)), pending);
      return;
    }
    this.#give(thread, pending);
  }

  /** Until retryMs has passed, every job runs on libuv's pool, the ones waiting included. */
  #fallBack(error: Error, current: Pending | undefined): void {
    this.#unavailable = error;
    this.#retryAt = Date.now() + this.retryMs;
    if (!warned) {
      warned = true;
      process.emitWarning(
        `Password hashing threads could not start (${error.message}); hashes run on libuv's pool instead.`,
        { code: 'KMA_HASHING_THREADS' },
      );
    }
    for (const pending of [...(current === undefined ? [] : [current]), ...this.#queue.splice(0)]) {
      runHashingJobOnPool(pending.job).then(pending.resolve, pending.reject);
    }
  }

  async #stop(thread: HashingThread): Promise<void> {
    const pending = thread.current;
    this.#threads.delete(thread);
    if (thread.idleTimer !== undefined) clearTimeout(thread.idleTimer);
    const idleAt = this.#idle.indexOf(thread);
    if (idleAt >= 0) this.#idle.splice(idleAt, 1);
    thread.current = undefined;
    pending?.reject(new Error('The hashing threads were closed.'));
    await thread.worker.terminate();
  }
}

/** The process's shared hashing threads, started on first use. */
let shared: HashingThreads | undefined;

/** The hashing threads the built-in hashers use unless given others. */
export function sharedHashingThreads(): HashingThreads {
  shared ??= new HashingThreads();
  return shared;
}
