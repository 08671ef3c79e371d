/**
 * `boundedWaits()`: the time limits `MikroOrmAdapter.connect()` sets, for a PostgreSQL ORM built
 * with `mikroOrmOptions()` (a configuration shared with the migrations CLI, which must not get
 * them: a migration may run longer). Without them a server that stops answering leaves requests
 * hanging instead of answering 503: `pg` waits for a connection and for a statement for ever.
 */
import type { IDatabaseDriver, Options } from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';
import { usesPostgres } from './options.js';

/** The limits, in ms (the defaults of `MikroOrmAdapter.connect()`). */
export interface WaitLimits {
  /** Longest wait for a connection, the pool's included (default 3000). */
  readonly connectTimeoutMs?: number;
  /** Longest statement: the server cancels it, the client gives up 0.5 s later (default 4000). */
  readonly queryTimeoutMs?: number;
}

/**
 * How long after the server's statement limit the client gives up: normally the server's cancel
 * arrives first (a clean error, the connection still usable); this acts only for a silent server,
 * which must still be answered 503 within 5 s of the request when a connection is free
 * (spec/reliability/outage.test.ts), and after the pool's wait otherwise (frozen-server.test.ts).
 */
export const CLIENT_GRACE_MS = 500;

/** A `pg` client, as pg-pool's `onConnect` hands it over. */
interface PgClient {
  query(sql: string): Promise<unknown>;
}

/**
 * `pg`'s options for the limits. The server's limit is set by pg-pool's `onConnect`, awaited before
 * a new connection is first used: a SET, not the `statement_timeout` startup parameter, which
 * PgBouncer refuses. `own` is an `onConnect` of the application's, run after it.
 */
export function postgresWaitOptions(
  connectMs: number,
  queryMs: number,
  own?: (client: PgClient) => unknown,
): Record<string, unknown> {
  return {
    connectionTimeoutMillis: connectMs,
    query_timeout: queryMs + CLIENT_GRACE_MS,
    onConnect: async (client: PgClient) => {
      await client.query(`set statement_timeout = ${queryMs}`);
      await own?.(client);
    },
  };
}

/**
 * Adds `MikroOrmAdapter.connect()`'s time limits to PostgreSQL options (an `onConnect` of yours in
 * `driverOptions` still runs). MySQL/MariaDB's limits need the pool `connect()` builds: use it there.
 * @example
 * const orm = await MikroORM.init(boundedWaits(ormConfig(process.env.DATABASE_URL)));
 */
export function boundedWaits<D extends IDatabaseDriver = IDatabaseDriver>(
  options: Partial<Options<D>>,
  limits: WaitLimits = {},
): Partial<Options<D>> {
  const { connectTimeoutMs = 3_000, queryTimeoutMs = 4_000 } = limits;
  for (const [name, value] of Object.entries({ connectTimeoutMs, queryTimeoutMs })) {
    if (!Number.isInteger(value) || value <= 0)
      throw new ConfigurationError(`boundedWaits(): ${name} must be a positive number of ms.`);
  }
  if (!usesPostgres(options))
    throw new ConfigurationError(
      'boundedWaits() sets PostgreSQL limits (pg connection and query timeouts, a statement_timeout); on MySQL/MariaDB use MikroOrmAdapter.connect(), which also bounds the mysql2 pool, and SQLite needs none.',
    );
  const given = (options.driverOptions ?? {}) as Record<string, unknown>;
  const own = given.onConnect as ((client: PgClient) => unknown) | undefined;
  return {
    ...options,
    driverOptions: { ...given, ...postgresWaitOptions(connectTimeoutMs, queryTimeoutMs, own) },
  } as Partial<Options<D>>;
}
