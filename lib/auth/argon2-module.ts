/**
 * `@node-rs/argon2`, loaded on its first use. argon2id is opt-in: an application that hashes with
 * bcrypt, as most do, never maps its native library (its RSS: bench/NOTES.md, "Figures behind code comments", argon2 module).
 */
import { createRequire } from 'node:module';

/** The module's API. */
export type Argon2Module = typeof import('@node-rs/argon2');

let loaded: Argon2Module | undefined;

/** The argon2 module, loaded synchronously the first time it is asked for. */
export function argon2Module(): Argon2Module {
  loaded ??= createRequire(import.meta.url)('@node-rs/argon2') as Argon2Module;
  return loaded;
}
