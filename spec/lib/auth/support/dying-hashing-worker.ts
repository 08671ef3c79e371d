/** A hashing thread that starts, then dies on its first job: for the tests of a thread lost mid-job. */
import { parentPort } from 'node:worker_threads';

parentPort?.postMessage('ready');
parentPort?.on('message', () => process.exit(3));
