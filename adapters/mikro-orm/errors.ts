/**
 * Maps MikroORM and driver errors to the core's `ApiError`s. Messages never carry SQL or values:
 * field names come from the ORM's metadata, matched against the constraint or column the
 * database reports.
 */
import {
  CheckConstraintViolationException,
  ConnectionException,
  DriverException,
  type EntityMetadata,
  ForeignKeyConstraintViolationException,
  NotNullConstraintViolationException,
  ReferenceKind,
  TableNotFoundException,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { ApiError, ConfigurationError, type FieldError } from '../../lib/errors.js';

/** What the failed operation was, for the error's wording and the fields it may name. */
export interface ErrorContext {
  readonly meta: EntityMetadata;
  readonly operation: 'read' | 'write' | 'delete';
  /** The write's data by property name, to narrow down which field broke a constraint. */
  readonly values?: Readonly<Record<string, unknown>>;
}

function writtenFields(context: ErrorContext): string[] {
  return Object.keys(context.values ?? {});
}

// Node socket errors, PostgreSQL class 08/57P0x, MySQL client codes, SQLite open/lock failures.
// Poolers answer in class 08 too: PgBouncer reports every refusal or lost server as 08P01.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EADDRNOTAVAIL',
  'ENETDOWN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  '57P01',
  '57P02',
  '57P03',
  // idle_session_timeout ended the connection (PostgreSQL 14+).
  '57P05',
  '53300',
  // A read-only server: a standby, or a primary being demoted during a failover.
  '25006',
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
]);
// Driver wordings, and PgBouncer's own (in case a wrapper dropped the SQLSTATE): a crashed or
// unreachable server, a full or paused pool, a database it no longer serves.
const CONNECTION_MESSAGES =
  /Connection terminated|Query read timeout|connection is closed|Connection lost|Pool is closed|timeout exceeded when trying to connect|Cannot use a pool after calling end|Client has encountered a connection error|Client was closed and is not queryable|database connection is not open|ECONNREFUSED|server conn crashed|server closed the connection unexpectedly|pgbouncer cannot connect to server|server login has been failing|no more connections allowed|query_wait_timeout|client_login_timeout|database removed|conflict with recovery/i;

type Coded = {
  code?: unknown;
  sqlState?: unknown;
  errno?: unknown;
  message?: unknown;
  cause?: unknown;
  errors?: unknown;
};

/** Whether an error (or one it wraps) means the database cannot be reached. */
export function isConnectionError(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  if (error instanceof ConnectionException) return true;
  const { code, sqlState, message, cause, errors } = error as Coded;
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  if (typeof sqlState === 'string' && sqlState.startsWith('08')) return true;
  if (typeof message === 'string' && CONNECTION_MESSAGES.test(message)) return true;
  // AggregateError from a dual-stack connect carries the real socket errors.
  if (Array.isArray(errors) && errors.some((inner) => isConnectionError(inner, depth + 1))) return true;
  return isConnectionError(cause, depth + 1);
}

// A statement the server stopped at its time limit: PostgreSQL 57014 (statement_timeout, or a
// pg_cancel_backend), MySQL 3024 (max_execution_time), MariaDB 1969 (max_statement_time).
const TIMEOUT_ERRNOS = new Set([3024, 1969]);

/** Whether the database stopped a statement that ran past its time limit (or was cancelled). */
export function isStatementTimeout(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const { code, errno, cause } = error as Coded;
  if (code === '57014') return true;
  if (typeof errno === 'number' && TIMEOUT_ERRNOS.has(errno)) return true;
  return isStatementTimeout(cause, depth + 1);
}

// MySQL/MariaDB errnos for values a column cannot hold (too long, out of range, wrong format, bad JSON).
const MYSQL_DATA_ERRNOS = new Set([1264, 1265, 1292, 1366, 1406, 3140, 4025]);

/** Whether the database refused a value for its column (PostgreSQL class 22, MySQL data errors). */
export function isDataError(error: DriverException): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code.length === 5 && code.startsWith('22')) return true;
  return typeof error.errno === 'number' && MYSQL_DATA_ERRNOS.has(error.errno);
}

/** Column names the database names in a constraint error, in each dialect's wording. */
function reportedColumns(error: DriverException): string[] {
  const detail = String((error as { detail?: unknown }).detail ?? '');
  const message = String(error.sqlMessage ?? error.message ?? '');
  const columns: string[] = [];
  const pgColumn = (error as { column?: unknown }).column;
  if (typeof pgColumn === 'string') columns.push(pgColumn);
  // PostgreSQL: Key (name)=(x) already exists. / Key (author_id)=(9) is not present in table "authors".
  const pgKey = /Key \(([^)]+)\)=/.exec(detail);
  if (pgKey?.[1]) columns.push(...pgKey[1].split(',').map((name) => name.trim().replace(/^"|"$/g, '')));
  // SQLite: UNIQUE constraint failed: gadgets.name, gadgets.other / NOT NULL constraint failed: gadgets.name
  const sqlite = /constraint failed: (.+)$/m.exec(message);
  if (sqlite?.[1]) columns.push(...sqlite[1].split(',').map((part) => part.trim().split('.').pop() ?? ''));
  // MySQL/MariaDB: Column 'name' cannot be null / FOREIGN KEY (`author_id`) REFERENCES
  const mysqlColumn = /Column '([^']+)' cannot be null|for column `?'?([^'`]+)`?'? at row/.exec(message);
  const mysqlName = mysqlColumn?.[1] ?? mysqlColumn?.[2];
  if (mysqlName) columns.push(mysqlName);
  const mysqlForeign = /FOREIGN KEY \(([^)]+)\)/.exec(message);
  if (mysqlForeign?.[1])
    columns.push(...mysqlForeign[1].split(',').map((name) => name.trim().replace(/`/g, '')));
  return columns.filter((name) => name.length > 0);
}

/** Constraint name the database reports (PostgreSQL `constraint`, MySQL `for key 'name'`). */
function reportedConstraint(error: DriverException): string | undefined {
  const pg = (error as { constraint?: unknown }).constraint;
  if (typeof pg === 'string') return pg;
  const mysql = /for key '(?:[^'.]+\.)?([^']+)'/.exec(String(error.sqlMessage ?? error.message ?? ''));
  return mysql?.[1];
}

function propertiesOfColumns(meta: EntityMetadata, columns: readonly string[]): string[] {
  const names = new Set<string>();
  for (const column of columns) {
    const prop = meta.props.find((candidate) => candidate.fieldNames?.includes(column));
    if (prop !== undefined) names.add(prop.name);
  }
  return [...names];
}

/** Properties whose column (or constraint name) the error mentions; falls back to the write's fields of that kind. */
function blamedProperties(
  error: DriverException,
  context: ErrorContext,
  candidates: readonly string[],
): string[] {
  const { meta } = context;
  const byColumn = propertiesOfColumns(meta, reportedColumns(error));
  if (byColumn.length > 0) return byColumn;
  const constraint = reportedConstraint(error);
  if (constraint !== undefined) {
    const byConstraint = candidates.filter((name) => {
      const columns = meta.properties[name as keyof typeof meta.properties]?.fieldNames ?? [];
      return columns.some((column) => constraint.includes(column));
    });
    if (byConstraint.length > 0) return byConstraint;
  }
  // SQLite's foreign-key error names nothing: blame the written fields that could break it.
  return candidates.filter((name) => writtenFields(context).includes(name));
}

function tooLong(meta: EntityMetadata, values: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(values)
    .filter(([name, value]) => {
      const length = meta.properties[name as keyof typeof meta.properties]?.length;
      return typeof value === 'string' && length !== undefined && length > 0 && value.length > length;
    })
    .map(([name]) => name);
}

function uniqueCandidates(meta: EntityMetadata): string[] {
  const names = new Set<string>(
    meta.props.filter((prop) => prop.unique || prop.primary).map((prop) => prop.name),
  );
  for (const unique of meta.uniques)
    for (const name of ([] as string[]).concat((unique.properties ?? []) as string | string[]))
      names.add(name);
  return [...names];
}

/** The to-one relations whose column in the entity's own table holds a foreign key. */
function relationCandidates(meta: EntityMetadata): string[] {
  return meta.relations
    .filter(
      (prop) =>
        (prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE) &&
        (prop.fieldNames?.length ?? 0) > 0 &&
        prop.owner !== false,
    )
    .map((prop) => prop.name);
}

/** The many-to-many relations whose pivot rows a write inserts (a key of theirs may be gone). */
function collectionCandidates(meta: EntityMetadata): string[] {
  return meta.relations
    .filter((prop) => prop.kind === ReferenceKind.MANY_TO_MANY && prop.owner === true)
    .map((prop) => prop.name);
}

/** The table a "no such table" error names, in each dialect's wording. */
function reportedTable(error: DriverException): string | undefined {
  const message = String(error.sqlMessage ?? error.message ?? '');
  // SQLite: no such table: users / PostgreSQL: relation "users" does not exist /
  // MySQL/MariaDB: Table 'db.users' doesn't exist
  const match =
    /no such table: (?:main\.)?([\w$]+)|relation "(?:[^"]+\.)?([^"]+)" does not exist|Table '(?:[^'.]+\.)?([^']+)' doesn't exist/.exec(
      message,
    );
  return match?.[1] ?? match?.[2] ?? match?.[3];
}

/** What to do about a table that does not exist: the schema was never created. */
export function missingTable(error: DriverException, meta: EntityMetadata): ConfigurationError {
  const table = reportedTable(error) ?? meta.tableName;
  const failure = new ConfigurationError(
    `The table "${table}" does not exist in the database. Create the schema before serving requests: ` +
      "pass `schema: 'update'` (or 'create') to MikroOrmAdapter.connect(), or create and run MikroORM " +
      'migrations (docs/deployment.md#migrations).',
  );
  failure.cause = error;
  return failure;
}

/**
 * The `ApiError` for an error raised by MikroORM or its driver; other errors (already an
 * `ApiError`, or a programming error) are returned unchanged for the core to report.
 */
export function toApiError(error: unknown, context: ErrorContext): unknown {
  if (error instanceof ApiError) return error;
  if (isConnectionError(error)) return ApiError.unavailable(error);
  if (isStatementTimeout(error)) {
    // 503 like an unreachable database: the request asked more than the database gives one request.
    return new ApiError(
      'service_unavailable',
      'The query took longer than the database allows one request and was stopped; narrow the filters or retry later.',
      { headers: { 'Retry-After': '5' }, cause: error },
    );
  }
  if (!(error instanceof DriverException)) return error;
  const { meta } = context;
  // A set-up mistake, not a failed request: thrown as is, it stops `ensure_admin` at start-up and is
  // logged as the cause of a generic 500 at request time.
  if (error instanceof TableNotFoundException) return missingTable(error, meta);
  if (error instanceof UniqueConstraintViolationException) {
    const fields = blamedProperties(error, context, uniqueCandidates(meta));
    const errors: FieldError[] = fields.map((path) => ({
      path,
      message: `A ${meta.className} with this ${path} already exists.`,
    }));
    return ApiError.conflict(
      `A ${meta.className} with the same unique value already exists.`,
      errors.length > 0 ? errors : undefined,
    );
  }
  if (error instanceof ForeignKeyConstraintViolationException) {
    if (context.operation === 'delete') {
      return ApiError.conflict(
        `This ${meta.className} is still referenced by other records and cannot be deleted.`,
      );
    }
    // The record's own foreign keys first: the core has checked a collection's keys already, so a
    // pivot row fails only when a target went away meanwhile (SQLite names no column to tell).
    const own = blamedProperties(error, context, relationCandidates(meta));
    const fields = own.length > 0 ? own : blamedProperties(error, context, collectionCandidates(meta));
    const errors: FieldError[] = fields.map((path) => ({
      path,
      message: 'References a record that does not exist.',
    }));
    return ApiError.validation(errors, 'A reference points to a record that does not exist.');
  }
  if (error instanceof NotNullConstraintViolationException) {
    const fields = blamedProperties(
      error,
      context,
      meta.props.map((prop) => prop.name),
    );
    const errors: FieldError[] = fields.map((path) => ({ path, message: 'A value is required.' }));
    return ApiError.validation(errors);
  }
  if (error instanceof CheckConstraintViolationException) {
    const fields = blamedProperties(error, context, writtenFields(context));
    const errors: FieldError[] = fields.map((path) => ({ path, message: 'The value is not allowed.' }));
    return ApiError.validation(errors);
  }
  if (isDataError(error)) {
    if (context.operation === 'read') return ApiError.invalidQuery('A filter value does not fit its column.');
    const named = propertiesOfColumns(meta, reportedColumns(error));
    // PostgreSQL names no column for a too-long value: blame the strings longer than their column.
    const fields = named.length > 0 ? named : tooLong(meta, context.values ?? {});
    const errors: FieldError[] = fields.map((path) => ({
      path,
      message: 'The value does not fit the column.',
    }));
    return ApiError.validation(errors, 'A value does not fit its column.');
  }
  return ApiError.internal(error);
}
