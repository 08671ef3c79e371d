/**
 * A limit on password hashes and verifications running at once. They run on libuv's thread pool
 * (four threads by default), so a login storm on a machine with fewer cores than that leaves the
 * event loop one runnable thread among five and every other request waits its turn: GET p99 rose
 * to 2.2× idle under a storm on one core (docs/benchmarks.md). With at most one hash per core the
 * loop keeps its share, and logins per second stay what the cores allow.
 */
import { availableParallelism } from 'node:os';

/** A first-come, first-served limit on concurrent async tasks. */
export class HashingGate {
  readonly limit: number;
  #running = 0;
  readonly #waiting: (() => void)[] = [];

  /** `limit` defaults to the cores this process may run on (its CPU affinity included). */
  constructor(limit: number = availableParallelism()) {
    this.limit = Math.max(1, Math.floor(limit));
  }

  /** Runs `task` when fewer than `limit` tasks are running; queued tasks start in order. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.#running >= this.limit) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    else this.#running++;
    try {
      return await task();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next task, so a newcomer cannot overtake the queue.
      if (next === undefined) this.#running--;
      else next();
    }
  }

  /** Tasks waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }
}
