/**
 * The login throttle's storage: fixed-window attempt counters by key. The in-memory store serves
 * one process; the Redis store lets several instances share the counters.
 */

/** The state of one counter after an attempt was counted. */
export interface ThrottleHit {
  /** Attempts counted in the current window, this one included. */
  readonly count: number;
  /** Seconds until the current window ends (at least 1). */
  readonly retryAfterSeconds: number;
}

/** Where attempt counters live. Keys are opaque, short and free of personal data. */
export interface ThrottleStore {
  /** Counts one attempt; the window starts with the first attempt and lasts `windowSeconds`. */
  hit(key: string, windowSeconds: number): Promise<ThrottleHit>;
  /** Takes one attempt back (a login that succeeded), never below zero. */
  undo(key: string): Promise<void>;
  /** Forgets the counter. */
  reset(key: string): Promise<void>;
}
