/**
 * Login and registration throttling. A login attempt is counted strictly per (username, client
 * address) and broadly per address, before the password is checked (so parallel guesses are counted
 * too). No counter is per username alone: failures from one address never lock the account for its
 * owner at another (issue 15, "anyone can lock any account"). A successful login clears its pair's
 * counter and takes its attempt back from the address's, so the address limit counts failures of
 * everyone behind it. Registrations are counted per address, before anything is hashed or stored.
 * The caller passes usernames in their stored normal form (username.ts).
 */
import { createHash } from 'node:crypto';
import { ApiError, ConfigurationError } from '../../errors.js';
import { throttledAddress } from './client-address.js';
import { RedisThrottleStore } from './redis-store.js';
import type { ThrottleStore } from './store.js';

/** One limit: at most `attempts` within `window` seconds. */
export interface ThrottleLimit {
  /** Attempts allowed within the window; the next one is refused with 429. */
  readonly attempts: number;
  /** Length of the window in seconds, counted from the first attempt. */
  readonly window: number;
}

/** The limits of the login throttle. */
export interface ThrottleLimits {
  /** Per (username, client address) pair (default 5 attempts per 15 minutes). */
  readonly username: ThrottleLimit;
  /** Per client address, `ctx.ip`, an IPv6 one with the rest of its /64 (default 100 failed attempts per 15 minutes). */
  readonly address: ThrottleLimit;
  /** `POST /register` per client address (default 50 attempts per 15 minutes, whatever their outcome). */
  readonly register: ThrottleLimit;
}

/** The default limits. */
export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = Object.freeze({
  username: Object.freeze({ attempts: 5, window: 900 }),
  address: Object.freeze({ attempts: 100, window: 900 }),
  register: Object.freeze({ attempts: 50, window: 900 }),
});

function checkLimit(name: string, limit: ThrottleLimit | undefined, fallback: ThrottleLimit): ThrottleLimit {
  if (limit === undefined) return fallback;
  if (typeof limit !== 'object' || limit === null) {
    throw new ConfigurationError(`throttle.${name} must be { attempts, window }.`);
  }
  const { attempts, window } = limit;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new ConfigurationError(
      `throttle.${name}.attempts must be a positive integer, got ${String(attempts)}.`,
    );
  }
  if (!Number.isInteger(window) || window < 1) {
    throw new ConfigurationError(
      `throttle.${name}.window must be a positive number of seconds, got ${String(window)}.`,
    );
  }
  return Object.freeze({ attempts, window });
}

/** Checks partial limits and fills in the defaults. */
export function resolveLimits(limits: Partial<ThrottleLimits> | undefined): ThrottleLimits {
  return Object.freeze({
    username: checkLimit('username', limits?.username, DEFAULT_THROTTLE_LIMITS.username),
    address: checkLimit('address', limits?.address, DEFAULT_THROTTLE_LIMITS.address),
    register: checkLimit('register', limits?.register, DEFAULT_THROTTLE_LIMITS.register),
  });
}

/** 503 with `Retry-After` for a throttle store that cannot answer, naming it: the database may be fine. */
export function throttleStoreUnavailable(store: ThrottleStore, cause: unknown): ApiError {
  const what = store instanceof RedisThrottleStore ? 'The throttle store (Redis)' : 'The throttle store';
  return ApiError.unavailable(cause, 5, what);
}

/** A short opaque key: usernames may be long and are personal data. */
function keyOf(kind: 'p' | 'a' | 'r', ...parts: string[]): string {
  // NUL cannot occur in an address, so the pair (name, address) has one encoding.
  return `${kind}:${createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 32)}`;
}

/** The login throttle of one AuthRouter. */
export class LoginThrottle {
  readonly store: ThrottleStore;
  readonly limits: ThrottleLimits;

  constructor(store: ThrottleStore, limits: ThrottleLimits) {
    this.store = store;
    this.limits = limits;
  }

  /** Counts a login attempt; throws 429 with `Retry-After` when a limit is exceeded. */
  async attempt(username: string, client: string): Promise<void> {
    const address = throttledAddress(client);
    const byAddress = await this.call(() => this.store.hit(keyOf('a', address), this.limits.address.window));
    if (byAddress.count > this.limits.address.attempts)
      throw ApiError.tooManyRequests(byAddress.retryAfterSeconds);
    const byPair = await this.call(() =>
      this.store.hit(keyOf('p', username, address), this.limits.username.window),
    );
    if (byPair.count > this.limits.username.attempts)
      throw ApiError.tooManyRequests(byPair.retryAfterSeconds);
  }

  /** Records a successful login. */
  async succeeded(username: string, client: string): Promise<void> {
    const address = throttledAddress(client);
    await this.call(() =>
      Promise.all([
        this.store.reset(keyOf('p', username, address)),
        this.store.undo(keyOf('a', address)),
      ]).then(() => undefined),
    );
  }

  /** Counts a registration attempt; throws 429 with `Retry-After` when the address's limit is exceeded. */
  async registration(client: string): Promise<void> {
    const hit = await this.call(() =>
      this.store.hit(keyOf('r', throttledAddress(client)), this.limits.register.window),
    );
    if (hit.count > this.limits.register.attempts) throw ApiError.tooManyRequests(hit.retryAfterSeconds);
  }

  /** A store that cannot answer refuses logins (fail closed) with 503 rather than letting guesses through. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw throttleStoreUnavailable(this.store, error);
    }
  }
}
