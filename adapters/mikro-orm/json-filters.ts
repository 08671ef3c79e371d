/**
 * The filters a database answers correctly on a value inside an `object: true` embeddable (one JSON
 * column), where MikroORM compares `json_extract(…)` (PostgreSQL: `->>`) with the filter's value;
 * the others are refused (`FieldDescription.filterLimit`). Measured against the stored data on
 * MariaDB 10.11, SQLite and PostgreSQL (spec/adapters/mikro-orm/fidelity/json-embedded-filters.test.ts);
 * MySQL takes MariaDB's SQL, so the same rules apply to it:
 *
 * - MariaDB/MySQL's `json_extract` gives a JSON null as the JSON text `null`, not SQL NULL: `IS NULL`
 *   misses it, `<>`, `NOT IN` and the ranges keep it (as the text `null`, or 0 for a number), and
 *   `=` takes it for `'null'`, 0 or `false`. On a nullable property only `$eq` and `$in` (numbers,
 *   booleans) or `$eq` and the adapter's own patterns (text, query.ts) find the right rows, with no
 *   operand a null equals.
 * - MariaDB/MySQL compare `=` and the ranges with a JSON string unquoted, a list (`IN` of two or
 *   more) with the quoted JSON text: `$in`/`$nin` on a value held as a string find nothing, or all.
 * - A date-time is stored as the ISO text of `JSON.stringify`, and the SQLite and MySQL drivers send
 *   the filter's `Date` in another form: only `$exists` is answered there.
 * - A bigint or decimal is a JSON string, compared character by character ("10" before "9"): no
 *   ranges, unless PostgreSQL casts it.
 * - PostgreSQL casts the text `->>` gives where MikroORM knows the type; where MikroORM left the cast
 *   out (a property declared with a type class, `p.integer()`, rather than a type name), a number or
 *   boolean compared with text fails: only `$exists` is answered there.
 */
import { ALIAS_REPLACEMENT, type EntityProperty } from '@mikro-orm/core';
import { FILTER_OPERATORS, TEXT_TYPES } from '../../lib/query/list-query.js';
import type { FieldDescription, FilterLimit, FilterOperator } from '../../lib/types.js';
import type { Dialect } from './dialect.js';

/**
 * What a filtered value inside the JSON column is, as the database compares it: `digits` is a
 * bigint or decimal MikroORM writes as a JSON string.
 */
type JsonKind = 'text' | 'digits' | 'number' | 'boolean' | 'datetime' | 'other';

const WHERE = 'a JSON-stored embedded value (`object: true`)';
const RANGES: readonly FilterOperator[] = ['$gt', '$gte', '$lt', '$lte'];

/** How a field's values are held in the JSON text MikroORM writes. */
function jsonKindOf(field: Pick<FieldDescription, 'type' | 'enumValues'>, prop: EntityProperty): JsonKind {
  switch (field.type) {
    case 'datetime':
      return 'datetime';
    case 'boolean':
      return 'boolean';
    case 'integer':
    case 'number':
      return 'number';
    // MikroORM writes a bigint or decimal as a string, unless the property reads it as a number.
    case 'bigint':
    case 'decimal':
      return prop.runtimeType === 'number' ? 'number' : 'digits';
    case 'enum':
      return (field.enumValues ?? []).some((value) => typeof value === 'string') ? 'text' : 'number';
    case 'string':
    case 'text':
    case 'uuid':
    case 'date':
    case 'time':
      return 'text';
    default:
      return 'other';
  }
}

/** `$a`, `$a and $b`, `$a, $b and $c`. */
function spoken(operators: readonly FilterOperator[]): string {
  return operators.length < 2
    ? operators.join('')
    : `${operators.slice(0, -1).join(', ')} and ${operators[operators.length - 1]}`;
}

/** The operators but `except`. */
function allBut(...except: readonly FilterOperator[]): FilterOperator[] {
  return FILTER_OPERATORS.filter((op) => !except.includes(op));
}

/** Whether MikroORM casts the value it extracts (PostgreSQL: `(… ->> 'n')::float8`). */
function isCast(prop: EntityProperty): boolean {
  const path =
    typeof prop.fieldNameRaw === 'string' ? prop.fieldNameRaw.replaceAll(ALIAS_REPLACEMENT, '') : '';
  return /\)::\w+$/.test(path);
}

function digitsReason(field: Pick<FieldDescription, 'type'>): string {
  return `a ${field.type} inside ${WHERE} is a JSON string, which the database compares character by character ("10" before "9"), so $gt, $gte, $lt and $lte would not order it as a number`;
}

function datetimeReason(): string {
  return `a date-time inside ${WHERE} is stored as ISO text, which the database compares with the filter's value sent in another form`;
}

/**
 * The limit of the filters on one field inside an `object: true` embeddable on this dialect, or
 * undefined when every filter of its kind gives the right rows. `prop` is the entity's own view of
 * the value (its `fieldNameRaw` is the path MikroORM queries).
 */
export function jsonFilterLimit(
  field: Pick<FieldDescription, 'type' | 'enumValues' | 'nullable'>,
  prop: EntityProperty,
  dialect: Dialect,
): FilterLimit | undefined {
  const kind = jsonKindOf(field, prop);
  if (kind === 'other') return undefined;
  switch (dialect) {
    case 'postgresql':
      if ((kind === 'number' || kind === 'boolean') && !isCast(prop)) {
        const named = field.type === 'boolean' ? 'boolean' : field.type === 'integer' ? 'integer' : 'double';
        return {
          operators: ['$exists'],
          reason: `MikroORM compares this ${field.type} inside ${WHERE} as text on PostgreSQL, which refuses the comparison (declare the property's type by name, \`type: '${named}'\`, for MikroORM to cast it)`,
        };
      }
      return kind === 'digits' && !isCast(prop)
        ? { operators: allBut(...RANGES), reason: digitsReason(field) }
        : undefined;
    case 'sqlite':
      if (kind === 'datetime') return { operators: ['$exists'], reason: datetimeReason() };
      return kind === 'digits' ? { operators: allBut(...RANGES), reason: digitsReason(field) } : undefined;
    case 'mysql':
      return mysqlLimit(field, kind);
    default:
      return undefined;
  }
}

/** MariaDB/MySQL, which read a JSON null and a list of JSON strings otherwise (the file's comment). */
function mysqlLimit(
  field: Pick<FieldDescription, 'type' | 'nullable' | 'enumValues'>,
  kind: JsonKind,
): FilterLimit | undefined {
  if (kind === 'datetime') {
    if (field.nullable !== true) return { operators: ['$exists'], reason: datetimeReason() };
    return {
      operators: [],
      reason: `${datetimeReason()}, and MariaDB/MySQL do not read a null there as a null`,
    };
  }
  if (field.nullable === true) {
    const read = kind === 'number' ? 'the number 0' : kind === 'boolean' ? 'false' : "the text 'null'";
    const textual = kind === 'text' || kind === 'digits';
    // The patterns are the adapter's own SQL, which reads a JSON null as a null (query.ts).
    const patterns = TEXT_TYPES.has(field.type);
    const operators: FilterOperator[] = textual
      ? ['$eq', ...(patterns ? (['$like', '$ilike'] as const) : [])]
      : ['$eq', '$in'];
    // Operands a null compares equal to; no date, time or digits is the text 'null'.
    const values =
      kind === 'number'
        ? [0]
        : kind === 'boolean'
          ? [false]
          : field.type === 'string' || field.type === 'text' || field.enumValues?.includes('null') === true
            ? ['null']
            : [];
    return {
      operators,
      ...(values.length === 0 ? {} : { values }),
      reason:
        `MariaDB/MySQL read a null inside ${WHERE} as ${read}, not as a null, so the right records are found by ${spoken(operators)} only` +
        (textual ? ' (a list of text is compared with the quoted JSON text)' : ''),
    };
  }
  const lists = `MariaDB/MySQL compare a list with the quoted JSON text of a value inside ${WHERE}, so $in and $nin find no record or every one (use $eq or $ne)`;
  if (kind === 'text') return { operators: allBut('$in', '$nin'), reason: lists };
  if (kind === 'digits')
    return { operators: allBut('$in', '$nin', ...RANGES), reason: `${lists}; ${digitsReason(field)}` };
  return undefined;
}
