/**
 * Runs the adapter's SQL with bound parameters and statements prepared once. MikroORM 7 inlines
 * every parameter into the SQL text before running it, so each query is new text: SQLite
 * (better-sqlite3) prepares every query anew — a sixth of the CPU of a GET by id, per the profile
 * in docs/benchmarks.md — and PostgreSQL parses and plans each one. Here the SQL the query
 * builder produced (`toQuery()`: placeholders and parameters) runs as a cached better-sqlite3
 * statement, under kysely's connection lock so it never lands inside another request's
 * transaction, or as a named (server-side prepared) `pg` statement on MikroORM's own pool.
 *
 * It steps aside, handing the query to MikroORM's connection as before, whenever MikroORM would
 * do more than run it: inside a transaction, with query logging on, with an `onQuery` hook,
 * connection hooks or a session context (row-level security), or with a parameter that is not a
 * plain string or number (MikroORM formats dates, booleans, JSON and lists itself).
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import type { AnyMikroORM } from './describe.js';
import type { Dialect } from './plan.js';

type Row = Record<string, unknown>;

/** What a `run` returns: the rows a statement changed. */
export interface RunResult {
  readonly affectedRows: number;
}

interface SqliteStatement {
  readonly reader: boolean;
  get(...values: unknown[]): Row | undefined;
  all(...values: unknown[]): Row[];
  run(...values: unknown[]): { changes: number };
}
interface SqliteDatabase {
  readonly open: boolean;
  prepare(sql: string): SqliteStatement;
}
interface PgPool {
  query(config: {
    name?: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: Row[]; rowCount: number | null }>;
}
/** The parts of MikroORM's SQL connection used here (kysely client, native driver client). */
interface SqlConnection {
  getClient(): { getExecutor(): { provideConnection<T>(consumer: () => Promise<T>): Promise<T> } };
  getNativeClient(): Promise<unknown>;
  execute(sql: string, params: unknown[], method: 'all' | 'get' | 'run', ctx?: unknown): Promise<unknown>;
}

// Statements kept per process: the adapter's lookups and the list shapes clients use most.
const MAX_SQLITE_STATEMENTS = 500;
// PostgreSQL keeps a named statement per pooled connection until it closes: bound the names.
const MAX_PG_NAMES = 200;
const DEFAULT_ON_QUERY = (sql: string): string => sql;

/** Whether every parameter binds to the same value MikroORM would have written into the SQL. */
function bindable(sql: string, params: readonly unknown[]): boolean {
  if (sql.includes('??') || sql.includes('\\?')) return false;
  for (const value of params) {
    const type = typeof value;
    if (
      value !== null &&
      type !== 'string' &&
      type !== 'bigint' &&
      !(type === 'number' && Number.isFinite(value))
    )
      return false;
  }
  // A `?` that is not a placeholder (inside a literal) makes the counts differ.
  return sql.split('?').length - 1 === params.length;
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`… (only called when every `?` is a placeholder). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** better-sqlite3 binds every JS number as REAL; MikroORM's SQL text had integers as integers. */
function sqliteValue(value: unknown): unknown {
  return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
}

/** Runs SQL for the adapter, prepared once where the database allows it. */
export class StatementRunner {
  readonly #dialect: Dialect;
  readonly #orm: AnyMikroORM;
  readonly #sqlite = new Map<string, SqliteStatement>();
  #sqliteDatabase: SqliteDatabase | undefined;
  readonly #pgNames = new Map<string, string>();

  constructor(orm: AnyMikroORM, dialect: Dialect) {
    this.#orm = orm;
    this.#dialect = dialect;
  }

  /** Rows of a query. */
  all(session: EntityManager, sql: string, params: readonly unknown[]): Promise<Row[]> {
    return this.#execute(session, sql, params, 'all') as Promise<Row[]>;
  }

  /** The first row of a query, or undefined. */
  get(session: EntityManager, sql: string, params: readonly unknown[]): Promise<Row | undefined> {
    return this.#execute(session, sql, params, 'get') as Promise<Row | undefined>;
  }

  /** Runs a statement that returns no rows. */
  run(session: EntityManager, sql: string, params: readonly unknown[]): Promise<RunResult> {
    return this.#execute(session, sql, params, 'run') as Promise<RunResult>;
  }

  /** Whether MikroORM would do nothing but run the query, so that running it here changes nothing. */
  #direct(session: EntityManager, sql: string, params: readonly unknown[]): boolean {
    if (this.#dialect !== 'sqlite' && this.#dialect !== 'postgresql') return false;
    if (session.getTransactionContext() !== undefined || session.getSessionContext() !== undefined)
      return false;
    const config = this.#orm.config;
    if (config.getLogger().isEnabled('query')) return false;
    if (
      config.get('onQuery') !== DEFAULT_ON_QUERY &&
      String(config.get('onQuery')) !== String(DEFAULT_ON_QUERY)
    )
      return false;
    if (config.get('onCreateConnection') !== undefined || config.get('onReserveConnection') !== undefined)
      return false;
    if (config.get('sessionContext') === 'connection') return false;
    return bindable(sql, params);
  }

  async #execute(
    session: EntityManager,
    sql: string,
    params: readonly unknown[],
    method: 'all' | 'get' | 'run',
  ): Promise<unknown> {
    const connection = session.getConnection() as unknown as SqlConnection;
    if (!this.#direct(session, sql, params)) {
      const result = await connection.execute(sql, [...params], method, session.getTransactionContext());
      return method === 'run'
        ? { affectedRows: (result as { affectedRows?: number }).affectedRows ?? 0 }
        : result;
    }
    return this.#dialect === 'sqlite'
      ? this.#runSqlite(connection, sql, params, method)
      : this.#runPostgres(connection, sql, params, method);
  }

  async #runSqlite(
    connection: SqlConnection,
    sql: string,
    params: readonly unknown[],
    method: 'all' | 'get' | 'run',
  ): Promise<unknown> {
    const database = (await connection.getNativeClient()) as SqliteDatabase;
    if (database !== this.#sqliteDatabase) {
      this.#sqlite.clear();
      this.#sqliteDatabase = database;
    }
    const values = params.map(sqliteValue);
    // kysely's lock on the single SQLite connection: a transaction another request holds open finishes first.
    return connection
      .getClient()
      .getExecutor()
      .provideConnection(async () => {
        const statement = this.#prepared(database, sql);
        if (method === 'get') return statement.get(...values);
        if (method === 'all') return statement.all(...values);
        if (statement.reader) return { affectedRows: statement.all(...values).length };
        return { affectedRows: statement.run(...values).changes };
      });
  }

  #prepared(database: SqliteDatabase, sql: string): SqliteStatement {
    let statement = this.#sqlite.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      if (this.#sqlite.size >= MAX_SQLITE_STATEMENTS) {
        const oldest = this.#sqlite.keys().next().value;
        if (oldest !== undefined) this.#sqlite.delete(oldest);
      }
    } else {
      // Most recently used last: the oldest entry is the first to go.
      this.#sqlite.delete(sql);
    }
    this.#sqlite.set(sql, statement);
    return statement;
  }

  async #runPostgres(
    connection: SqlConnection,
    sql: string,
    params: readonly unknown[],
    method: 'all' | 'get' | 'run',
  ): Promise<unknown> {
    const pool = (await connection.getNativeClient()) as PgPool;
    const text = numbered(sql);
    const name = this.#nameOf(text);
    const values = params.map((value) => (typeof value === 'bigint' ? value.toString() : value));
    const result = await pool.query(name === undefined ? { text, values } : { name, text, values });
    if (method === 'get') return result.rows[0];
    if (method === 'all') return result.rows;
    return { affectedRows: result.rowCount ?? 0 };
  }

  /** A statement name for this SQL while there are names left; PostgreSQL then plans it once per connection. */
  #nameOf(text: string): string | undefined {
    let name = this.#pgNames.get(text);
    if (name === undefined && this.#pgNames.size < MAX_PG_NAMES) {
      name = `kma_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
      this.#pgNames.set(text, name);
    }
    return name;
  }
}
