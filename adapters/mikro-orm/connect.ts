/**
 * Builds a MikroORM instance from a database URL. Drivers are imported on demand, so an
 * application that only installed `@mikro-orm/sqlite` never needs the other drivers.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type IDatabaseDriver, type MetadataProvider, MikroORM, type Options } from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';
import { CLIENT_GRACE_MS, postgresWaitOptions } from './bounded-waits.js';
import { boundMySqlPools } from './mysql-bounds.js';
import { mikroOrmOptions } from './options.js';
import { updateSchemaSafely } from './schema.js';

/** Options of `MikroOrmAdapter.connect()`: a URL, the entities, and any other MikroORM option. */
export interface MikroOrmConnectOptions
  extends Omit<
    Partial<Options>,
    'clientUrl' | 'dbName' | 'driver' | 'entities' | 'schema' | 'pool' | 'debug'
  > {
  /** `sqlite:path`, `sqlite::memory:`, `postgres://…`, `postgresql://…`, `mysql://…` or `mariadb://…`. */
  readonly url: string;
  /** Entity classes or schemas, as MikroORM's `entities`. */
  readonly entities: Options['entities'];
  /**
   * Make the tables match the entities at start: `update` (alter to match), `create`, or `none`
   * (default). Not MikroORM's `schema` option (a PostgreSQL schema name): put that in the URL
   * (`postgres://…/app?schema=sales`).
   */
  readonly schema?: 'update' | 'create' | 'none';
  /** Log SQL queries. */
  readonly debug?: boolean;
  /**
   * How long to wait for a new database connection (or a free one from the pool), in ms, before
   * answering 503; each time a request takes one. Default 3 000. PostgreSQL and MySQL/MariaDB.
   */
  readonly connectTimeoutMs?: number;
  /**
   * How long one statement may take, in ms, before it fails with 503. PostgreSQL and MySQL/MariaDB
   * stop it on the server (`statement_timeout`, `max_execution_time` for MySQL SELECTs,
   * `max_statement_time` on MariaDB), so a request that gives up also frees the database; the
   * client also gives up 500 ms later on its own, for a server that stopped answering, and closes
   * that connection, whose state is unknown (PostgreSQL and MySQL/MariaDB): a request that meets a
   * frozen server answers 503 within `connectTimeoutMs` + `queryTimeoutMs` + 500 ms (7.5 s with the
   * defaults). Default 4 000. Behind PgBouncer in transaction mode the session setting does not
   * follow the client: set `statement_timeout` on the role instead (docs/deployment.md).
   */
  readonly queryTimeoutMs?: number;
  /** Connection pool bounds. */
  readonly pool?: {
    /** Connections kept open when idle. */
    readonly min?: number;
    /** Most connections open at once. */
    readonly max?: number;
  };
}

type DriverClass = NonNullable<Options['driver']>;

/** The driver package, its driver class and the connection options a URL stands for. */
export interface DriverChoice {
  readonly packageName: string;
  readonly exportName: string;
  readonly connection: Partial<Options>;
}

/** The version of the installed `@mikro-orm/core`, as MikroORM reports it. */
async function installedCoreVersion(): Promise<string | undefined> {
  try {
    const { Utils } = await import('@mikro-orm/core');
    const version = (Utils as unknown as { getORMVersion?: () => string }).getORMVersion?.();
    return typeof version === 'string' && /^\d+\.\d+\.\d+/.test(version) ? version : undefined;
  } catch {
    return undefined;
  }
}

// A computed specifier: TypeScript must not require every driver when users build.
async function importDriver(packageName: string, exportName: string): Promise<DriverClass> {
  try {
    const module = (await import(packageName)) as Record<string, unknown>;
    return module[exportName] as DriverClass;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') {
      // Every @mikro-orm package needs @mikro-orm/core at exactly its own version.
      const core = await installedCoreVersion();
      const spec = core === undefined ? packageName : `${packageName}@${core}`;
      throw new ConfigurationError(
        `This database URL needs the package ${packageName}: npm install --save-exact ${spec}`,
      );
    }
    throw error;
  }
}

/** The driver and connection options for a URL; the URL's secrets never reach an error message. */
export function driverForUrl(url: string): DriverChoice {
  if (url.startsWith('sqlite:')) {
    // `sqlite:data/app.db`, `sqlite:///abs/path.db`, `sqlite::memory:`
    let path = url.slice('sqlite:'.length);
    if (path.startsWith('//')) path = path.slice(2);
    if (path.length === 0)
      throw new ConfigurationError('A sqlite: URL needs a file path or :memory: (e.g. sqlite:data/app.db).');
    return {
      packageName: '@mikro-orm/sqlite',
      exportName: 'SqliteDriver',
      connection: { dbName: path },
    };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    return {
      packageName: '@mikro-orm/postgresql',
      exportName: 'PostgreSqlDriver',
      connection: { clientUrl: url.replace(/^postgres:/i, 'postgresql:') },
    };
  }
  if (scheme === 'mysql') {
    return { packageName: '@mikro-orm/mysql', exportName: 'MySqlDriver', connection: { clientUrl: url } };
  }
  if (scheme === 'mariadb') {
    // MikroORM's MariaDB driver (mysql2 underneath, as MySQL's): its schema diff reads MariaDB's
    // catalogue right, where MySqlDriver would alter every nullable column at each `schema: 'update'`
    // and try to drop the CHECK MariaDB names after a json column (which fails the second start).
    return {
      packageName: '@mikro-orm/mariadb',
      exportName: 'MariaDbDriver',
      connection: { clientUrl: url.replace(/^mariadb:/i, 'mysql:') },
    };
  }
  throw new ConfigurationError(
    `Unsupported database URL scheme "${scheme ?? url.split(':')[0]}": use sqlite:path, sqlite::memory:, postgres://, postgresql://, mysql:// or mariadb://.`,
  );
}

/** Whether a driver package speaks to MySQL/MariaDB through mysql2 (`@mikro-orm/mariadb` extends `@mikro-orm/mysql`). */
function isMySqlFamily(packageName: string): boolean {
  return packageName === '@mikro-orm/mysql' || packageName === '@mikro-orm/mariadb';
}

// Legacy decorators need reflected types unless every property names its type; use the
// reflect-metadata provider whenever @mikro-orm/decorators is installed.
async function defaultMetadataProvider(): Promise<(new (...args: never[]) => MetadataProvider) | undefined> {
  try {
    const module = (await import('@mikro-orm/decorators/legacy')) as {
      ReflectMetadataProvider?: new (...args: never[]) => MetadataProvider;
    };
    return module.ReflectMetadataProvider;
  } catch {
    return undefined;
  }
}

/**
 * Bounded waits, so that a database that stops answering gives 503s instead of hung requests.
 * PostgreSQL's server limit is set by pg-pool's `onConnect` (pg-pool 3.10+), awaited before a new
 * connection is first used, so it covers statements sent to the pool directly
 * (adapters/mikro-orm/statements.ts) as well as MikroORM's. A SET, not the `statement_timeout`
 * startup parameter: PgBouncer refuses startup parameters it does not know.
 */
function timeoutOptions(packageName: string, connectMs: number, queryMs: number): Partial<Options> {
  if (packageName === '@mikro-orm/postgresql')
    return { driverOptions: postgresWaitOptions(connectMs, queryMs) };
  if (isMySqlFamily(packageName)) return { driverOptions: { connectTimeout: connectMs } };
  return {};
}

/** The part of a Kysely connection `onCreateConnection` receives that runs a statement. */
interface SessionConnection {
  executeQuery(query: {
    sql: string;
    parameters: readonly unknown[];
    query: unknown;
    queryId: unknown;
  }): Promise<{ rows: readonly Record<string, unknown>[] }>;
}

// A compiled query as Kysely builds one; made by hand, as kysely is MikroORM's dependency, not ours.
function runOn(
  connection: SessionConnection,
  sql: string,
): Promise<{ rows: readonly Record<string, unknown>[] }> {
  return connection.executeQuery({
    sql,
    parameters: [],
    query: { kind: 'RawNode', sqlFragments: [sql], parameters: [] },
    queryId: { queryId: 'kma-session-limit' },
  });
}

let warnedMySqlUrl = false;

// MySqlDriver reads MariaDB's catalogue wrong (schema diffs, json CHECKs) and its JSON differently.
function warnMySqlUrlOnMariaDb(): void {
  if (warnedMySqlUrl) return;
  warnedMySqlUrl = true;
  process.emitWarning(
    "A mysql:// URL reached a MariaDB server: connect() uses MikroORM's MySqlDriver for it, whose schema diff misreads MariaDB (schema: 'update' alters every nullable column at each start, and fails the second start of a model with a json column). Use a mariadb:// URL (MikroORM's MariaDbDriver, package @mikro-orm/mariadb).",
    { code: 'KMA_MYSQL_URL_ON_MARIADB' },
  );
}

/**
 * Puts a new MySQL/MariaDB connection under the time limit (Kysely's `onCreateConnection`: every
 * statement of the MySQL driver goes through Kysely). The servers name the setting differently.
 */
async function limitSession(packageName: string, connection: SessionConnection, ms: number): Promise<void> {
  if (isMySqlFamily(packageName)) {
    const { rows } = await runOn(connection, 'select version() as v');
    const mariadb = /mariadb/i.test(String(rows[0]?.v ?? ''));
    if (mariadb && packageName === '@mikro-orm/mysql') warnMySqlUrlOnMariaDb();
    await runOn(
      connection,
      mariadb ? `set session max_statement_time = ${ms / 1000}` : `set session max_execution_time = ${ms}`,
    );
    // MySQL's max_execution_time stops SELECTs only: a write waiting on a row lock would outlive the
    // client's own limit (mysql-bounds.ts), answered 503 yet committed once the lock is gone. The
    // server ends such a wait first (whole seconds, at least 1).
    if (!mariadb)
      await runOn(connection, `set session innodb_lock_wait_timeout = ${Math.max(1, Math.ceil(ms / 1000))}`);
  }
}

/** Initialises MikroORM for the URL with koa-model-api's conventions and applies the `schema` option. */
export async function ormFromUrl(options: MikroOrmConnectOptions): Promise<MikroORM> {
  const {
    url,
    schema = 'none',
    debug,
    pool,
    entities,
    connectTimeoutMs = 3_000,
    queryTimeoutMs = 4_000,
    ...rest
  } = options;
  for (const [name, value] of Object.entries({ connectTimeoutMs, queryTimeoutMs })) {
    if (!Number.isInteger(value) || value <= 0) {
      throw new ConfigurationError(`MikroOrmAdapter.connect(): ${name} must be a positive number of ms.`);
    }
  }
  if (typeof url !== 'string' || url.length === 0)
    throw new ConfigurationError('MikroOrmAdapter.connect() needs a database url.');
  const choice = driverForUrl(url);
  const driver = await importDriver(choice.packageName, choice.exportName);
  const file = choice.connection.dbName;
  // SQLite creates the file but not its folder (`sqlite:data/app.db` on a fresh clone).
  if (file !== undefined && file !== ':memory:') await mkdir(dirname(file), { recursive: true });
  const metadataProvider = rest.metadataProvider ?? (await defaultMetadataProvider());
  const userOnCreate = rest.onCreateConnection;
  const config: Partial<Options<IDatabaseDriver>> = {
    // Datetimes are stored in UTC so that every server and client zone reads them back alike.
    forceUtcTimezone: true,
    ...timeoutOptions(choice.packageName, connectTimeoutMs, queryTimeoutMs),
    ...rest,
    // Only where a session setting is needed (MySQL/MariaDB's statement limit) or the user asked:
    // a connection hook makes the adapter's statement runner step aside (it cannot know what a hook
    // sets on the connection), which would cost every SQLite and PostgreSQL query its fast path.
    ...(isMySqlFamily(choice.packageName) || userOnCreate !== undefined
      ? {
          onCreateConnection: async (connection: unknown) => {
            await limitSession(choice.packageName, connection as SessionConnection, queryTimeoutMs);
            await userOnCreate?.(connection);
          },
        }
      : {}),
    ...choice.connection,
    driver,
    entities,
    ...(metadataProvider === undefined
      ? {}
      : { metadataProvider: metadataProvider as Options['metadataProvider'] }),
    ...(debug === undefined ? {} : { debug }),
    ...(pool === undefined ? {} : { pool: { ...pool } }),
  };
  const orm = await MikroORM.init(mikroOrmOptions(config));
  try {
    if (isMySqlFamily(choice.packageName))
      await boundMySqlPools(orm, {
        acquireMs: connectTimeoutMs,
        statementMs: queryTimeoutMs + CLIENT_GRACE_MS,
      });
    if (schema === 'update') await updateSchemaSafely(orm);
    if (schema === 'create') await orm.schema.create();
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}
