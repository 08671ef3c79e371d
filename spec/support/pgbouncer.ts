/**
 * A PgBouncer of the test's own: Debian's `/usr/sbin/pgbouncer` (1.18 on Debian 12) in
 * `pool_mode=transaction` with a pool of 3 server connections per database, on a free loopback
 * port, in front of the shared PostgreSQL server. PgBouncer refuses to run as root, so a root test
 * run starts it as the `postgres` OS user, with its configuration and log in a temporary folder
 * that user owns. The admin console (`RECONNECT`, `KILL`, `SHOW POOLS`) is reachable as user
 * `postgres` on database `pgbouncer`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresServerUrl, requireTarget } from './databases.js';

/** Where Debian installs PgBouncer; `KMA_PGBOUNCER` names another binary. */
export function pgbouncerBinary(): string {
  return process.env.KMA_PGBOUNCER ?? '/usr/sbin/pgbouncer';
}

/** Why PgBouncer cannot be started here, or undefined when it can. */
function pgbouncerUnavailable(): string | undefined {
  try {
    accessSync(pgbouncerBinary(), constants.X_OK);
  } catch {
    return `${pgbouncerBinary()} is missing (apt-get install pgbouncer; scripts/ci-browser.sh installs it)`;
  }
  if (process.getuid?.() === 0 && postgresUser() === undefined)
    return 'PgBouncer refuses to run as root and there is no postgres OS user to run it as';
  return undefined;
}

/**
 * The `node:test` option for a PgBouncer test: the PostgreSQL target must answer (as
 * `requireTarget`) and the binary must exist. Skipped locally when either is missing; under CI=true
 * a missing binary throws, so CI fails rather than skips.
 */
export async function requirePgbouncer(): Promise<{ skip?: string }> {
  const target = await requireTarget('postgresql');
  if (target.skip !== undefined) return target;
  const reason = pgbouncerUnavailable();
  if (reason === undefined) return {};
  if (process.env.CI === 'true') throw new Error(`CI=true requires PgBouncer: ${reason}`);
  return { skip: reason };
}

/** The uid and gid of the `postgres` OS user, when there is one. */
function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { stdio: 'pipe' }).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { stdio: 'pipe' }).toString().trim());
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/** A loopback port nobody listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** How PgBouncer is configured by `start`; the defaults are the setup the issue reproduced. */
export interface PgbouncerSettings {
  readonly poolMode?: 'transaction' | 'session';
  readonly defaultPoolSize?: number;
}

const START_TIMEOUT_MS = 10_000;

/** A running PgBouncer. */
export class Pgbouncer {
  readonly #child: ChildProcess;
  readonly #folder: string;
  #exited = false;

  private constructor(
    child: ChildProcess,
    folder: string,
    readonly port: number,
    readonly settings: Required<PgbouncerSettings>,
  ) {
    this.#child = child;
    this.#folder = folder;
    child.once('exit', () => {
      this.#exited = true;
    });
  }

  /** Writes a configuration for the shared PostgreSQL server and starts PgBouncer on a free port. */
  static async start(settings: PgbouncerSettings = {}): Promise<Pgbouncer> {
    const chosen = { poolMode: 'transaction', defaultPoolSize: 3, ...settings } as const;
    const server = new URL(postgresServerUrl());
    const folder = mkdtempSync(join(tmpdir(), 'kma-pgbouncer-'));
    const port = await freePort();
    const config = [
      '[databases]',
      // Every database name the clients ask for, on the shared server.
      `* = host=${server.hostname} port=${server.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      // No Unix socket: a second PgBouncer (or the system's) must never collide with this one.
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(folder, 'userlist.txt')}`,
      'admin_users = postgres',
      `pool_mode = ${chosen.poolMode}`,
      `default_pool_size = ${chosen.defaultPoolSize}`,
      'max_client_conn = 500',
      // After KILL, PgBouncer 1.18 held new logins for up to server_login_retry (15 s by default).
      'server_login_retry = 1',
      `logfile = ${join(folder, 'pgbouncer.log')}`,
      `pidfile = ${join(folder, 'pgbouncer.pid')}`,
      '',
    ].join('\n');
    writeFileSync(join(folder, 'pgbouncer.ini'), config);
    writeFileSync(
      join(folder, 'userlist.txt'),
      `"${decodeURIComponent(server.username || 'postgres')}" ""\n`,
    );
    const user = process.getuid?.() === 0 ? postgresUser() : undefined;
    if (user !== undefined) {
      for (const name of ['', 'pgbouncer.ini', 'userlist.txt'])
        chownSync(join(folder, name), user.uid, user.gid);
    }
    const child = spawn(pgbouncerBinary(), [join(folder, 'pgbouncer.ini')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const bouncer = new Pgbouncer(child, folder, port, chosen);
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      try {
        await bouncer.admin('SHOW VERSION');
        return bouncer;
      } catch (error) {
        if (bouncer.#exited || Date.now() > deadline) {
          await bouncer.stop();
          throw new Error(
            `PgBouncer did not start: ${(error as Error).message}\n${output}\n${bouncer.#logOf(folder)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** `postgres://…@127.0.0.1:<port>/<database>`: a database of the shared server, through PgBouncer. */
  url(database: string): string {
    const server = new URL(postgresServerUrl());
    const credentials = server.username === '' ? 'postgres' : server.username;
    const password = server.password === '' ? '' : `:${server.password}`;
    return `postgres://${credentials}${password}@127.0.0.1:${this.port}/${database}`;
  }

  /** Runs one admin console command (simple protocol, as the console requires) and returns its rows. */
  async admin(command: string): Promise<Record<string, unknown>[]> {
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: this.url('pgbouncer'), connectionTimeoutMillis: 2_000 });
    client.on('error', () => {});
    await client.connect();
    try {
      const result = await client.query(command);
      return result.rows as Record<string, unknown>[];
    } finally {
      await client.end();
    }
  }

  /** PgBouncer's log so far, for failure messages. */
  log(): string {
    return this.#logOf(this.#folder);
  }

  #logOf(folder: string): string {
    try {
      return readFileSync(join(folder, 'pgbouncer.log'), 'utf8');
    } catch {
      return '';
    }
  }

  /** Stops PgBouncer (SIGTERM, SIGKILL after 5 s) and removes its folder. */
  async stop(): Promise<void> {
    if (!this.#exited && this.#child.exitCode === null) {
      const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
      this.#child.kill('SIGTERM');
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.#folder, { recursive: true, force: true });
  }
}
