/**
 * Password hashers: bcrypt (`@node-rs/bcrypt`, the default, cost 12) and argon2id
 * (`@node-rs/argon2`, opt-in). Each recognises its own stored format and tells whether a stored
 * hash was made with other parameters than it now uses, so logins can upgrade old hashes. Their
 * hashes and verifications run on the lowered-priority hashing threads (hashing-threads.ts).
 */
import * as bcrypt from '@node-rs/bcrypt';
import { ConfigurationError } from '../errors.js';
import { argon2Module } from './argon2-module.js';
import { ARGON2ID } from './hashing-job.js';
import { type HashingThreads, sharedHashingThreads } from './hashing-threads.js';

/** A password hashing scheme. */
export interface PasswordHasher {
  /** Short scheme name, e.g. `bcrypt` or `argon2id`. */
  readonly scheme: string;
  /** Hashes a password into this scheme's stored format (with a fresh salt). */
  hash(password: string): Promise<string>;
  /** Whether the stored hash is in this scheme's format. */
  recognizes(stored: string): boolean;
  /** Checks a password against a hash this scheme recognises; false for any malformed hash. */
  verify(password: string, stored: string): Promise<boolean>;
  /** Whether a recognised hash was made with parameters other than the current ones. */
  isOutdated(stored: string): boolean;
}

/** Options of `BcryptHasher`. */
export interface BcryptOptions {
  /** The work factor, an integer from 4 to 31 (default 12). */
  readonly cost?: number;
  /** The threads that hash (default: the process's shared hashing threads). */
  readonly threads?: HashingThreads;
}

/** The default bcrypt cost. */
export const DEFAULT_BCRYPT_COST = 12;

const BCRYPT_PREFIX = /^\$2[abxy]\$\d\d\$/;

/** bcrypt through `@node-rs/bcrypt` (version 2b). */
export class BcryptHasher implements PasswordHasher {
  readonly scheme = 'bcrypt';
  /** The work factor new hashes use. */
  readonly cost: number;
  /** The threads that hash; unset means the shared ones. */
  readonly threads: HashingThreads | undefined;

  constructor(options: BcryptOptions = {}) {
    this.threads = options.threads;
    const cost = options.cost ?? DEFAULT_BCRYPT_COST;
    if (!Number.isInteger(cost) || cost < 4 || cost > 31) {
      throw new ConfigurationError(`bcrypt cost must be an integer from 4 to 31, got ${String(cost)}.`);
    }
    this.cost = cost;
  }

  async hash(password: string): Promise<string> {
    const threads = this.threads ?? sharedHashingThreads();
    return String(await threads.run({ op: 'bcrypt.hash', password, cost: this.cost }));
  }

  recognizes(stored: string): boolean {
    return BCRYPT_PREFIX.test(stored);
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const threads = this.threads ?? sharedHashingThreads();
    return (await threads.run({ op: 'bcrypt.verify', password, stored })) === true;
  }

  isOutdated(stored: string): boolean {
    try {
      const parsed = bcrypt.parseOptions(stored);
      return parsed.cost !== this.cost || parsed.version !== '2b';
    } catch {
      return true;
    }
  }
}

/** Options of `Argon2idHasher` (defaults: OWASP's 19 MiB, 2 passes, 1 lane). */
export interface Argon2idOptions {
  /** Memory in KiB (default 19456). */
  readonly memoryCost?: number;
  /** Passes (default 2). */
  readonly timeCost?: number;
  /** Lanes (default 1). */
  readonly parallelism?: number;
  /** The threads that hash (default: the process's shared hashing threads). */
  readonly threads?: HashingThreads;
}

function positiveInteger(name: string, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max) {
    throw new ConfigurationError(
      `argon2id ${name} must be an integer from 1 to ${max}, got ${String(value)}.`,
    );
  }
  return value;
}

/** argon2id through `@node-rs/argon2`. */
export class Argon2idHasher implements PasswordHasher {
  readonly scheme = 'argon2id';
  /** Memory in KiB new hashes use. */
  readonly memoryCost: number;
  /** Passes new hashes use. */
  readonly timeCost: number;
  /** Lanes new hashes use. */
  readonly parallelism: number;
  /** The threads that hash; unset means the shared ones. */
  readonly threads: HashingThreads | undefined;

  constructor(options: Argon2idOptions = {}) {
    this.threads = options.threads;
    this.memoryCost = positiveInteger('memoryCost', options.memoryCost ?? 19456, 4 * 1024 * 1024);
    this.timeCost = positiveInteger('timeCost', options.timeCost ?? 2, 100);
    this.parallelism = positiveInteger('parallelism', options.parallelism ?? 1, 255);
    if (this.memoryCost < 8 * this.parallelism) {
      throw new ConfigurationError('argon2id memoryCost must be at least 8 KiB per lane.');
    }
  }

  async hash(password: string): Promise<string> {
    const threads = this.threads ?? sharedHashingThreads();
    const { memoryCost, timeCost, parallelism } = this;
    return String(await threads.run({ op: 'argon2id.hash', password, memoryCost, timeCost, parallelism }));
  }

  recognizes(stored: string): boolean {
    return stored.startsWith('$argon2');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const threads = this.threads ?? sharedHashingThreads();
    return (await threads.run({ op: 'argon2id.verify', password, stored })) === true;
  }

  isOutdated(stored: string): boolean {
    try {
      const parsed = argon2Module().parseOptions(stored);
      return (
        parsed.algorithm !== ARGON2ID ||
        parsed.memoryCost !== this.memoryCost ||
        parsed.timeCost !== this.timeCost ||
        parsed.parallelism !== this.parallelism
      );
    } catch {
      return true;
    }
  }
}
