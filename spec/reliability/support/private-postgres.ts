/**
 * A PostgreSQL server of the test's own: `initdb` into a temporary folder owned by the `postgres`
 * OS user and `pg_ctl` on a free loopback port, so a test may stop, freeze and restart it. The
 * machine's shared server is never touched.
 */
import { execFile as execFileCallback, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);

/** The folder holding `initdb` and `pg_ctl`: `KMA_PG_BIN`, else the newest /usr/lib/postgresql/<v>/bin. */
export function postgresBinaries(): string | undefined {
  if (process.env.KMA_PG_BIN !== undefined) return process.env.KMA_PG_BIN;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length === 0 ? undefined : join(root, versions[0] as string, 'bin');
}

/** Why a private server cannot be made here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (postgresBinaries() === undefined)
    return 'no PostgreSQL binaries (set KMA_PG_BIN to the folder of initdb and pg_ctl)';
  if (process.getuid?.() !== 0) return 'running the server as the postgres user needs root (runuser)';
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'pipe' });
  } catch {
    return 'there is no postgres OS user';
  }
  return undefined;
}

/** The node:test option: skipped locally when a private server cannot be made, a failure under CI=true. */
export function requirePrivatePostgres(): { skip?: string } {
  const reason = privatePostgresUnavailable();
  if (reason === undefined) return {};
  if (process.env.CI === 'true') throw new Error(`CI=true requires a private PostgreSQL server: ${reason}`);
  return { skip: reason };
}

/** A port nobody listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** A running private server. */
export class PrivatePostgres {
  private constructor(
    readonly folder: string,
    readonly port: number,
    private readonly bin: string,
  ) {}

  /** Makes a fresh cluster and starts it. */
  static async start(): Promise<PrivatePostgres> {
    const bin = postgresBinaries();
    if (bin === undefined) throw new Error('no PostgreSQL binaries');
    const folder = mkdtempSync(join(tmpdir(), 'kma-pg-'));
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(folder, uid, gid);
    const server = new PrivatePostgres(folder, await freePort(), bin);
    await server.run('initdb', [
      '-D',
      server.dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
      '--no-instructions',
    ]);
    await server.startServer();
    return server;
  }

  /** The cluster's data folder. */
  get dataDir(): string {
    return join(this.folder, 'data');
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts the server (again) on the same port and waits until it accepts connections. */
  async startServer(): Promise<void> {
    const options = `-p ${this.port} -k ${this.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off`;
    await this.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-o',
      options,
      '-l',
      join(this.folder, 'server.log'),
      '-w',
      '-t',
      '30',
      'start',
    ]);
  }

  /** Stops the server: `fast` ends sessions cleanly, `immediate` drops them as a crash would. */
  async stopServer(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.run('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
  }

  /** The pids of the postmaster and every backend it started. */
  pids(): number[] {
    const postmaster = Number(readFileSync(join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)])
      .toString()
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((pid) => pid > 0);
    return [postmaster, ...children];
  }

  /** Freezes (SIGSTOP) or thaws (SIGCONT) every process of this server: a network partition, seen from the app. */
  signalAll(signal: 'SIGSTOP' | 'SIGCONT'): void {
    for (const pid of this.pids()) {
      try {
        process.kill(pid, signal);
      } catch {
        // A backend that ended meanwhile.
      }
    }
  }

  /** Stops the server (whatever its state) and removes the folder. */
  async destroy(): Promise<void> {
    try {
      if (existsSync(join(this.dataDir, 'postmaster.pid'))) {
        this.signalAll('SIGCONT');
        await this.stopServer('immediate');
      }
    } finally {
      rmSync(this.folder, { recursive: true, force: true });
    }
  }

  /** The server's log, for failure messages. */
  log(): string {
    try {
      return readFileSync(join(this.folder, 'server.log'), 'utf8');
    } catch {
      return '';
    }
  }

  private async run(tool: string, args: readonly string[]): Promise<void> {
    await execFile('runuser', ['-u', 'postgres', '--', join(this.bin, tool), ...args], { timeout: 60_000 });
  }
}
