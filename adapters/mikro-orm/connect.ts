/**
 * Builds a MikroORM instance from a database URL. Drivers are imported on demand, so an
 * application that only installed `@mikro-orm/sqlite` never needs the other drivers.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type IDatabaseDriver, type MetadataProvider, MikroORM, type Options } from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';
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
   * answering 503. Default 3 000. PostgreSQL and MySQL/MariaDB.
   */
  readonly connectTimeoutMs?: number;
  /**
   * How long a PostgreSQL query may wait for the server, in ms, before it fails with 503: a server
   * that stopped answering (a network partition) must not hold requests. Default 4 000.
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
  if (scheme === 'mysql' || scheme === 'mariadb') {
    // @mikro-orm/mysql (mysql2) speaks to both servers.
    return {
      packageName: '@mikro-orm/mysql',
      exportName: 'MySqlDriver',
      connection: { clientUrl: url.replace(/^mariadb:/i, 'mysql:') },
    };
  }
  throw new ConfigurationError(
    `Unsupported database URL scheme "${scheme ?? url.split(':')[0]}": use sqlite:path, sqlite::memory:, postgres://, postgresql://, mysql:// or mariadb://.`,
  );
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

// Bounded waits, so that a database that stops answering gives 503s instead of hung requests.
function timeoutOptions(packageName: string, connectMs: number, queryMs: number): Partial<Options> {
  if (packageName === '@mikro-orm/postgresql') {
    return { driverOptions: { connectionTimeoutMillis: connectMs, query_timeout: queryMs } };
  }
  if (packageName === '@mikro-orm/mysql') return { driverOptions: { connectTimeout: connectMs } };
  return {};
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
  const config: Partial<Options<IDatabaseDriver>> = {
    // Datetimes are stored in UTC so that every server and client zone reads them back alike.
    forceUtcTimezone: true,
    ...timeoutOptions(choice.packageName, connectTimeoutMs, queryTimeoutMs),
    ...rest,
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
    if (schema === 'update') await updateSchemaSafely(orm);
    if (schema === 'create') await orm.schema.create();
  } catch (error) {
    await orm.close(true);
    throw error;
  }
  return orm;
}
