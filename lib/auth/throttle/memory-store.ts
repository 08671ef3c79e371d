/**
 * In-memory throttle store with bounded memory: at most `maxKeys` counters; when full, expired
 * counters go first, then the one of the fewest attempts among the oldest (bounded work per
 * attempt).
 */
import { ConfigurationError } from '../../errors.js';
import type { ThrottleHit, ThrottleStore } from './store.js';

/** Options of `MemoryThrottleStore`. */
export interface MemoryThrottleStoreOptions {
  /** Most counters kept (default 10,000). */
  readonly maxKeys?: number;
  /** Clock in milliseconds (tests pass a fake one). */
  readonly now?: () => number;
}

interface Counter {
  count: number;
  resetAt: number;
}

// How many of the oldest counters a full store looks through for the one of the fewest attempts.
const EVICTION_SCAN = 256;

/** A throttle store for one process. */
export class MemoryThrottleStore implements ThrottleStore {
  /** Most counters kept; when full, expired ones go first, then the one of the fewest attempts among the oldest. */
  readonly maxKeys: number;
  private readonly counters = new Map<string, Counter>();
  private readonly now: () => number;

  constructor(options: MemoryThrottleStoreOptions = {}) {
    const maxKeys = options.maxKeys ?? 10_000;
    if (!Number.isInteger(maxKeys) || maxKeys < 1) {
      throw new ConfigurationError(
        `MemoryThrottleStore maxKeys must be a positive integer, got ${String(maxKeys)}.`,
      );
    }
    this.maxKeys = maxKeys;
    this.now = options.now ?? Date.now;
  }

  /** Number of counters held (for tests and metrics). */
  get size(): number {
    return this.counters.size;
  }

  async hit(key: string, windowSeconds: number): Promise<ThrottleHit> {
    const now = this.now();
    let counter = this.counters.get(key);
    if (counter === undefined || counter.resetAt <= now) {
      if (counter !== undefined) this.counters.delete(key);
      this.makeRoom(now);
      counter = { count: 0, resetAt: now + windowSeconds * 1000 };
      // Map order is insertion order: re-inserting keeps the oldest window first for eviction.
      this.counters.set(key, counter);
    }
    counter.count += 1;
    return {
      count: counter.count,
      retryAfterSeconds: Math.max(1, Math.ceil((counter.resetAt - now) / 1000)),
    };
  }

  async undo(key: string): Promise<void> {
    const counter = this.counters.get(key);
    if (counter === undefined) return;
    counter.count = Math.max(0, counter.count - 1);
  }

  async reset(key: string): Promise<void> {
    this.counters.delete(key);
  }

  private makeRoom(now: number): void {
    // Oldest windows sit first: drop those that have ended.
    for (const [key, counter] of this.counters) {
      if (counter.resetAt > now) break;
      this.counters.delete(key);
    }
    if (this.counters.size < this.maxKeys) return;
    // Still full: the counter of the fewest attempts among the oldest few goes (the oldest of
    // those), so that a client spreading guesses over fresh addresses cannot push out the counter
    // of the account it guesses at, which holds more (security review, session 16).
    let scanned = 0;
    let fewest: string | undefined;
    let least = Number.POSITIVE_INFINITY;
    for (const [key, counter] of this.counters) {
      if (counter.count < least) {
        fewest = key;
        least = counter.count;
      }
      if (++scanned >= EVICTION_SCAN) break;
    }
    if (fewest !== undefined) this.counters.delete(fewest);
  }
}
