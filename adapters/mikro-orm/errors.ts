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
  /**
   * The name the schema gives a constraint of these columns (MikroORM's `platform.getIndexName`,
   * which shortens long names with a hash); without it, MikroORM's unshortened default.
   */
  readonly indexName?: (table: string, columns: string[], type: ConstraintKind) => string;
}

/** The kinds of named constraint a database reports in a write's error. */
export type ConstraintKind = 'primary' | 'unique' | 'foreign' | 'check';

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

/**
 * Constraint name the database reports: PostgreSQL's `constraint` field, MySQL/MariaDB
 * `for key 'name'` (unique), MariaDB `CONSTRAINT \`name\` failed` and MySQL `Check constraint
 * 'name' is violated` (check), SQLite `CHECK constraint failed: name` (for a check declared
 * without a name SQLite reports its expression instead).
 */
function reportedConstraint(error: DriverException): string | undefined {
  const pg = (error as { constraint?: unknown }).constraint;
  if (typeof pg === 'string') return pg;
  const message = String(error.sqlMessage ?? error.message ?? '');
  const match =
    /for key '(?:[^'.]+\.)?([^']+)'|CONSTRAINT `([^`]+)` failed|Check constraint '([^']+)' is violated|CHECK constraint failed: (.+)$/m.exec(
      message,
    );
  return match?.[1] ?? match?.[2] ?? match?.[3] ?? match?.[4]?.trim();
}

/** A constraint the entity's metadata declares on its table. */
interface DeclaredConstraint {
  readonly kind: ConstraintKind;
  readonly name: string;
  readonly columns: readonly string[];
  /** A check's expression, as MikroORM writes it into the schema. */
  readonly expression?: string;
}

function columnsOf(meta: EntityMetadata, names: unknown): string[] {
  return ([] as unknown[])
    .concat(names ?? [])
    .flatMap((name) => meta.properties[name as keyof typeof meta.properties]?.fieldNames ?? []);
}

function expressionText(expression: unknown): string | undefined {
  if (typeof expression === 'string') return expression;
  const sql = (expression as { sql?: unknown } | null)?.sql;
  return typeof sql === 'string' ? sql : undefined;
}

/** The table's columns an SQL expression names (string literals left out, quoted names unquoted). */
function columnsInExpression(meta: EntityMetadata, expression: string): string[] {
  const known = new Set(meta.props.flatMap((prop) => prop.fieldNames ?? []));
  const found = new Set<string>();
  const unquoted = expression.replace(/'(?:[^']|'')*'/g, ' ');
  for (const match of unquoted.matchAll(/"([^"]+)"|`([^`]+)`|\[([^\]]+)\]|([A-Za-z_][\w$]*)/g)) {
    const name = match[1] ?? match[2] ?? match[3] ?? match[4] ?? '';
    if (known.has(name)) found.add(name);
  }
  return [...found];
}

/**
 * The named constraints MikroORM's schema puts on the entity's table: the primary key, every
 * unique (property or entity level), every foreign key of a relation it owns, every check.
 */
function declaredConstraints(context: ErrorContext): DeclaredConstraint[] {
  const { meta } = context;
  const table = meta.tableName;
  const nameOf = (columns: string[], kind: ConstraintKind): string =>
    context.indexName?.(table, columns, kind) ??
    (kind === 'primary' ? `${table}_pkey` : `${table}_${columns.join('_')}_${kind}`);
  const declared: DeclaredConstraint[] = [];
  const primary = columnsOf(meta, meta.primaryKeys);
  // MySQL and MariaDB call every primary key PRIMARY.
  for (const name of [nameOf(primary, 'primary'), 'PRIMARY'])
    declared.push({ kind: 'primary', name, columns: primary });
  const relations = relationCandidates(meta);
  for (const prop of meta.props) {
    const columns = prop.fieldNames ?? [];
    if (columns.length === 0) continue;
    if (prop.unique)
      declared.push({
        kind: 'unique',
        name: typeof prop.unique === 'string' ? prop.unique : nameOf(columns, 'unique'),
        columns,
      });
    if (relations.includes(prop.name))
      declared.push({ kind: 'foreign', name: prop.foreignKeyName ?? nameOf(columns, 'foreign'), columns });
  }
  for (const unique of meta.uniques) {
    const columns = columnsOf(meta, unique.properties);
    if (columns.length > 0)
      declared.push({ kind: 'unique', name: unique.name ?? nameOf(columns, 'unique'), columns });
  }
  for (const check of meta.checks) {
    const expression = expressionText(check.expression);
    const columns =
      check.property !== undefined
        ? columnsOf(meta, check.property)
        : expression === undefined
          ? []
          : columnsInExpression(meta, expression);
    declared.push({
      kind: 'check',
      name: check.name ?? nameOf(columnsOf(meta, check.property), 'check'),
      columns,
      ...(expression === undefined ? {} : { expression }),
    });
  }
  return declared;
}

const squeeze = (text: string): string => text.replace(/[\s"`]+/g, '').toLowerCase();

/**
 * The columns of the constraint of these kinds the error names, or undefined when it names none
 * the entity declares. A name outside the metadata (a constraint a migration added) is matched
 * only when it is exactly a column's name (MySQL names a unique index after its first column).
 */
function constraintColumns(
  error: DriverException,
  context: ErrorContext,
  kinds: readonly ConstraintKind[],
): readonly string[] | undefined {
  const reported = reportedConstraint(error);
  if (reported === undefined) return undefined;
  const declared = declaredConstraints(context).filter((constraint) => kinds.includes(constraint.kind));
  const byName = declared.find((constraint) => constraint.name === reported);
  if (byName !== undefined) return byName.columns;
  if (kinds.includes('check')) {
    // SQLite reports a check declared without a name by its expression.
    const byExpression = declared.find(
      (constraint) =>
        constraint.expression !== undefined && squeeze(constraint.expression) === squeeze(reported),
    );
    if (byExpression !== undefined) return byExpression.columns;
    if (/[^\w$]/.test(reported)) return columnsInExpression(context.meta, reported);
  }
  return context.meta.props.some((prop) => prop.fieldNames?.includes(reported)) ? [reported] : undefined;
}

function propertiesOfColumns(meta: EntityMetadata, columns: readonly string[]): string[] {
  const names = new Set<string>();
  for (const column of columns) {
    const prop = meta.props.find((candidate) => candidate.fieldNames?.includes(column));
    if (prop !== undefined) names.add(prop.name);
  }
  return [...names];
}

/**
 * Properties whose columns the error names, or whose constraint it names; when it names neither,
 * the write's fields among the candidates (SQLite's foreign-key error names nothing). A reported
 * constraint the metadata does not declare names no field: a guess could blame the wrong one.
 */
function blamedProperties(
  error: DriverException,
  context: ErrorContext,
  candidates: readonly string[],
  kinds: readonly ConstraintKind[],
): string[] {
  const { meta } = context;
  const byColumn = propertiesOfColumns(meta, reportedColumns(error));
  if (byColumn.length > 0) return byColumn;
  if (reportedConstraint(error) !== undefined)
    return propertiesOfColumns(meta, constraintColumns(error, context, kinds) ?? []);
  return candidates.filter((name) => writtenFields(context).includes(name));
}

/** The written strings longer than their column (of `length` characters, when the database says). */
function tooLong(meta: EntityMetadata, values: Readonly<Record<string, unknown>>, length?: number): string[] {
  return Object.entries(values)
    .filter(([name, value]) => {
      const limit = meta.properties[name as keyof typeof meta.properties]?.length;
      if (length !== undefined && limit !== length) return false;
      return typeof value === 'string' && limit !== undefined && limit > 0 && value.length > limit;
    })
    .map(([name]) => name);
}

/** A column type whose range PostgreSQL enforces without naming the column that broke it. */
type RangeType =
  | { readonly kind: 'int2' | 'int4' | 'int8' }
  | { readonly kind: 'numeric'; readonly precision?: number; readonly scale?: number };

const INTEGER_TYPES: Readonly<Record<string, 'int2' | 'int4' | 'int8'>> = {
  smallint: 'int2',
  int2: 'int2',
  smallserial: 'int2',
  integer: 'int4',
  int: 'int4',
  int4: 'int4',
  serial: 'int4',
  bigint: 'int8',
  int8: 'int8',
  bigserial: 'int8',
};
const INTEGER_LIMITS = { int2: 2n ** 15n, int4: 2n ** 31n, int8: 2n ** 63n } as const;

/**
 * The type PostgreSQL's out-of-range error (22003) names in place of a column: `smallint out of
 * range`, `value "…" is out of range for type bigint`, `numeric field overflow` (its detail gives
 * the precision and scale).
 */
function reportedRange(error: DriverException): RangeType | undefined {
  if (error.code !== '22003') return undefined;
  const message = String(error.message ?? '');
  const integer =
    /\b(smallint|integer|bigint) out of range|out of range for type (smallint|integer|bigint)\b/.exec(
      message,
    );
  const kind = INTEGER_TYPES[integer?.[1] ?? integer?.[2] ?? ''];
  if (kind !== undefined) return { kind };
  if (!/numeric field overflow/.test(message)) return undefined;
  const typmod = /precision (\d+), scale (-?\d+)/.exec(
    String((error as { detail?: unknown }).detail ?? message),
  );
  return typmod === null
    ? { kind: 'numeric' }
    : { kind: 'numeric', precision: Number(typmod[1]), scale: Number(typmod[2]) };
}

/** The range type of a property's column (its explicit column type included), if it has one. */
function columnRange(meta: EntityMetadata, name: string): RangeType | undefined {
  const prop = meta.properties[name as keyof typeof meta.properties];
  const column = (prop?.columnTypes?.[0] ?? '').toLowerCase().trim();
  const base = column.replace(/\(.*$/, '').trim();
  const kind = INTEGER_TYPES[base];
  if (kind !== undefined) return { kind };
  if (base !== 'numeric' && base !== 'decimal') return undefined;
  const typmod = /\((\d+)\s*(?:,\s*(-?\d+))?\)/.exec(column);
  const precision = typmod === null ? prop?.precision : Number(typmod[1]);
  const scale = typmod === null ? prop?.scale : Number(typmod[2] ?? 0);
  return {
    kind: 'numeric',
    ...(precision === undefined ? {} : { precision }),
    ...(scale === undefined ? {} : { scale }),
  };
}

function integerValue(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return BigInt(value.trim());
  return undefined;
}

/** A decimal value times 10^scale, rounded half away from zero as PostgreSQL rounds; undefined when not a plain decimal. */
function scaledDecimal(value: unknown, scale: number): bigint | undefined {
  let text =
    typeof value === 'string'
      ? value.trim()
      : typeof value === 'number' || typeof value === 'bigint'
        ? String(value)
        : '';
  if (/e/i.test(text)) {
    const number = Number(text);
    if (!Number.isFinite(number) || Math.abs(number) >= 1e21) return undefined;
    text = number.toFixed(Math.min(Math.max(scale + 1, 0), 100));
  }
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (match === null || scale < 0 || `${match[2]}${match[3] ?? ''}` === '') return undefined;
  const fraction = (match[3] ?? '').padEnd(scale + 1, '0');
  const magnitude =
    BigInt(`${match[2] || '0'}${fraction.slice(0, scale)}`) + (Number(fraction[scale]) >= 5 ? 1n : 0n);
  return match[1] === '-' ? -magnitude : magnitude;
}

/** Whether a value could be out of this column type's range (true when it cannot tell). */
function mayOverflow(range: RangeType, value: unknown): boolean {
  if (range.kind === 'numeric') {
    if (range.precision === undefined) return true;
    const scaled = scaledDecimal(value, range.scale ?? 0);
    if (scaled === undefined) return true;
    return (scaled < 0n ? -scaled : scaled) >= 10n ** BigInt(range.precision);
  }
  const integer = integerValue(value);
  if (integer === undefined) return true;
  const limit = INTEGER_LIMITS[range.kind];
  return integer >= limit || integer < -limit;
}

/**
 * For an out-of-range error that names a type but no column: the one written value whose column
 * has that type and that does not fit it. Two or more such values, or none, name no field: the
 * error does not say which one it was.
 */
function outOfRange(error: DriverException, context: ErrorContext): string[] {
  const reported = reportedRange(error);
  if (reported === undefined) return [];
  const culprits = Object.entries(context.values ?? {}).filter(([name, value]) => {
    if (value === null || value === undefined) return false;
    const range = columnRange(context.meta, name);
    if (range === undefined || range.kind !== reported.kind) return false;
    if (range.kind === 'numeric' && reported.kind === 'numeric' && reported.precision !== undefined) {
      const sameType =
        (range.precision ?? reported.precision) === reported.precision &&
        (range.scale ?? reported.scale) === reported.scale;
      if (!sameType) return false;
    }
    return mayOverflow(range, value);
  });
  return culprits.length === 1 ? culprits.map(([name]) => name) : [];
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
    // The record's own foreign keys first: the core has checked a collection's keys already, so a
    // pivot row fails only when a target went away meanwhile (SQLite names no column to tell).
    const own = blamedProperties(error, context, relationCandidates(meta), ['foreign']);
    const fields =
      own.length > 0 ? own : blamedProperties(error, context, collectionCandidates(meta), ['foreign']);
    const errors: FieldError[] = fields.map((name) => ({
      path: jsonName(meta, name),
      message: 'References a record that does not exist.',
    }));
    return ApiError.validation(errors, 'A reference points to a record that does not exist.');
  }
  if (error instanceof NotNullConstraintViolationException) {
    const fields = blamedProperties(
      error,
      context,
      meta.props.map((prop) => prop.name),
      [],
    );
    const errors: FieldError[] = fields.map((name) => ({
      path: jsonName(meta, name),
      message: 'A value is required.',
    }));
    return ApiError.validation(errors);
  }
  if (error instanceof CheckConstraintViolationException) return checkViolation(error, context);
  if (isDataError(error)) {
    if (context.operation === 'read') return ApiError.invalidQuery('A filter value does not fit its column.');
    return ApiError.validation(...doesNotFit(error, context));
  }
  return ApiError.internal(error);
}

/** The JSON key of a property (MikroORM's `serializedName`, else its name): the `path` a client sent. */
function jsonName(meta: EntityMetadata, name: string): string {
  return meta.properties[name as keyof typeof meta.properties]?.serializedName ?? name;
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
        others.length === 0
          ? 'The value is not allowed.'
          : `The value is not allowed together with the value of ${others.join(', ')}.`,
    };
  });
  return ApiError.validation(errors);
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
