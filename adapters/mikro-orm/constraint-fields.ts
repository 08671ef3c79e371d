/**
 * Which fields a constraint error is about: the columns the database names, or the columns of the
 * constraint it names looked up in the entity's metadata (a check also by its expression, as
 * SQLite reports one declared without a name). When the database names neither, only written
 * fields among the candidates are blamed, those it says are wrong when asked; a constraint the
 * metadata does not declare names none.
 */
import { type DriverException, type EntityMetadata, ReferenceKind } from '@mikro-orm/core';
import type { ConstraintKind, ErrorContext } from './error-context.js';

/** The names of the properties the write sets. */
function writtenFields(context: ErrorContext): string[] {
  return Object.keys(context.values ?? {});
}

/** Column names the database names in a constraint error, in each dialect's wording. */
export function reportedColumns(error: DriverException): string[] {
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
  // MySQL/MariaDB: Column 'name' cannot be null / Field 'name' doesn't have a default value /
  // Data too long for column 'name' at row 1 / Incorrect string value: '…' for column `db`.`t`.`name`
  // at row 1 (MariaDB qualifies the column; a multi-byte string over a text column's bytes says so) /
  // FOREIGN KEY (`author_id`) REFERENCES
  const mysqlColumn =
    /Column '([^']+)' cannot be null|Field '([^']+)' doesn't have a default value|for column (?:`[^`]*`\.)*`?'?([^'`]+)`?'? at row/.exec(
      message,
    );
  const mysqlName = mysqlColumn?.[1] ?? mysqlColumn?.[2] ?? mysqlColumn?.[3];
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
export function constraintColumns(
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

/** The properties (by name) that own these columns, each once. */
export function propertiesOfColumns(meta: EntityMetadata, columns: readonly string[]): string[] {
  const names = new Set<string>();
  for (const column of columns) {
    const prop = meta.props.find((candidate) => candidate.fieldNames?.includes(column));
    if (prop !== undefined) names.add(prop.name);
  }
  return [...names];
}

/**
 * Properties whose columns the error names, or whose constraint it names; when it names neither
 * (SQLite's foreign-key error), the written candidates whose reference the database says names no
 * row, else the one written candidate, else none. A reported constraint the metadata does not
 * declare names no field: a guess could blame the wrong one.
 */
export function blamedProperties(
  error: DriverException,
  context: ErrorContext,
  candidates: readonly string[],
  kinds: readonly ConstraintKind[],
): string[] {
  const { meta } = context;
  const columns = reportedColumns(error);
  // A column the model does not map (one added to the table by hand) is no field a client sent.
  if (columns.length > 0) return propertiesOfColumns(meta, columns);
  if (reportedConstraint(error) !== undefined)
    return propertiesOfColumns(meta, constraintColumns(error, context, kinds) ?? []);
  const written = candidates.filter((name) => writtenFields(context).includes(name));
  if (context.dangling !== undefined) return written.filter((name) => context.dangling?.includes(name));
  return written.length === 1 ? written : [];
}

/** Whether the error names a column or a constraint (else only the written values can tell). */
export function namesItsColumns(error: DriverException): boolean {
  return reportedColumns(error).length > 0 || reportedConstraint(error) !== undefined;
}

/** The properties a unique violation may be about: the primary key and every unique, property or entity level. */
export function uniqueCandidates(meta: EntityMetadata): string[] {
  const names = new Set<string>(
    meta.props.filter((prop) => prop.unique || prop.primary).map((prop) => prop.name),
  );
  for (const unique of meta.uniques)
    for (const name of ([] as string[]).concat((unique.properties ?? []) as string | string[]))
      names.add(name);
  return [...names];
}

/** The to-one relations whose column in the entity's own table holds a foreign key. */
export function relationCandidates(meta: EntityMetadata): string[] {
  return meta.relations
    .filter(
      (prop) =>
        (prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE) &&
        (prop.fieldNames?.length ?? 0) > 0 &&
        prop.owner !== false,
    )
    .map((prop) => prop.name);
}

/**
 * The table whose row broke a foreign key, where the database says: PostgreSQL's `table` field,
 * MySQL/MariaDB `a foreign key constraint fails (\`db\`.\`table\`, CONSTRAINT …`.
 */
export function foreignKeyTable(error: DriverException): string | undefined {
  const pg = (error as { table?: unknown }).table;
  if (typeof pg === 'string') return pg;
  const message = String(error.sqlMessage ?? error.message ?? '');
  return /foreign key constraint fails \((?:`[^`]*`\.)?`([^`]+)`/.exec(message)?.[1];
}

/** The owned many-to-many relations whose pivot rows are in this table. */
export function collectionsOfPivot(meta: EntityMetadata, table: string): string[] {
  return meta.relations
    .filter((prop) => collectionCandidates(meta).includes(prop.name))
    .filter((prop) => (prop.pivotTable ?? '').split('.').pop() === table)
    .map((prop) => prop.name);
}

/** The many-to-many relations whose pivot rows a write inserts (a key of theirs may be gone). */
export function collectionCandidates(meta: EntityMetadata): string[] {
  return meta.relations
    .filter((prop) => prop.kind === ReferenceKind.MANY_TO_MANY && prop.owner === true)
    .map((prop) => prop.name);
}
