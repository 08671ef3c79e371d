/**
 * `describe()` of an adapter, step by step: read what the ORM knows about a model (here SQLite's
 * own catalogue, read through `node:sqlite`, stands in for an ORM's metadata), hand the facts to
 * `buildModelDescription`, and let the core apply its rules (table names, keys, protected fields).
 */
import type { DatabaseSync } from 'node:sqlite';
import {
  buildModelDescription,
  type FieldType,
  type ModelClass,
  type ModelDescription,
  type ModelFacts,
  tableNameOf,
} from '../../../lib/adapter-kit.js';
import { ConfigurationError } from '../../../lib/index.js';

interface Column {
  readonly name: string;
  readonly type: string;
  readonly notnull: number;
  readonly dflt_value: string | null;
  readonly pk: number;
}

interface ForeignKey {
  readonly table: string;
  readonly from: string;
  readonly to: string | null;
}

// Declared column types → field kinds, first match wins.
const KINDS: readonly (readonly [RegExp, FieldType])[] = [
  [/^(INTEGER|INT|SMALLINT)$/, 'integer'],
  [/^BIGINT$/, 'bigint'],
  [/^(REAL|DOUBLE|FLOAT)/, 'number'],
  [/^(DECIMAL|NUMERIC)/, 'decimal'],
  [/^BOOLEAN$/, 'boolean'],
  [/^DATE$/, 'date'],
  [/^(DATETIME|TIMESTAMP)$/, 'datetime'],
  [/^TIME$/, 'time'],
  [/^JSON$/, 'json'],
  [/^UUID$/, 'uuid'],
  [/^(VARCHAR|CHAR)/, 'string'],
  [/^TEXT$/, 'text'],
];

function kindOf(table: string, column: Column): { type: FieldType; maxLength?: number } {
  const declared = column.type.toUpperCase();
  const kind = KINDS.find(([pattern]) => pattern.test(declared))?.[1];
  // Refuse at registration what has no JSON form, rather than fail on a request.
  if (kind === undefined)
    throw new ConfigurationError(`${table}.${column.name}: type "${column.type}" has no JSON form.`);
  const length = /\((\d+)\)/.exec(declared)?.[1];
  return kind === 'string' && length !== undefined
    ? { type: kind, maxLength: Number(length) }
    : { type: kind };
}

/** A default written as a SQL literal, as a JSON value (`undefined` for expressions such as CURRENT_TIMESTAMP). */
function literal(sql: string | null): unknown {
  if (sql === null) return undefined;
  if (/^-?\d+(\.\d+)?$/.test(sql)) return Number(sql);
  if (/^'.*'$/s.test(sql)) return sql.slice(1, -1).replaceAll("''", "'");
  if (/^(TRUE|FALSE)$/i.test(sql)) return sql.toUpperCase() === 'TRUE';
  return undefined;
}

/** Columns covered by a single-column UNIQUE constraint or index. */
function uniqueColumns(db: DatabaseSync, table: string): Set<string> {
  const unique = new Set<string>();
  const indexes = db.prepare('SELECT name FROM pragma_index_list(?) WHERE "unique" = 1').all(table) as {
    name: string;
  }[];
  for (const { name } of indexes) {
    const columns = db.prepare('SELECT name FROM pragma_index_info(?)').all(name) as { name: string }[];
    if (columns.length === 1 && columns[0] !== undefined) unique.add(columns[0].name);
  }
  return unique;
}

/**
 * The description of `model`, read from its table (`__tablename__` or the plural rule).
 * `models` are the other models of the adapter, so that foreign keys can name their target.
 */
export function describeTable(
  db: DatabaseSync,
  model: ModelClass,
  models: readonly ModelClass[] = [],
): ModelDescription {
  const table = tableNameOf(model, model.name);
  const columns = db.prepare('SELECT * FROM pragma_table_info(?)').all(table) as unknown as Column[];
  if (columns.length === 0)
    throw new ConfigurationError(`${model.name}: no table "${table}" in the database.`);
  const keys = columns.filter((column) => column.pk > 0).sort((a, b) => a.pk - b.pk);
  const foreignKeys = db
    .prepare('SELECT "table", "from", "to" FROM pragma_foreign_key_list(?)')
    .all(table) as unknown as ForeignKey[];
  const unique = uniqueColumns(db, table);

  const fields = columns.map((column): ModelFacts['fields'][number] => {
    const primary = column.pk > 0;
    // SQLite fills an INTEGER PRIMARY KEY (the rowid) itself.
    const generated = primary && keys.length === 1 && column.type.toUpperCase() === 'INTEGER';
    const fallback = literal(column.dflt_value);
    const hasDefault = generated || column.dflt_value !== null;
    const nullable = !primary && column.notnull === 0;
    const foreignKey = foreignKeys.find((key) => key.from === column.name);
    const target =
      foreignKey && models.find((candidate) => tableNameOf(candidate, candidate.name) === foreignKey.table);
    return {
      name: column.name,
      ...kindOf(table, column),
      nullable,
      required: !nullable && !hasDefault,
      hasDefault,
      ...(fallback === undefined ? {} : { default: fallback }),
      unique: unique.has(column.name) || (primary && keys.length === 1),
      hidden: false,
      primary,
      generated,
      ...(foreignKey && target
        ? {
            relation: {
              kind: 'many-to-one',
              target: target.name,
              targetModel: target,
              targetKey: foreignKey.to ?? 'id',
            },
          }
        : {}),
    };
  });
  // buildModelDescription refuses composite keys and decides which fields a client may write.
  return buildModelDescription({
    model,
    name: model.name,
    table,
    primaryKeys: keys.map((key) => key.name),
    fields,
  });
}
