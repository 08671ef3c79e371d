/**
 * Starting and stopping contender processes: each on its own port, pinned to the server core with
 * `taskset`, talking to the runner over IPC (readiness, event-loop delay, memory).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { ContenderMessage, LoopDelay, RunnerMessage } from '../contenders/shared/telemetry.js';

/** What the runner asks a contender to be. */
export interface LaunchOptions {
  readonly script: string;
  readonly databaseUrl: string;
  readonly jwtSecret: string;
  readonly profile: 'open' | 'secure';
  /** CPU list for taskset, or undefined to run unpinned. */
  readonly cpu: string | undefined;
  readonly startTimeoutMs?: number;
  /** Extra environment of this launch (e.g. `BENCH_MODELS` for the route sweep). */
  readonly env?: Readonly<Record<string, string>>;
  /** Extra Node.js flags (e.g. `--cpu-prof`). */
  readonly nodeArgs?: readonly string[];
}

/** Statistics a contender reports on request. */
export interface ContenderStats {
  readonly rss: number;
  readonly heapUsed: number;
  readonly external: number;
  /** Full garbage collections so far. */
  readonly majorGcs: number;
  /** JS heap in use after the last full collection. */
  readonly liveHeap: number;
  /** CPU time of the process since it started (user + system), in microseconds. */
  readonly cpuMicros: number;
  /** SQL statements the process has run since it started. */
  readonly statements: number;
  readonly eld: LoopDelay;
}

/** A free TCP port on loopback. */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** A running contender process. */
export class ContenderProcess {
  readonly port: number;
  readonly baseUrl: string;
  readonly #child: ChildProcess;
  readonly #log: string[] = [];
  #seq = 0;
  #pending = new Map<number, (message: ContenderMessage) => void>();
  #exited: Promise<number | null>;

  private constructor(child: ChildProcess, port: number) {
    this.#child = child;
    this.port = port;
    this.baseUrl = `http://127.0.0.1:${port}`;
    const keep = (chunk: Buffer): void => {
      this.#log.push(chunk.toString('utf8'));
      if (this.#log.length > 200) this.#log.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.on('message', (message: ContenderMessage) => {
      if (message.type === 'stats' || message.type === 'reset') {
        this.#pending.get(message.seq)?.(message);
        this.#pending.delete(message.seq);
      }
    });
    this.#exited = new Promise((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  }

  /** Starts a contender and waits until it listens; throws with its output when it dies or hangs. */
  static async start(options: LaunchOptions): Promise<ContenderProcess> {
    const port = await freePort();
    const node = [process.execPath, ...(options.nodeArgs ?? []), options.script];
    const [command, ...args] = options.cpu === undefined ? node : ['taskset', '-c', options.cpu, ...node];
    const child = spawn(command as string, args, {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: {
        ...process.env,
        NODE_ENV: 'production',
        PORT: String(port),
        DATABASE_URL: options.databaseUrl,
        JWT_SECRET: options.jwtSecret,
        BENCH_PROFILE: options.profile,
        ...options.env,
      },
    });
    const proc = new ContenderProcess(child, port);
    const timeout = options.startTimeoutMs ?? 30_000;
    const ready = new Promise<void>((resolveReady) => {
      child.on('message', (message: ContenderMessage) => {
        if (message.type === 'ready') resolveReady();
      });
    });
    const outcome = await Promise.race([
      ready.then(() => 'ready' as const),
      proc.#exited.then(() => 'exited' as const),
      new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeout).unref()),
    ]);
    if (outcome !== 'ready') {
      await proc.stop();
      throw new Error(
        `${options.script} (${options.profile}) ${outcome === 'exited' ? 'exited' : 'did not start'}:\n${proc.output()}`,
      );
    }
    return proc;
  }

  /** The process id of the server (taskset execs node, so it is node's pid). */
  get pid(): number {
    return this.#child.pid ?? -1;
  }

  /** The last lines the contender printed. */
  output(): string {
    return this.#log.join('').split('\n').slice(-40).join('\n');
  }

  /** Resident set size from /proc, independent of the contender's cooperation. */
  rss(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match ? Number(match[1]) * 1024 : Number.NaN;
  }

  async #ask(type: RunnerMessage['type']): Promise<ContenderMessage> {
    const seq = ++this.#seq;
    const answer = new Promise<ContenderMessage>((resolveAnswer, reject) => {
      this.#pending.set(seq, resolveAnswer);
      setTimeout(() => reject(new Error(`contender did not answer ${type}`)), 5000).unref();
    });
    this.#child.send({ type, seq } satisfies RunnerMessage);
    return answer;
  }

  /** Clears the contender's event-loop delay histogram. */
  async resetStats(): Promise<void> {
    await this.#ask('reset');
  }

  /** Starts or stops counting SQL statements at the contender's driver (off during measured runs). */
  async countStatements(on: boolean): Promise<void> {
    await this.#ask(on ? 'count-on' : 'count-off');
  }

  /** Event-loop delay since the last reset, and memory. */
  async stats(): Promise<ContenderStats> {
    const message = await this.#ask('stats');
    if (message.type !== 'stats') throw new Error('unexpected answer');
    return {
      rss: message.rss,
      heapUsed: message.heapUsed,
      external: message.external,
      majorGcs: message.majorGcs,
      liveHeap: message.liveHeap,
      cpuMicros: message.cpuMicros,
      statements: message.statements,
      eld: message.eld,
    };
  }

  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await this.#exited;
    clearTimeout(timer);
  }
}
