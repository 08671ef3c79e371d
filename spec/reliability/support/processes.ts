/**
 * Starting Node processes for the reliability tests: the example (`examples/blog/main.js`, as
 * `npm start` runs it) or a fixture of this folder, from the same build as the test itself, with
 * their output kept and their exit awaited.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The compiled example entry of the build this test belongs to (dist/ under npm test). */
export const EXAMPLE_MAIN = fileURLToPath(new URL('../../../examples/blog/main.js', import.meta.url));
/** The compiled multi-instance fixture. */
export const INSTANCE_FIXTURE = fileURLToPath(new URL('../fixtures/instance.js', import.meta.url));

/** A started process that said where it listens. */
export interface Started {
  readonly child: ChildProcess;
  readonly base: string;
  /** Everything it wrote so far (stdout and stderr). */
  output(): string;
  /** The exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
}

/** Starts `script` with `env` on top of this process's environment; resolves once it logs `listening on http://…`. */
export function startProcess(
  script: string,
  env: Record<string, string>,
  startMs = 30_000,
): Promise<Started> {
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const onData = (chunk: Buffer): void => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  let ended = false;
  void exited.then(() => {
    ended = true;
    for (const listener of listeners) listener();
  });
  const waitFor = (pattern: RegExp, ms: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const finish = (error?: Error): void => {
        listeners.delete(check);
        clearTimeout(timer);
        if (error === undefined) resolve();
        else reject(error);
      };
      // Also called when the process ends, so no timer outlives it.
      const check = (): void => {
        if (pattern.test(output)) finish();
        else if (ended) finish(new Error(`exited without ${pattern}; output:\n${output}`));
      };
      const timer = setTimeout(
        () => finish(new Error(`no ${pattern} within ${ms} ms; output:\n${output}`)),
        ms,
      );
      listeners.add(check);
      check();
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} did not start:\n${output}`)), startMs);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before listening:\n${output}`));
    });
    waitFor(/listening on (http:\/\/\S+)/, startMs).then(() => {
      clearTimeout(timer);
      const base = /listening on (http:\/\/[^\s]+)/.exec(output)?.[1] as string;
      resolve({ child, base, output: () => output, exited });
    }, reject);
  });
}

/** Stops a process that is still running (SIGTERM, then SIGKILL after `ms`). */
export async function stopProcess(started: Started | undefined, ms = 15_000): Promise<void> {
  if (started === undefined || started.child.exitCode !== null || started.child.signalCode !== null) return;
  started.child.kill('SIGTERM');
  const timer = setTimeout(() => started.child.kill('SIGKILL'), ms);
  await started.exited;
  clearTimeout(timer);
}
