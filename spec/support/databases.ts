/**
 * Test databases: which targets to run, a fresh uniquely named database per test file, and the
 * skip-or-fail rule for servers that do not answer (skipped locally, a failure under CI=true).
 *
 * Environment: KMA_DATABASES (comma list of targets), KMA_PG_URL and KMA_MYSQL_URL (server URLs
 * without a database, e.g. `postgres://postgres@127.0.0.1:5432`).
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A database the tests can run against. */
export type DatabaseTarget = 'sqlite-memory' | 'sqlite-file' | 'postgresql' | 'mariadb';

/** A fresh database made for one test file; `drop()` removes it. */
export interface TestDatabase {
  readonly target: DatabaseTarget;
  readonly url: string;
  drop(): Promise<void>;
}

const ALL_TARGETS: readonly DatabaseTarget[] = ['sqlite-memory', 'sqlite-file', 'postgresql', 'mariadb'];
const SERVER_TARGETS: readonly DatabaseTarget[] = ['sqlite-file', 'postgresql', 'mariadb'];
const CONNECT_TIMEOUT_MS = 3000;

/** Targets to run: env KMA_DATABASES (comma list) or all four. */
export function databaseTargets(): DatabaseTarget[] {
  const raw = process.env.KMA_DATABASES?.trim();
  if (!raw) return [...ALL_TARGETS];
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  for (const name of names) {
    if (!(ALL_TARGETS as readonly string[]).includes(name)) {
      throw new Error(`KMA_DATABASES names an unknown target "${name}"; known: ${ALL_TARGETS.join(', ')}.`);
    }
  }
  return names as DatabaseTarget[];
}

/** Server targets only, for tests that need several connections: sqlite-file, postgresql, mariadb filtered by KMA_DATABASES. */
export function serverTargets(): DatabaseTarget[] {
  return databaseTargets().filter((target) => SERVER_TARGETS.includes(target));
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/** The PostgreSQL server URL without a database. */
export function postgresServerUrl(): string {
  return trimSlash(process.env.KMA_PG_URL ?? 'postgres://postgres@127.0.0.1:5432');
}

/** The MariaDB/MySQL server URL without a database, with the scheme the mariadb target uses. */
export function mariadbServerUrl(): string {
  return trimSlash(process.env.KMA_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306').replace(/^mysql:/, 'mariadb:');
}

function uniqueName(): string {
  return `kma_${randomBytes(6).toString('hex')}`;
}

async function withPostgres<T>(run: (client: import('pg').Client) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({
    connectionString: `${postgresServerUrl()}/postgres`,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  // An unreachable server emits 'error' besides rejecting connect(): keep it from crashing the process.
  client.on('error', () => {});
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

async function withMariadb<T>(
  run: (connection: import('mysql2/promise').Connection) => Promise<T>,
): Promise<T> {
  const { createConnection } = await import('mysql2/promise');
  const connection = await createConnection({
    uri: mariadbServerUrl().replace(/^mariadb:/, 'mysql:'),
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  connection.on('error', () => {});
  try {
    return await run(connection);
  } finally {
    await connection.end();
  }
}

/** Creates a fresh, uniquely named database (pg/mariadb: CREATE DATABASE kma_<random>; sqlite-file: a temp file; sqlite-memory: 'sqlite::memory:'); drop() removes it. */
export async function createTestDatabase(target: DatabaseTarget): Promise<TestDatabase> {
  const name = uniqueName();
  switch (target) {
    case 'sqlite-memory':
      return { target, url: 'sqlite::memory:', drop: async () => {} };
    case 'sqlite-file': {
      const file = join(tmpdir(), `${name}.sqlite`);
      return {
        target,
        url: `sqlite:${file}`,
        drop: async () => {
          await Promise.all(
            ['', '-wal', '-shm', '-journal'].map((suffix) => rm(file + suffix, { force: true })),
          );
        },
      };
    }
    case 'postgresql':
      await withPostgres((client) => client.query(`CREATE DATABASE ${name}`));
      return {
        target,
        url: `${postgresServerUrl()}/${name}`,
        // FORCE ends sessions a failed test may have left open.
        drop: () =>
          withPostgres(
            async (client) => void (await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
          ),
      };
    case 'mariadb':
      await withMariadb((connection) => connection.query(`CREATE DATABASE ${name}`));
      return {
        target,
        url: `${mariadbServerUrl()}/${name}`,
        drop: () =>
          withMariadb(async (connection) => void (await connection.query(`DROP DATABASE IF EXISTS ${name}`))),
      };
  }
}

const probes = new Map<DatabaseTarget, Promise<string | undefined>>();

async function probe(target: DatabaseTarget): Promise<string | undefined> {
  try {
    if (target === 'postgresql') await withPostgres((client) => client.query('SELECT 1'));
    if (target === 'mariadb') await withMariadb((connection) => connection.query('SELECT 1'));
    return undefined;
  } catch (error) {
    const url = target === 'postgresql' ? postgresServerUrl() : mariadbServerUrl();
    return `${target} server at ${url} does not answer: ${(error as Error).message || String(error)}`;
  }
}

/** undefined when the target's server answers (SQLite always does); otherwise the reason. */
export function targetUnavailable(target: DatabaseTarget): Promise<string | undefined> {
  let pending = probes.get(target);
  if (pending === undefined) {
    pending = probe(target);
    probes.set(target, pending);
  }
  return pending;
}

/**
 * The `node:test` option for a target: `{}` when its server answers, `{ skip: reason }` otherwise
 * (also when KMA_DATABASES leaves the target out). Under CI=true an unreachable server throws
 * instead, so CI fails rather than skips. Async (it probes the server): use top-level `await`.
 * @example
 * describe(`adapter on ${target}`, await requireTarget(target), () => { ... });
 */
export async function requireTarget(target: DatabaseTarget): Promise<{ skip?: string }> {
  // An explicit KMA_DATABASES narrows every test file, even those that name a target directly.
  if (!databaseTargets().includes(target)) return { skip: `${target} is not in KMA_DATABASES` };
  const reason = await targetUnavailable(target);
  if (reason === undefined) return {};
  if (process.env.CI === 'true') throw new Error(`CI=true requires every database target: ${reason}`);
  return { skip: reason };
}
