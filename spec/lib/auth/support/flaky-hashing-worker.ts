/**
 * A hashing thread that fails to start the first time (while the file named by
 * KMA_FLAKY_HASHING_FLAG does not exist yet) and runs the real worker after that: a passing limit.
 */
import { existsSync, writeFileSync } from 'node:fs';

const flag = process.env.KMA_FLAKY_HASHING_FLAG ?? '';
if (!existsSync(flag)) {
  writeFileSync(flag, 'failed once');
  throw new Error('the first start fails');
}
const real = await import('../../../../lib/auth/hashing-worker.js');

/** The real worker's task. */
export default real.default;
