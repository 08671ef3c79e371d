/** Helpers of the recipe tests: running a recipe's main as a child process, and a Redis probe. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../support/paths.js';

/** The compiled file of a recipe, e.g. `recipeFile('getting-started/main.js')`. */
export function recipeFile(relative: string): string {
  return join(import.meta.dirname, '..', '..', '..', 'examples', 'recipes', relative);
}

/** A recipe main started as a child process. */
export interface RunningProcess {
  readonly child: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  output(): string;
  /** Resolves with the first match of `pattern` in the output (rejects if the process exits first). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Resolves with the exit code (or the signal name) once the process ended. */
  exited(): Promise<number | string>;
}

/** Runs `node <file>` with exactly `env` (plus PATH), from the repository root. */
export function runNode(file: string, env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, [file], {
    cwd: repoRoot(),
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    output += chunk.toString('utf8');
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exit = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
      for (const listener of listeners) listener();
    });
  });
  return {
    child,
    output: () => output,
    exited: () => exit,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(output);
          if (match !== null) finish(() => resolve(match));
          else if (child.exitCode !== null || child.signalCode !== null) {
            finish(() => reject(new Error(`process exited before ${pattern}; output:\n${output}`)));
          }
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`timed out waiting for ${pattern}; output:\n${output}`))),
          timeoutMs,
        );
        const finish = (settle: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** The Redis the tests use. */
export const REDIS_URL = process.env.KMA_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** `{}` when Redis answers, `{ skip }` otherwise (a failure under CI=true). */
export async function requireRedis(): Promise<{ skip?: string }> {
  const { Redis } = await import('ioredis');
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return {};
  } catch (error) {
    if (process.env.CI === 'true')
      throw new Error(`CI=true requires Redis at ${REDIS_URL}: ${(error as Error).message}`);
    return { skip: `Redis at ${REDIS_URL} does not answer` };
  } finally {
    client.disconnect();
  }
}

/** A logger that keeps quiet, for applications built inside a test. */
export const silentLogger = { info(): void {}, warn(): void {}, error(): void {} };
