/**
 * Runs the adapter's SQL with bound parameters and statements prepared once. MikroORM 7 inlines
 * every parameter into the SQL text before running it, so each query is new text: SQLite
 * (better-sqlite3) prepares every query anew (its share of a request's CPU: bench/NOTES.md,
 * "Figures behind code comments", prepared statements) and PostgreSQL parses and plans each one. Here the SQL the query
 * builder produced (`toQuery()`: placeholders and parameters) runs as a cached better-sqlite3
 * statement — at once when no transaction is open on the connection, else under kysely's
 * connection lock so it never lands inside another request's transaction — or as an
 * extended-protocol `pg` statement (parameters bound; named where the server keeps it, below) on
 * MikroORM's own pool.
 *
 * PostgreSQL statements are named (server-side prepared, planned once per connection) where the
 * server keeps them, and unnamed where it cannot: a named statement lives on one server
 * connection, and behind a pooler in transaction mode (PgBouncer before 1.21, or 1.21+ without
 * `max_prepared_statements`) the next use lands on another connection and fails with `42P05 …
 * already exists` (Parse) or `26000 … does not exist` (Bind). By default (`namedStatements:
 * 'auto'`) the first such error for one of our names switches the runner to unnamed statements for
 * good, warns once (`KMA_NAMED_STATEMENTS_OFF`) and runs that statement again, unnamed. The retry
 * is safe: both errors come from Parse or Bind, before Execute, and the server discards the rest of
 * the pipeline up to Sync, which rolls back the statement's implicit transaction — nothing ran. It
 * never happens inside an explicit transaction: the runner only runs its own statements outside
 * one (`#direct`), through `pool.query`, which takes an idle pooled client for this statement alone.
 * `namedStatements: true` keeps names whatever happens (the errors reach the caller);
 * `false` never names them.
 *
 * The connection is the one MikroORM would pick: a read (a `select` without a row lock) outside a
 * transaction, in a session that has not written, goes to `em.getConnection('read')` when
 * `preferReadReplicas` is on (a replica, if any); everything else to the primary, so a request
 * reads its own writes (session-state.ts).
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
import { readConnectionType } from './session-state.js';

type Row = Record<string, unknown>;

/**
 * PostgreSQL's named (server-side prepared) statements: `'auto'` (named until the server loses one,
 * then unnamed), `true` (always named) or `false` (never).
 */
export type NamedStatements = boolean | 'auto';

/** How the runner may run statements. */
export interface StatementOptions {
  /**
   * PostgreSQL: run each SQL text as a named statement, planned once per connection. `'auto'`
   * (default): named until a transaction-mode pooler loses one (42P05/26000), then unnamed for good
   * with one warning (`KMA_NAMED_STATEMENTS_OFF`). `true`: always named, those errors reach the
   * caller (direct connections, PgBouncer 1.21+ with `max_prepared_statements`). `false`: never.
   */
  readonly namedStatements?: NamedStatements;
}

/** What a `run` returns: the rows a statement changed. */
export interface RunResult {
  readonly affectedRows: number;
}

interface SqliteStatement {
  readonly reader: boolean;
  get(...values: unknown[]): Row | undefined;
  all(...values: unknown[]): Row[];
  run(...values: unknown[]): { changes: number };
  columns(): { name: string }[];
}
interface SqliteDatabase {
  readonly open: boolean;
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
}
interface PgPool {
  query(config: {
    name?: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: Row[]; rowCount: number | null; fields: { name: string }[] }>;
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

/** What the runner needs to know of one SQL text, worked out once per text. */
interface SqlFacts {
  /** Every `?` is a placeholder and there is one per parameter (no `??` or `\\?`, none in a literal). */
  readonly placeholdersOnly: boolean;
  /** The `limit ?` of the query, when it has exactly one (see limitSlotOf). */
  readonly limit: LimitSlot | null;
  /** The SQL with the limit written in, by count: the same string object every time, so lookups stay cheap. */
  readonly withLimit: Map<bigint | number, string>;
  /** The SQL with PostgreSQL's `$1`, `$2`… placeholders, made on first use. */
  numbered?: string;
  /** A plain read (`select` without a row lock): it may go to a read replica. */
  readonly reads: boolean;
}

// A row lock makes a select a write as far as replicas go: a replica refuses it.
const LOCKING = /\sfor\s+(?:update|no\s+key\s+update|share|key\s+share)\b/i;

/** Whether MikroORM would send this SQL to a read connection: a select that locks no rows. */
function isRead(sql: string): boolean {
  return /^\s*\(?\s*select\s/i.test(sql) && !LOCKING.test(sql);
}

function sqlFactsOf(sql: string, parameterCount: number): SqlFacts {
  const placeholdersOnly =
    !sql.includes('??') && !sql.includes('\\?') && sql.split('?').length - 1 === parameterCount;
  return {
    placeholdersOnly,
    limit: placeholdersOnly ? limitSlotOf(sql) : null,
    withLimit: new Map(),
    reads: isRead(sql),
  };
}

/** Whether every parameter binds to the same value MikroORM would have written into the SQL. */
function bindable(facts: SqlFacts, params: readonly unknown[]): boolean {
  if (!facts.placeholdersOnly) return false;
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
  return true;
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`… (only called when every `?` is a placeholder). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Where a query's `limit ?` is: the SQL around it and the index of its parameter. */
interface LimitSlot {
  readonly before: string;
  readonly after: string;
  readonly index: number;
}

/**
 * The `limit ?` of a query, if it has exactly one. SQLite (built with STAT4, as better-sqlite3 is)
 * prepares a statement again whenever a bound LIMIT changes or not: `limit ?` made a lookup by
 * primary key several times slower (bench/NOTES.md, "Figures behind code comments": bound
 * LIMIT), so the runner writes the number in.
 */
function limitSlotOf(sql: string): LimitSlot | null {
  const at = sql.indexOf(' limit ?');
  if (at < 0 || sql.indexOf(' limit ?', at + 1) >= 0) return null;
  const placeholder = at + ' limit '.length;
  return {
    before: sql.slice(0, placeholder),
    after: sql.slice(placeholder + 1),
    index: sql.slice(0, placeholder).split('?').length - 1,
  };
}

/** better-sqlite3's error for a statement run while another one is still being iterated. */
function isBusy(error: unknown): boolean {
  return error instanceof TypeError && /busy executing a query/.test(error.message);
}

/** better-sqlite3 binds every JS number as REAL; MikroORM's SQL text had integers as integers. */
function sqliteValue(value: unknown): unknown {
  return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
}

/**
 * Whether a query failed because the server connection did not have named statement `name` as
 * the client expected: Parse found one already there (42P05) or Bind found none (26000). The name
 * must be in the message (PostgreSQL quotes it, in any language), so a failure of another
 * statement is never taken for ours.
 */
function isLostStatement(error: unknown, name: string): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  return (code === '42P05' || code === '26000') && error.message.includes(name);
}

/** Runs SQL for the adapter, prepared once where the database allows it. */
export class StatementRunner {
  readonly #dialect: Dialect;
  readonly #orm: AnyMikroORM;
  readonly #sqlite = new Map<string, SqliteStatement>();
  #sqliteDatabase: SqliteDatabase | undefined;
  readonly #pgNames = new Map<string, string>();
  // Whether statements are named now, and whether losing one turns names off ('auto').
  #named: boolean;
  readonly #fallBack: boolean;
  readonly #facts = new Map<string, SqlFacts>();
  #onQuery: unknown;
  #onQueryIsDefault = false;

  constructor(orm: AnyMikroORM, dialect: Dialect, options: StatementOptions = {}) {
    this.#orm = orm;
    this.#dialect = dialect;
    const named = options.namedStatements ?? 'auto';
    this.#named = named !== false;
    this.#fallBack = named === 'auto';
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

  /**
   * The names of the columns a query returns, in order, read from the prepared statement (SQLite)
   * or from the answer to running it (PostgreSQL: pass parameters that match no row); undefined
   * when the query would go through MikroORM, which hands back rows only.
   */
  async columns(
    session: EntityManager,
    sql: string,
    params: readonly unknown[],
  ): Promise<string[] | undefined> {
    const facts = this.#factsOf(sql, params.length);
    if (!this.#direct(session, facts, params)) return undefined;
    const connection = this.#connection(session, facts);
    if (this.#dialect === 'sqlite') {
      const database = (await connection.getNativeClient()) as SqliteDatabase;
      return database
        .prepare(sql)
        .columns()
        .map((column) => column.name);
    }
    const pool = (await connection.getNativeClient()) as PgPool;
    const values = params.map((value) => (typeof value === 'bigint' ? value.toString() : value));
    const result = await pool.query({ text: numbered(sql), values });
    return result.fields.map((field) => field.name);
  }

  /**
   * The connection MikroORM would run this SQL on: the primary for writes, inside a transaction
   * and once the session wrote; for other reads, a read connection when `preferReadReplicas` is on.
   */
  #connection(session: EntityManager, facts: SqlFacts): SqlConnection {
    const type =
      facts.reads && session.getTransactionContext() === undefined
        ? (readConnectionType(session) ?? (this.#orm.config.get('preferReadReplicas') ? 'read' : 'write'))
        : 'write';
    return session.getConnection(type) as unknown as SqlConnection;
  }

  /** Whether MikroORM would do nothing but run the query, so that running it here changes nothing. */
  #direct(session: EntityManager, facts: SqlFacts, params: readonly unknown[]): boolean {
    if (this.#dialect !== 'sqlite' && this.#dialect !== 'postgresql') return false;
    if (session.getTransactionContext() !== undefined || session.getSessionContext() !== undefined)
      return false;
    const config = this.#orm.config;
    if (config.getLogger().isEnabled('query')) return false;
    if (!this.#isDefaultOnQuery(config.get('onQuery'))) return false;
    if (config.get('onCreateConnection') !== undefined || config.get('onReserveConnection') !== undefined)
      return false;
    if (config.get('sessionContext') === 'connection') return false;
    return bindable(facts, params);
  }

  /** Whether `onQuery` is MikroORM's default (an identity function), remembered per function. */
  #isDefaultOnQuery(onQuery: unknown): boolean {
    if (onQuery === DEFAULT_ON_QUERY) return true;
    if (onQuery !== this.#onQuery) {
      this.#onQuery = onQuery;
      // MikroORM's default is its own `sql => sql`: the same source text, another function object.
      this.#onQueryIsDefault = String(onQuery) === String(DEFAULT_ON_QUERY);
    }
    return this.#onQueryIsDefault;
  }

  async #execute(
    session: EntityManager,
    sql: string,
    params: readonly unknown[],
    method: 'all' | 'get' | 'run',
  ): Promise<unknown> {
    const facts = this.#factsOf(sql, params.length);
    const connection = this.#connection(session, facts);
    if (!this.#direct(session, facts, params)) {
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
    const inlined = this.#inlineLimit(sql, params);
    const text = inlined?.sql ?? sql;
    const values = (inlined?.params ?? params).map(sqliteValue);
    const run = (): unknown => {
      const statement = this.#prepared(database, text);
      if (method === 'get') return statement.get(...values);
      if (method === 'all') return statement.all(...values);
      if (statement.reader) return { affectedRows: statement.all(...values).length };
      return { affectedRows: statement.run(...values).changes };
    };
    // A statement runs to its end synchronously, so with no transaction open on the connection
    // nothing can come between its steps: it runs at once, without kysely's lock (two microtask
    // round trips per query). A connection still busy with a streamed query throws; then, and
    // whenever a transaction is open, the query waits for kysely's lock so that it never lands
    // inside another request's transaction.
    if (!database.inTransaction) {
      try {
        return run();
      } catch (error) {
        if (!isBusy(error)) throw error;
      }
    }
    return connection
      .getClient()
      .getExecutor()
      .provideConnection(async () => run());
  }

  #factsOf(sql: string, parameterCount: number): SqlFacts {
    let facts = this.#facts.get(sql);
    if (facts === undefined) {
      facts = sqlFactsOf(sql, parameterCount);
      if (this.#facts.size >= MAX_SQLITE_STATEMENTS) this.#facts.clear();
      this.#facts.set(sql, facts);
    }
    return facts;
  }

  /** The query with its `limit ?` written as the number it binds (see limitSlotOf), or undefined. */
  #inlineLimit(sql: string, params: readonly unknown[]): { sql: string; params: unknown[] } | undefined {
    const facts = this.#factsOf(sql, params.length);
    const slot = facts.limit;
    if (slot === null) return undefined;
    const count = params[slot.index];
    // Only a plain count goes into the SQL text; anything else stays a bound parameter.
    if (typeof count === 'bigint' ? count < 0n : !(Number.isSafeInteger(count) && (count as number) >= 0))
      return undefined;
    const key = count as bigint | number;
    let text = facts.withLimit.get(key);
    if (text === undefined) {
      text = `${slot.before}${String(key)}${slot.after}`;
      // Page sizes are few; a client cycling through many only costs building the text again.
      if (facts.withLimit.size >= 64) facts.withLimit.clear();
      facts.withLimit.set(key, text);
    }
    const rest = params.slice();
    rest.splice(slot.index, 1);
    return { sql: text, params: rest };
  }

  #prepared(database: SqliteDatabase, sql: string): SqliteStatement {
    let statement = this.#sqlite.get(sql);
    if (statement === undefined) {
      statement = database.prepare(sql);
      if (this.#sqlite.size >= MAX_SQLITE_STATEMENTS) {
        const oldest = this.#sqlite.keys().next().value;
        if (oldest !== undefined) this.#sqlite.delete(oldest);
      }
      // The oldest prepared goes first; a hit is not moved (that cost a Map delete and set per query).
      this.#sqlite.set(sql, statement);
    }
    return statement;
  }

  async #runPostgres(
    connection: SqlConnection,
    sql: string,
    params: readonly unknown[],
    method: 'all' | 'get' | 'run',
  ): Promise<unknown> {
    const pool = (await connection.getNativeClient()) as PgPool;
    const facts = this.#factsOf(sql, params.length);
    facts.numbered ??= numbered(sql);
    const text = facts.numbered;
    const values = params.map((value) => (typeof value === 'bigint' ? value.toString() : value));
    const name = this.#named ? this.#nameOf(text) : undefined;
    let result: Awaited<ReturnType<PgPool['query']>>;
    if (name === undefined) result = await pool.query({ text, values });
    else {
      try {
        result = await pool.query({ name, text, values });
      } catch (error) {
        // Raised by Parse or Bind, before anything ran (see the module comment): run it unnamed.
        if (!this.#fallBack || !isLostStatement(error, name)) throw error;
        this.#stopNaming(error as Error & { code: string });
        result = await pool.query({ text, values });
      }
    }
    if (method === 'get') return result.rows[0];
    if (method === 'all') return result.rows;
    return { affectedRows: result.rowCount ?? 0 };
  }

  /** Turns named statements off for good, with one warning (statements already in flight retry on their own). */
  #stopNaming(error: Error & { code: string }): void {
    if (!this.#named) return;
    this.#named = false;
    process.emitWarning(
      `koa-model-api: a server connection did not have the adapter's named statement as expected (${error.code} ${error.message}): a pooler in transaction mode is in between (PgBouncer before 1.21, or without max_prepared_statements). The adapter runs its PostgreSQL statements unnamed from now on (correct, a little slower); namedStatements: false starts that way without this warning (docs/deployment.md).`,
      { code: 'KMA_NAMED_STATEMENTS_OFF' },
    );
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
