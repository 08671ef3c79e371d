/** The work a hashing thread does: one bcrypt or argon2id hash or verification, described as data. */
import type { Algorithm } from '@node-rs/argon2';
import * as bcrypt from '@node-rs/bcrypt';
import { argon2Module } from './argon2-module.js';

/** One password hash or verification, as it is posted to a hashing thread. */
export type HashingJob =
  | { readonly op: 'bcrypt.hash'; readonly password: string; readonly cost: number }
  | { readonly op: 'bcrypt.verify'; readonly password: string; readonly stored: string }
  | {
      readonly op: 'argon2id.hash';
      readonly password: string;
      readonly memoryCost: number;
      readonly timeCost: number;
      readonly parallelism: number;
    }
  | { readonly op: 'argon2id.verify'; readonly password: string; readonly stored: string };

/** argon2id's number in `@node-rs/argon2` (a const enum in its typings, which verbatimModuleSyntax cannot inline). */
export const ARGON2ID = 2 as Algorithm;

/** Runs a job on the calling thread; a verification of a malformed hash is false, not an error. */
export function runHashingJob(job: HashingJob): string | boolean {
  switch (job.op) {
    case 'bcrypt.hash':
      return bcrypt.hashSync(job.password, { cost: job.cost, version: '2b' });
    case 'bcrypt.verify':
      try {
        return bcrypt.verifySync(job.password, job.stored);
      } catch {
        return false;
      }
    case 'argon2id.hash':
      return argon2Module().hashSync(job.password, {
        algorithm: ARGON2ID,
        memoryCost: job.memoryCost,
        timeCost: job.timeCost,
        parallelism: job.parallelism,
      });
    case 'argon2id.verify':
      try {
        return argon2Module().verifySync(job.stored, job.password);
      } catch {
        return false;
      }
  }
}

/** Runs a job on libuv's pool instead (the fallback when no hashing thread can start). */
export async function runHashingJobOnPool(job: HashingJob): Promise<string | boolean> {
  switch (job.op) {
    case 'bcrypt.hash':
      return bcrypt.hash(job.password, { cost: job.cost, version: '2b' });
    case 'bcrypt.verify':
      return bcrypt.verify(job.password, job.stored).catch(() => false);
    case 'argon2id.hash':
      return argon2Module().hash(job.password, {
        algorithm: ARGON2ID,
        memoryCost: job.memoryCost,
        timeCost: job.timeCost,
        parallelism: job.parallelism,
      });
    case 'argon2id.verify':
      return argon2Module()
        .verify(job.stored, job.password)
        .catch(() => false);
  }
}
