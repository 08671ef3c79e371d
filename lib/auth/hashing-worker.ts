/**
 * The task of a hashing thread (piscina's default export): one job, its result or its error as a
 * value. A job's own failure (a cost bcrypt refuses) thus never looks like a thread that died.
 */
import { type HashingJob, runHashingJob } from './hashing-job.js';

/** A job's result as the thread sends it back. */
export type HashingOutcome =
  | { readonly ok: true; readonly value: string | boolean }
  | { readonly ok: false; readonly message: string };

/** Runs one job on this thread. */
export default function hashingTask(job: HashingJob): HashingOutcome {
  try {
    return { ok: true, value: runHashingJob(job) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}
