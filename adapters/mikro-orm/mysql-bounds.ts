/**
 * Client-side time limits for MySQL/MariaDB, for a server that stops answering (frozen, or behind a
 * network partition), where the server's own `max_statement_time` cannot act. Neither mysql2's pool
 * nor Kysely's MysqlDialect bounds the wait for a free pooled connection (mysql2's pool options are
 * `connectionLimit`, `maxIdle`, `idleTimeout`, `queueLimit`, `waitForConnections`,
 * `resetOnRelease`), and mysql2's per-query `timeout` calls back with PROTOCOL_SEQUENCE_TIMEOUT but
 * leaves the connection in the pool with the statement still pending: the next request given that
 * connection would queue behind it. So the pool MikroORM built is wrapped where Kysely takes its
 * connections (`pool.getConnection`): the wait is bounded, and every connection handed out runs its
 * statements with mysql2's `timeout`, after which it is destroyed, never reused.
 */
import type { AnyMikroORM } from './describe.js';

/** The part of a mysql2 pool connection the bounds use. */
interface PooledConnection {
  query(sql: unknown, values?: unknown, callback?: unknown): unknown;
  release(): void;
  destroy(): void;
  readonly stream?: { destroy(): void };
}

type ConnectionCallback = (error: Error | null, connection?: PooledConnection) => void;

/** The part of a mysql2 pool the bounds wrap: the method Kysely's MysqlDriver acquires with. */
interface MysqlPool {
  getConnection(callback: ConnectionCallback): void;
}

/** The limits, in ms: waiting for a pooled connection, and one statement. */
export interface MySqlBounds {
  readonly acquireMs: number;
  readonly statementMs: number;
}

const boundPools = new WeakSet<object>();
const boundConnections = new WeakSet<object>();
// Callbacks of ours that mysql2 hands back to `getConnection` itself (it retries a queued request
// that way when a connection leaves the pool): they already run under their request's timer.
const ownCallbacks = new WeakSet<ConnectionCallback>();

/** The error of a request that found no free pooled connection in time: a connection error, so a 503. */
function acquireTimeout(ms: number): Error {
  return Object.assign(new Error(`No database connection became free within ${ms} ms.`), {
    code: 'ETIMEDOUT',
  });
}

/**
 * Runs each callback-style statement with mysql2's `timeout`; when it expires the connection is
 * destroyed before its holder hears of it, so no release can put it back in the pool: whether the
 * server ran, is running or will run the statement is unknown. Closing the socket also makes the
 * server end the session, and roll its transaction back, as soon as it reads again.
 */
function boundStatements(connection: PooledConnection, ms: number): void {
  if (boundConnections.has(connection)) return;
  boundConnections.add(connection);
  const query = connection.query.bind(connection);
  connection.query = (sql: unknown, values?: unknown, callback?: unknown) => {
    // Kysely calls query(sql, parameters, callback); its streaming form (no callback) is left as is.
    if (typeof callback !== 'function' || typeof sql !== 'string') return query(sql, values, callback);
    // No `KILL` over another connection, as Kysely's killSession sends: after a failover or a
    // restart the same connection id may name another client's session.
    let answered = false;
    return query({ sql, timeout: ms }, values, (error: unknown, ...results: unknown[]) => {
      // mysql2 calls back again with the closed connection's error after its timeout: once is enough.
      if (answered) return;
      answered = true;
      if ((error as { code?: unknown } | null)?.code === 'PROTOCOL_SEQUENCE_TIMEOUT') {
        connection.destroy();
        connection.stream?.destroy();
      }
      (callback as (...args: unknown[]) => void)(error, ...results);
    });
  };
}

/** Bounds the waits of a mysql2 pool (once): acquiring within `acquireMs`, each statement within `statementMs`. */
export function boundPool(pool: MysqlPool, bounds: MySqlBounds): void {
  if (boundPools.has(pool)) return;
  boundPools.add(pool);
  const getConnection = pool.getConnection.bind(pool);
  pool.getConnection = (callback) => {
    if (ownCallbacks.has(callback)) return getConnection(callback);
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      callback(acquireTimeout(bounds.acquireMs));
    }, bounds.acquireMs);
    const received: ConnectionCallback = (error, connection) => {
      if (settled) {
        // The request gave up meanwhile: the connection goes to the next one waiting.
        connection?.release();
        return;
      }
      settled = true;
      clearTimeout(timer);
      if (connection !== undefined) boundStatements(connection, bounds.statementMs);
      callback(error, connection);
    };
    ownCallbacks.add(received);
    getConnection(received);
  };
}

/** The MySQL connections of an ORM: the primary's and each read replica's. */
function connectionsOf(orm: AnyMikroORM): { getNativeClient(): Promise<unknown> }[] {
  const driver = orm.em.getDriver();
  // `replicas` is protected in MikroORM's types; the driver offers no way to list them all.
  const replicas = (driver as unknown as { replicas?: unknown[] }).replicas ?? [];
  return [driver.getConnection('write'), ...replicas] as { getNativeClient(): Promise<unknown> }[];
}

/**
 * Bounds the pools of a MySQL/MariaDB ORM (MikroORM builds them at connect, with no hook for the
 * mysql2 pool; a later `orm.reconnect()` builds new, unbounded ones).
 */
export async function boundMySqlPools(orm: AnyMikroORM, bounds: MySqlBounds): Promise<void> {
  for (const connection of connectionsOf(orm)) {
    // `getNativeClient()` connects first (MikroORM 7 connects on first use). With the server down at
    // start that fails in MikroORM's onConnect, after it built the pool and marked itself connected,
    // as a first query would: the app still starts (503 until the server is back), and asking again
    // returns the pool.
    const pool = await connection.getNativeClient().catch(() => connection.getNativeClient());
    boundPool(pool as MysqlPool, bounds);
  }
}
