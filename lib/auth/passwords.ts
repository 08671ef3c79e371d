/**
 * Password verification across schemes: the stored hash names its scheme, a login with an outdated
 * scheme or cost asks for a re-hash, and an unknown user is checked against a dummy hash so a
 * failed login takes the same time whether or not the username exists. The built-in hashers run
 * on the bounded hashing threads (hashing-threads.ts): a full queue answers 503, never waits.
 */
import { randomBytes } from 'node:crypto';
import { ConfigurationError } from '../errors.js';
import { hasMethods } from '../options/methods.js';
import { Argon2idHasher, BcryptHasher, type PasswordHasher } from './hashers.js';
import { HashingThreads } from './hashing-threads.js';

/** The outcome of a password check. */
export interface PasswordCheck {
  readonly ok: boolean;
  /** The password was right but the stored hash should be replaced by a fresh one. */
  readonly rehash: boolean;
}

/** How the hasher is chosen in the options: a scheme name or a configured hasher. */
export type PasswordHasherOption = 'bcrypt' | 'argon2id' | PasswordHasher;

/** Turns the option into a hasher (bcrypt cost 12 by default). */
export function hasherFrom(option: PasswordHasherOption | undefined): PasswordHasher {
  if (option === undefined || option === 'bcrypt') return new BcryptHasher();
  if (option === 'argon2id') return new Argon2idHasher();
  if (hasMethods<PasswordHasher>(option, ['hash', 'verify', 'recognizes', 'isOutdated'])) return option;
  throw new ConfigurationError("password_hasher must be 'bcrypt', 'argon2id' or a PasswordHasher object.");
}

/** Hashes with the current hasher and verifies hashes of every known scheme. */
export class Passwords {
  readonly current: PasswordHasher;
  private readonly schemes: readonly PasswordHasher[];
  private dummy: Promise<string> | undefined;

  constructor(current: PasswordHasher) {
    this.current = current;
    // Verification of bcrypt or argon2id does not depend on the configured parameters.
    this.schemes = [current, new BcryptHasher(), new Argon2idHasher()];
  }

  /** A fresh hash of the password with the current scheme. */
  hash(password: string): Promise<string> {
    return this.current.hash(password);
  }

  /** Checks a password against a stored hash (a missing or unknown hash costs as much as a real one). */
  async check(password: string, stored: unknown): Promise<PasswordCheck> {
    const scheme = typeof stored === 'string' ? this.schemes.find((s) => s.recognizes(stored)) : undefined;
    if (scheme === undefined || typeof stored !== 'string') {
      await this.checkDummy(password);
      return { ok: false, rehash: false };
    }
    const ok = await scheme.verify(password, stored);
    if (!ok) return { ok: false, rehash: false };
    const rehash =
      scheme.scheme !== this.current.scheme ||
      !this.current.recognizes(stored) ||
      this.current.isOutdated(stored);
    return { ok: true, rehash };
  }

  /** Spends the time of one verification with the current scheme, for an unknown user. */
  async checkDummy(password: string): Promise<void> {
    const dummy = await this.dummyHash();
    await this.current.verify(password, dummy);
  }

  /** Computes the dummy hash ahead of the first login. */
  async warmUp(): Promise<void> {
    await this.dummyHash();
  }

  private dummyHash(): Promise<string> {
    if (this.dummy === undefined) {
      const dummy = startupHasher(this.current).hash(randomBytes(18).toString('base64url'));
      // A failed attempt is not kept: the next unknown-user login tries again.
      dummy.catch(() => {
        if (this.dummy === dummy) this.dummy = undefined;
      });
      this.dummy = dummy;
    }
    return this.dummy;
  }
}

/**
 * The current hasher, on libuv's pool for the built-in ones: the dummy hash is made once, at start,
 * and a process that never sees a login then never starts a hashing thread,
 * whose memory stays resident (bench/NOTES.md, "Figures behind code comments": hashing thread).
 */
function startupHasher(current: PasswordHasher): PasswordHasher {
  if (current instanceof BcryptHasher && exactly(current, BcryptHasher)) {
    return new BcryptHasher({ cost: current.cost, threads: new HashingThreads({ size: 0 }) });
  }
  if (current instanceof Argon2idHasher && exactly(current, Argon2idHasher)) {
    const { memoryCost, timeCost, parallelism } = current;
    return new Argon2idHasher({
      memoryCost,
      timeCost,
      parallelism,
      threads: new HashingThreads({ size: 0 }),
    });
  }
  return current;
}

/** The object is an instance of the class itself, not of a subclass or a wrapper that may hash otherwise. */
function exactly(value: object, type: abstract new (...args: never[]) => object): boolean {
  return Object.getPrototypeOf(value) === type.prototype;
}
