/**
 * Maps MikroORM and driver errors to the core's `ApiError`s: which errors mean the database is
 * unreachable, timed out or refused a value, and the status each one gets. Messages never carry
 * SQL or values: field names come from the ORM's metadata, matched against the constraint or
 * column the database reports (constraint-fields.ts, unfit-values.ts).
 */
import {
  CheckConstraintViolationException,
  ConnectionException,
  DeadlockException,
  DriverException,
  type EntityMetadata,
  type EntityProperty,
  ForeignKeyConstraintViolationException,
  LockWaitTimeoutException,
  NotNullConstraintViolationException,
  TableNotFoundException,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import { ApiError, ConfigurationError, type FieldError } from '../../lib/errors.js';
import {
  blamedProperties,
  collectionCandidates,
  collectionsOfPivot,
  constraintColumns,
  foreignKeyTable,
  propertiesOfColumns,
  relationCandidates,
  reportedColumns,
  uniqueCandidates,
} from './constraint-fields.js';
import { jsonNameOf } from './describe.js';
import type { ErrorContext } from './error-context.js';
import { missingValues } from './server-values.js';
import { outOfRange, tooLong } from './unfit-values.js';

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
  // The database is gone (dropped, or not yet restored): PostgreSQL's 3D000 on a new connection,
  // MariaDB/MySQL's ER_BAD_DB_ERROR. No request can succeed until it is back.
  '3D000',
  'ER_BAD_DB_ERROR',
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
// 1267, 1270, 1271: a compared value the column's character set cannot hold ("Illegal mix of collations").
const MYSQL_DATA_ERRNOS = new Set([1264, 1265, 1267, 1270, 1271, 1292, 1366, 1406, 3140, 4025]);

/** Whether the database refused a value for its column (PostgreSQL class 22, MySQL data errors). */
export function isDataError(error: DriverException): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code.length === 5 && code.startsWith('22')) return true;
  return typeof error.errno === 'number' && MYSQL_DATA_ERRNOS.has(error.errno);
}

/** Whether a PostgreSQL error message quotes the text it could not read (`… for type uuid: "x"`). */
export function quotesInput(message: unknown): boolean {
  return typeof message === 'string' && /"[^"]*"/.test(message);
}

/**
 * Whether a data error of a read is about a value the statement was given, not one it computed:
 * PostgreSQL quotes the parameter it could not convert, where a formula's overflow ("integer out
 * of range") quotes nothing; MySQL/MariaDB raise their data errors on a read only for a compared
 * value (a character the column's set cannot hold).
 */
function refusedParameter(error: DriverException): boolean {
  const code = typeof error.code === 'string' ? error.code : '';
  if (code.length === 5 && code.startsWith('22')) return quotesInput(error.message);
  return true;
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

/** The filter MikroORM refused to apply for want of arguments (`No arguments provided for filter 'x'`). */
function filterWithoutArguments(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  return /^No arguments provided for filter '([^']+)'/.exec(error.message)?.[1];
}

/** What to do about a default filter whose arguments no one set for the request. */
function missingFilterArguments(filter: string, meta: EntityMetadata, error: unknown): ConfigurationError {
  const failure = new ConfigurationError(
    `MikroORM's filter '${filter}' applies to ${meta.className} by default and takes arguments, but none were set for this request. ` +
      `Set them per request before the routers run (a middleware: sessionOf(ctx, adapter).setFilterParams('${filter}', { … })), ` +
      'set them once on the ORM (orm.em.setFilterParams), or declare the filter with `args: false` or `default: false`.',
  );
  failure.cause = error;
  return failure;
}

/**
 * Whether the database ended a wait for a lock at its limit: MikroORM's LockWaitTimeoutException
 * (MySQL/MariaDB 1205, the `innodb_lock_wait_timeout` connect() sets on MySQL), or PostgreSQL's
 * 55P03 (`lock_timeout`), which MikroORM's PostgreSQL driver leaves unclassified.
 */
function isLockWaitTimeout(error: unknown): boolean {
  return error instanceof LockWaitTimeoutException || (error as { code?: unknown } | null)?.code === '55P03';
}

/** The table whose row an error is about, where the database says (PostgreSQL, SQLite) or the statement does (MySQL/MariaDB). */
function violatedTable(error: DriverException): string | undefined {
  const pg = (error as { table?: unknown }).table;
  if (typeof pg === 'string') return pg;
  const sqlite = /constraint failed: ([\w$]+)\./.exec(String(error.message ?? ''));
  if (sqlite?.[1] !== undefined) return sqlite[1];
  const sql = (error as { sql?: unknown }).sql;
  return typeof sql === 'string'
    ? /^\s*insert\s+(?:ignore\s+)?into\s+`?([\w$]+)`?/i.exec(sql)?.[1]
    : undefined;
}

/**
 * Whether the database stopped a write for a concurrent one: a deadlock, a serialization failure
 * (PostgreSQL 40001, under SERIALIZABLE), or a link row of an owned many-to-many inserted twice —
 * the adapter never inserts a pair twice itself, so another request inserted it meanwhile.
 */
function isWriteConflict(error: DriverException, meta: EntityMetadata): boolean {
  if (error instanceof DeadlockException || error.code === '40001') return true;
  if (!(error instanceof UniqueConstraintViolationException)) return false;
  const table = violatedTable(error);
  return table !== undefined && collectionsOfPivot(meta, table).length > 0;
}

/**
 * The `ApiError` for an error raised by MikroORM or its driver; other errors (already an
 * `ApiError`, or a programming error) are returned unchanged for the core to report.
 */
export function toApiError(error: unknown, context: ErrorContext): unknown {
  if (error instanceof ApiError) return error;
  if (isConnectionError(error)) return ApiError.unavailable(error);
  if (isStatementTimeout(error) || isLockWaitTimeout(error)) {
    // 503 like an unreachable database: the request asked more than the database gives one request.
    return new ApiError(
      'service_unavailable',
      'The query took longer than the database allows one request and was stopped; narrow the filters or retry later.',
      { headers: { 'Retry-After': '5' }, cause: error },
    );
  }
  const filter = filterWithoutArguments(error);
  if (filter !== undefined) return missingFilterArguments(filter, context.meta, error);
  if (!(error instanceof DriverException)) return error;
  const { meta } = context;
  // A set-up mistake, not a failed request: thrown as is, it stops `ensure_admin` at start-up and is
  // logged as the cause of a generic 500 at request time.
  if (error instanceof TableNotFoundException) return missingTable(error, meta);
  if (isWriteConflict(error, meta)) return ApiError.writeConflict(error);
  if (error instanceof UniqueConstraintViolationException) {
    const fields = blamedProperties(error, context, uniqueCandidates(meta), ['unique', 'primary']);
    const errors: FieldError[] = fields.map((name) => ({
      path: jsonName(meta, name),
      message: `A ${meta.className} with this ${jsonName(meta, name)} already exists.`,
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
    return referencesNothing(danglingFields(error, context).map((name) => jsonName(meta, name)));
  }
  if (error instanceof NotNullConstraintViolationException) {
    const fields = blamedProperties(
      error,
      context,
      meta.props.map((prop) => prop.name),
      [],
    );
    return missingValues(
      meta,
      fields.map((name) => ({ prop: name, json: jsonName(meta, name) })),
    );
  }
  if (error instanceof CheckConstraintViolationException) return checkViolation(error, context);
  if (isDataError(error)) {
    if (context.operation === 'read') {
      // A value the client sent (a filter, a cursor) that its column cannot hold is the client's
      // mistake; any other is the server's: a formula that overflows on a stored row, say.
      return context.queried === true && refusedParameter(error)
        ? ApiError.invalidQuery('A filter value does not fit its column.')
        : ApiError.internal(error);
    }
    return ApiError.validation(...doesNotFit(error, context));
  }
  return ApiError.internal(error);
}

/** The 422 of written references (by JSON name) that name no record the relation can load. */
export function referencesNothing(paths: readonly string[]): ApiError {
  const errors: FieldError[] = paths.map((path) => ({
    path,
    message: 'References a record that does not exist.',
  }));
  return ApiError.validation(errors, 'A reference points to a record that does not exist.');
}

/**
 * The references a foreign-key error of a write is about. A pivot row's error names the pivot's
 * column, which may share its name with a column of the record (`author_id` of a remark and of
 * its readers): by its table it is the collection's. Else the record's own foreign keys first: the
 * core has checked a collection's keys already, so a pivot row fails only when a target went away
 * meanwhile (SQLite names no table or column to tell).
 */
function danglingFields(error: DriverException, context: ErrorContext): string[] {
  const { meta } = context;
  const table = foreignKeyTable(error);
  if (table !== undefined && table !== meta.tableName) return collectionsOfPivot(meta, table);
  const own = blamedProperties(error, context, relationCandidates(meta), ['foreign']);
  return own.length > 0 ? own : blamedProperties(error, context, collectionCandidates(meta), ['foreign']);
}

/** The JSON key of a property (MikroORM's `serializedName`, else its name): the `path` a client sent. */
function jsonName(meta: EntityMetadata, name: string): string {
  const prop = meta.properties[name as keyof typeof meta.properties] as EntityProperty | undefined;
  return prop === undefined ? name : jsonNameOf(prop);
}

/**
 * A failed CHECK names the columns of the check the database reports (by name, or on SQLite by
 * its expression when it has no name), never the other fields of the write: a field is named only
 * when the database says which check failed and the entity's metadata (or the reported expression)
 * says which columns it reads.
 */
function checkViolation(error: DriverException, context: ErrorContext): ApiError {
  const { meta } = context;
  const columns = constraintColumns(error, context, ['check']) ?? [];
  const names = propertiesOfColumns(meta, columns).map((name) => jsonName(meta, name));
  if (names.length === 0) {
    return ApiError.validation(
      [],
      'A value breaks a check constraint of the database, which did not say which field it checks.',
    );
  }
  const errors: FieldError[] = names.map((path) => {
    const others = names.filter((name) => name !== path);
    return {
      path,
      message:
        others.length > 0
          ? `The value is not allowed together with the value of ${others.join(', ')}.`
          : isJsonValidCheck(error, context, columns)
            ? // MariaDB's json column is text under CHECK (json_valid(…)), which refuses deeper nesting.
              'The database refused this JSON: MariaDB accepts at most 32 levels of nesting.'
            : 'The value is not allowed.',
    };
  });
  return ApiError.validation(errors);
}

/** Whether a failed check is MariaDB's own on a json column (named after the column, `json_valid`). */
function isJsonValidCheck(
  error: DriverException,
  context: ErrorContext,
  columns: readonly string[],
): boolean {
  if (
    columns.length !== 1 ||
    !/^CONSTRAINT `[^`]+` failed for/.test(String(error.sqlMessage ?? error.message))
  )
    return false;
  const prop = context.meta.props.find((candidate) => candidate.fieldNames?.[0] === columns[0]);
  return prop !== undefined && String(prop.columnTypes?.[0] ?? prop.type).toLowerCase() === 'json';
}

/** The fields and detail of a value its column cannot hold. */
function doesNotFit(error: DriverException, context: ErrorContext): [FieldError[], string] {
  const { meta } = context;
  let fields = propertiesOfColumns(meta, reportedColumns(error));
  if (fields.length === 0) {
    // PostgreSQL names no column for a too-long string: blame the strings longer than their column.
    const tooLongFor = /value too long for type [\w ]+\((\d+)\)/.exec(String(error.message ?? ''));
    if (error.code === '22001' || tooLongFor !== null)
      fields = tooLong(meta, context.values ?? {}, tooLongFor === null ? undefined : Number(tooLongFor[1]));
    else fields = outOfRange(error, context);
  }
  const errors = fields.map((name) => ({
    path: jsonName(meta, name),
    message: 'The value does not fit the column.',
  }));
  return [
    errors,
    errors.length > 0
      ? 'A value does not fit its column.'
      : 'A value does not fit its column; the database did not say which field it is.',
  ];
}
