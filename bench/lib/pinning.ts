/** Core pinning: the contender under test on core 0, the runner (autocannon) on core 1. */
import { execFileSync } from 'node:child_process';
import { availableParallelism } from 'node:os';

/** Where servers run, and how the run was pinned (for the report). */
export interface Pinning {
  /** CPU list for the contenders' taskset, or undefined when unpinned. */
  readonly serverCpu: string | undefined;
  readonly description: string;
}

/** Pins this process (all its threads) to core 1 and reserves core 0 for the contender; degrades to unpinned. */
export function pinRunner(): Pinning {
  if (availableParallelism() < 2) {
    return {
      serverCpu: undefined,
      description: 'unpinned: one CPU available, server and load generator share it',
    };
  }
  try {
    execFileSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
    return {
      serverCpu: '0',
      description:
        'contender on core 0 (taskset -c 0), runner and autocannon on core 1 (taskset -a -p -c 1); the database server is not pinned',
    };
  } catch {
    return { serverCpu: undefined, description: 'unpinned: taskset is not available' };
  }
}
