/**
 * The entry of a hashing thread: it lowers its own scheduling priority, then runs the jobs it is
 * sent one at a time and posts each result back.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { type HashingJob, runHashingJob } from './hashing-job.js';

/** What the thread is told when it starts. */
export interface HashingWorkerData {
  /** The nice value the thread gives itself (Linux only). */
  readonly nice: number;
}

/** A job as posted to the thread. */
export interface HashingRequest {
  readonly id: number;
  readonly job: HashingJob;
}

/** The thread's answer to one request, or `ready` once it has started. */
export type HashingReply =
  | 'ready'
  | { readonly id: number; readonly ok: true; readonly value: string | boolean }
  | { readonly id: number; readonly ok: false; readonly message: string };

// On Linux a thread has its own nice value and setpriority(0) names the calling thread. Elsewhere it
// would lower the whole process, the event loop included, so the thread keeps its priority there.
if (process.platform === 'linux') {
  try {
    setPriority((workerData as HashingWorkerData).nice);
  } catch {
    // A container may forbid it; the hashes still run, at the event loop's priority.
  }
}

// Everything above loaded: from now on a failure is a job's, not the thread's.
parentPort?.postMessage('ready');

parentPort?.on('message', (request: HashingRequest) => {
  let reply: HashingReply;
  try {
    reply = { id: request.id, ok: true, value: runHashingJob(request.job) };
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
