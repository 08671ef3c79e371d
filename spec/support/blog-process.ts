/**
 * The example blog started the way `npm start` starts it: a separate Node process running the
 * compiled `examples/blog/main.js`, ready once it logs "listening on … — docs at …/docs".
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

/** A running example process. */
export interface BlogProcess {
  readonly child: ChildProcess;
  /** Where it listens, e.g. `http://127.0.0.1:40123`. */
  readonly base: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Time the example gets to connect, build its schema and listen. */
const START_TIMEOUT_MS = 30_000;

/**
 * `main.js` of the same build as this file (dist/spec/support → dist/examples/blog), so a build
 * into another out dir runs its own example, not a stale `dist/`.
 */
export function blogMainPath(): string {
  return join(import.meta.dirname, '..', '..', 'examples', 'blog', 'main.js');
}

/** Starts the example with `env` added to this process's environment, from the repository root. */
export function startBlog(env: Record<string, string>): Promise<BlogProcess> {
  const child = spawn(process.execPath, [blogMainPath()], {
    cwd: repoRoot(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = (): Promise<number | null> =>
    new Promise((resolve) => {
      child.removeAllListeners('exit');
      if (child.exitCode !== null || child.signalCode !== null) {
        resolve(child.exitCode);
        return;
      }
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      // A process that never became ready must not outlive the test run.
      child.kill('SIGKILL');
      reject(new Error(`the example did not start within ${START_TIMEOUT_MS} ms:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+) — docs at \S+\/docs/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve({ child, base: match[1] as string, output: () => output, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the example exited with ${code}:\n${output}`));
    });
  });
}
