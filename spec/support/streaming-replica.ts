/**
 * A real PostgreSQL streaming replica of a private primary (spec/reliability/support/
 * private-postgres.ts): `pg_basebackup -R -X stream` into a temporary folder owned by the
 * `postgres` OS user, started with `pg_ctl` on a free loopback port as a hot standby. A private
 * primary (initdb's default pg_hba.conf already trusts replication on loopback) keeps the shared
 * server's configuration untouched. Replay can be paused, so that the replica lags for certain.
 */
import { execFile as execFileCallback, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort, type PrivatePostgres, postgresBinaries } from '../reliability/support/private-postgres.js';

const execFile = promisify(execFileCallback);

type Rows = Record<string, unknown>[];

async function withClient<T>(url: string, run: (client: import('pg').Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Runs one statement on a server with a short-lived client. */
export function queryOn(url: string, sql: string, values: unknown[] = []): Promise<Rows> {
  return withClient(url, async (client) => (await client.query(sql, values)).rows as Rows);
}

async function waitFor(what: string, check: () => Promise<boolean>, withinMs = 15_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      last = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `${what} did not happen within ${withinMs} ms${last === undefined ? '' : `: ${String(last)}`}`,
  );
}

/** A running hot standby that streams from a private primary. */
export class StreamingReplica {
  private constructor(
    readonly folder: string,
    readonly port: number,
    private readonly bin: string,
    private readonly primary: PrivatePostgres,
  ) {}

  /** Copies the primary with pg_basebackup, starts the copy as a standby and waits until it streams. */
  static async start(primary: PrivatePostgres): Promise<StreamingReplica> {
    const bin = postgresBinaries();
    if (bin === undefined) throw new Error('no PostgreSQL binaries');
    const folder = mkdtempSync(join(tmpdir(), 'kma-replica-'));
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(folder, uid, gid);
    const replica = new StreamingReplica(folder, await freePort(), bin, primary);
    try {
      await replica.run('pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-D',
        replica.dataDir,
        '-R',
        '-X',
        'stream',
        '-c',
        'fast',
        '--no-sync',
      ]);
      const options = `-p ${replica.port} -k ${folder} -c listen_addresses=127.0.0.1 -c hot_standby=on -c fsync=off`;
      await replica.run('pg_ctl', [
        '-D',
        replica.dataDir,
        '-o',
        options,
        '-l',
        join(folder, 'server.log'),
        '-w',
        '-t',
        '30',
        'start',
      ]);
      await waitFor('streaming from the primary', async () => {
        const rows = await queryOn(
          primary.url(),
          "select count(*)::int as n from pg_stat_replication where state = 'streaming'",
        );
        return rows[0]?.n === 1;
      });
      return replica;
    } catch (error) {
      await replica.destroy();
      throw new Error(`the replica did not start: ${(error as Error).message}\n${replica.log()}`);
    }
  }

  /** The standby's data folder. */
  get dataDir(): string {
    return join(this.folder, 'data');
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /**
   * Waits until the standby has replayed everything the primary has written so far: up to the
   * primary's insert position (with `synchronous_commit=off` its write position may lag behind a
   * commit that already returned).
   */
  async catchUp(): Promise<void> {
    // A transaction committed with synchronous_commit on flushes every WAL record before it, so
    // the WAL sender has everything to send now rather than when the WAL writer next wakes.
    const target = await withClient(this.primary.url(), async (client) => {
      await client.query('begin');
      await client.query('set local synchronous_commit = on');
      await client.query('select txid_current()');
      await client.query('commit');
      const { rows } = await client.query('select pg_current_wal_insert_lsn()::text as lsn');
      return String(rows[0]?.lsn);
    });
    await waitFor('replay catching up', async () => {
      const [done] = await queryOn(this.url(), 'select pg_last_wal_replay_lsn() >= $1::pg_lsn as done', [
        target,
      ]);
      return done?.done === true;
    });
  }

  /** Stops applying the primary's changes (they keep arriving): from now on the standby lags. */
  async pauseReplay(): Promise<void> {
    await queryOn(this.url(), 'select pg_wal_replay_pause()');
    await waitFor('replay pausing', async () => {
      const [row] = await queryOn(this.url(), 'select pg_get_wal_replay_pause_state() as state');
      return row?.state === 'paused';
    });
  }

  /** Applies the primary's changes again and waits until the standby caught up. */
  async resumeReplay(): Promise<void> {
    await queryOn(this.url(), 'select pg_wal_replay_resume()');
    await this.catchUp();
  }

  /** Stops the standby (whatever its state) and removes its folder. */
  async destroy(): Promise<void> {
    try {
      if (existsSync(join(this.dataDir, 'postmaster.pid'))) {
        await this.run('pg_ctl', ['-D', this.dataDir, '-m', 'immediate', '-w', '-t', '30', 'stop']);
      }
    } finally {
      rmSync(this.folder, { recursive: true, force: true });
    }
  }

  /** The standby's log, for failure messages. */
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
