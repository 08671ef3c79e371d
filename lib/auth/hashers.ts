/**
 * Password hashers: bcrypt (`@node-rs/bcrypt`, the default, cost 12) and argon2id
 * (`@node-rs/argon2`, opt-in). Each recognises its own stored format and tells whether a stored
 * hash was made with other parameters than it now uses, so logins can upgrade old hashes.
 */
import * as argon2 from '@node-rs/argon2';
import * as bcrypt from '@node-rs/bcrypt';
import { ConfigurationError } from '../errors.js';

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
}

/** The default bcrypt cost. */
export const DEFAULT_BCRYPT_COST = 12;

const BCRYPT_PREFIX = /^\$2[abxy]\$\d\d\$/;

/** bcrypt through `@node-rs/bcrypt` (version 2b). */
export class BcryptHasher implements PasswordHasher {
  readonly scheme = 'bcrypt';
  /** The work factor new hashes use. */
  readonly cost: number;

  constructor(options: BcryptOptions = {}) {
    const cost = options.cost ?? DEFAULT_BCRYPT_COST;
    if (!Number.isInteger(cost) || cost < 4 || cost > 31) {
      throw new ConfigurationError(`bcrypt cost must be an integer from 4 to 31, got ${String(cost)}.`);
    }
    this.cost = cost;
  }

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, { cost: this.cost, version: '2b' });
  }

  recognizes(stored: string): boolean {
    return BCRYPT_PREFIX.test(stored);
  }

  async verify(password: string, stored: string): Promise<boolean> {
    try {
      return await bcrypt.verify(password, stored);
    } catch {
      return false;
    }
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
}

// `Algorithm` is a const enum in the typings, which verbatimModuleSyntax cannot inline.
const ARGON2ID = 2 as argon2.Algorithm;

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

  constructor(options: Argon2idOptions = {}) {
    this.memoryCost = positiveInteger('memoryCost', options.memoryCost ?? 19456, 4 * 1024 * 1024);
    this.timeCost = positiveInteger('timeCost', options.timeCost ?? 2, 100);
    this.parallelism = positiveInteger('parallelism', options.parallelism ?? 1, 255);
    if (this.memoryCost < 8 * this.parallelism) {
      throw new ConfigurationError('argon2id memoryCost must be at least 8 KiB per lane.');
    }
  }

  hash(password: string): Promise<string> {
    return argon2.hash(password, {
      algorithm: ARGON2ID,
      memoryCost: this.memoryCost,
      timeCost: this.timeCost,
      parallelism: this.parallelism,
    });
  }

  recognizes(stored: string): boolean {
    return stored.startsWith('$argon2');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    try {
      return await argon2.verify(stored, password);
    } catch {
      return false;
    }
  }

  isOutdated(stored: string): boolean {
    try {
      const parsed = argon2.parseOptions(stored);
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
