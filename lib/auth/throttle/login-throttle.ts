/**
 * Login throttling per username and per client address. Every attempt is counted before the
 * password is checked (so parallel guesses are counted too); a successful login clears the
 * username's counter and takes its attempt back from the address's counter, so the address
 * limit counts failures of everyone behind it.
 */
import { createHash } from 'node:crypto';
import { ApiError, ConfigurationError } from '../../errors.js';
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
  /** Per username (default 5 attempts per 15 minutes). */
  readonly username: ThrottleLimit;
  /** Per client address, `ctx.ip` (default 100 failed attempts per 15 minutes). */
  readonly address: ThrottleLimit;
}

/** The default limits. */
export const DEFAULT_THROTTLE_LIMITS: ThrottleLimits = Object.freeze({
  username: Object.freeze({ attempts: 5, window: 900 }),
  address: Object.freeze({ attempts: 100, window: 900 }),
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
  });
}

/** A short opaque key: usernames may be long and are personal data. */
function keyOf(kind: 'u' | 'a', value: string): string {
  const normalised = kind === 'u' ? value.normalize('NFKC').toLowerCase() : value;
  return `${kind}:${createHash('sha256').update(normalised).digest('base64url').slice(0, 32)}`;
}

/** The login throttle of one AuthRouter. */
export class LoginThrottle {
  readonly store: ThrottleStore;
  readonly limits: ThrottleLimits;

  constructor(store: ThrottleStore, limits: ThrottleLimits) {
    this.store = store;
    this.limits = limits;
  }

  /** Counts an attempt; throws 429 with `Retry-After` when a limit is exceeded. */
  async attempt(username: string, address: string): Promise<void> {
    const byAddress = await this.call(() => this.store.hit(keyOf('a', address), this.limits.address.window));
    if (byAddress.count > this.limits.address.attempts)
      throw ApiError.tooManyRequests(byAddress.retryAfterSeconds);
    const byName = await this.call(() => this.store.hit(keyOf('u', username), this.limits.username.window));
    if (byName.count > this.limits.username.attempts)
      throw ApiError.tooManyRequests(byName.retryAfterSeconds);
  }

  /** Records a successful login. */
  async succeeded(username: string, address: string): Promise<void> {
    await this.call(() =>
      Promise.all([this.store.reset(keyOf('u', username)), this.store.undo(keyOf('a', address))]).then(
        () => undefined,
      ),
    );
  }

  /** A store that cannot answer refuses logins (fail closed) with 503 rather than letting guesses through. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw ApiError.unavailable(error);
    }
  }
}
