/** Translates the core's list query into MikroORM filter and order objects. */
import { raw } from '@mikro-orm/core';
import type { FilterCondition, ListQuery } from '../../lib/types.js';
import { type FieldPlan, type ModelPlan, ROOT_ALIAS } from './plan.js';

type Condition = Record<string | symbol, unknown>;

/** An SQL LIKE pattern (`%`, `_`) as a GLOB pattern (`*`, `?`), the case-sensitive match of SQLite. */
export function likeToGlob(pattern: string): string {
  return pattern
    .replace(/[*?[]/g, (special) => `[${special}]`)
    .replace(/%/g, '*')
    .replace(/_/g, '?');
}

/**
 * `$like` is case-sensitive on every database, as in PostgreSQL: SQLite's LIKE ignores ASCII case
 * (GLOB does not), and MySQL/MariaDB compare with the column's usually case-insensitive collation.
 */
function likeCondition(plan: ModelPlan, field: FieldPlan, pattern: string): Condition {
  const column = `${ROOT_ALIAS}.${field.prop.fieldNames[0]}`;
  switch (plan.dialect) {
    case 'sqlite':
      return { [raw('?? glob ?', [column, likeToGlob(pattern)])]: [] };
    case 'mysql':
      return { [raw('?? like ? collate utf8mb4_bin', [column, pattern])]: [] };
    default:
      return { [field.field.name]: { $like: pattern } };
  }
}

function valueCondition(plan: ModelPlan, condition: FilterCondition): unknown {
  const field = plan.byName.get(condition.field);
  if (field === undefined) throw new Error(`Unknown filter field ${condition.field}`);
  const encode = (value: unknown) => field.encode(value);
  const { op, value } = condition;
  switch (op) {
    case '$eq':
      // `{ field: null }` is MikroORM's IS NULL.
      return value === null ? null : encode(value);
    case '$ne':
      return { $ne: value === null ? null : encode(value) };
    case '$in':
    case '$nin':
      return { [op]: (value as readonly unknown[]).map(encode) };
    case '$exists':
      // SQL has no missing columns: a value "exists" when it is not NULL.
      return value === true ? { $ne: null } : null;
    default:
      return { [op]: encode(value) };
  }
}

/** The MikroORM `where` of the query's filters (all must hold). */
export function whereOf(plan: ModelPlan, filters: ListQuery['filters']): Condition {
  const conditions = filters.map((condition): Condition => {
    const field = plan.byName.get(condition.field);
    if (condition.op === '$like' && field !== undefined)
      return likeCondition(plan, field, String(condition.value));
    return { [condition.field]: valueCondition(plan, condition) };
  });
  if (conditions.length === 0) return {};
  if (conditions.length === 1) return conditions[0] as Condition;
  // $and keeps two conditions on one field apart (`age > 1` and `age < 9`).
  return { $and: conditions };
}

/** The MikroORM `orderBy`, ending with the primary key so that pages never overlap. */
export function orderByOf(plan: ModelPlan, sort: ListQuery['sort']): Record<string, 'asc' | 'desc'>[] {
  const order = sort.map((key) => ({ [key.field]: key.direction }));
  const primaryKey = plan.description.primaryKey;
  if (!sort.some((key) => key.field === primaryKey)) order.push({ [primaryKey]: 'asc' });
  return order;
}

/**
 * The keyset condition "after these sort values": for keys a, b, c with directions, the rows where
 * a ≻ x, or a = x and b ≻ y, or a = x and b = y and c ≻ z (≻ is > ascending, < descending). It
 * leads with the bound a ⪰ x, which gives the database a range on the first key to scan an index
 * from instead of a disjunction to evaluate row by row. Sort keys are never NULL here: the core
 * refuses keyset paging on nullable fields.
 */
export function keysetOf(plan: ModelPlan, sort: ListQuery['sort'], after: readonly unknown[]): Condition {
  const keys = sort.map((key, index) => {
    const field = plan.byName.get(key.field);
    if (field === undefined) throw new Error(`Unknown sort field ${key.field}`);
    return { name: key.field, asc: key.direction === 'asc', value: field.encodeKeyset(after[index]) };
  });
  const last = keys[keys.length - 1];
  if (last === undefined) return {};
  let tail: Condition = { [last.name]: { [last.asc ? '$gt' : '$lt']: last.value } };
  for (let i = keys.length - 2; i >= 0; i--) {
    const key = keys[i] as (typeof keys)[number];
    tail = {
      $or: [
        { [key.name]: { [key.asc ? '$gt' : '$lt']: key.value } },
        { $and: [{ [key.name]: key.value }, tail] },
      ],
    };
  }
  const first = keys[0] as (typeof keys)[number];
  return keys.length === 1
    ? tail
    : { $and: [{ [first.name]: { [first.asc ? '$gte' : '$lte']: first.value } }, tail] };
}

/** The `where` of a list: its filters and, when paging by keyset, the position after the cursor. */
export function listWhereOf(plan: ModelPlan, query: ListQuery): Condition {
  const where = whereOf(plan, query.filters);
  if (query.after === undefined) return where;
  if (query.after.length !== query.sort.length)
    throw new TypeError(
      `after needs one value per sort key: ${query.sort.length}, got ${query.after.length}.`,
    );
  const keyset = keysetOf(plan, query.sort, query.after);
  return Object.keys(where).length === 0 && Object.getOwnPropertySymbols(where).length === 0
    ? keyset
    : { $and: [where, keyset] };
}
