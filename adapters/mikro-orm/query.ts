/** Translates the core's list query into MikroORM filter and order objects. */
import { ALIAS_REPLACEMENT, type EntityProperty, raw } from '@mikro-orm/core';
import { ApiError } from '../../lib/errors.js';
import { parseLikePattern, toSqlLike } from '../../lib/query/like-pattern.js';
import type { FilterCondition, ListQuery, ModelClass } from '../../lib/types.js';
import { exactDatetimeKeyset, quoteName } from './dialect.js';
import type { FieldPlan, ModelPlan } from './plan.js';

type Condition = Record<string | symbol, unknown>;

/**
 * The plans along a field path of JSON names, outermost first: into an embedded value
 * (`address.city`), or through a many-to-one to a field of its target (`author.name`), whose plan
 * is the target model's own.
 */
export function fieldPath(plan: ModelPlan, path: string): FieldPlan[] {
  const names = path.split('.');
  const chain: FieldPlan[] = [];
  let fields: ReadonlyMap<string, FieldPlan> | undefined = plan.byName;
  for (const [index, name] of names.entries()) {
    const field: FieldPlan | undefined = fields?.get(name);
    if (field === undefined) throw new Error(`Unknown field ${path}`);
    chain.push(field);
    const target: ModelClass | undefined = field.field.relation?.targetModel;
    fields = target !== undefined && index < names.length - 1 ? plan.planOf(target).byName : field.nested;
  }
  return chain;
}

/** Whether the path goes through a many-to-one (its first step is a relation and it goes on). */
function throughRelation(chain: readonly FieldPlan[]): boolean {
  return chain.length > 1 && chain[0]?.field.relation !== undefined;
}

/** `{ a: { b: value } }` for the property names along a path. */
function nestedCondition(chain: readonly FieldPlan[], value: unknown): Condition {
  let condition: unknown = value;
  for (let i = chain.length - 1; i >= 0; i--) condition = { [(chain[i] as FieldPlan).prop.name]: condition };
  return condition as Condition;
}

/**
 * The SQL expression of a path, for an alias: a column of the entity's own table (a field, or a
 * field of an inline embedded value), or MikroORM's JSON extraction of a value inside an embedded
 * object stored as JSON (`fieldNameRaw`). Undefined for anything else.
 */
function expressionOf(plan: ModelPlan, chain: readonly FieldPlan[]): ((alias: string) => string) | undefined {
  const [first, ...rest] = chain;
  if (first === undefined) return undefined;
  let prop: EntityProperty | undefined = first.prop;
  for (const step of rest) prop = prop?.embeddedProps?.[step.prop.name];
  if (prop === undefined) return undefined;
  const json = prop.fieldNameRaw;
  if (chain.length > 1 && typeof json === 'string') {
    // MySQL's json_extract gives a JSON value ("x" with its quotes); LIKE needs the text, and a
    // JSON null, which json_unquote makes the text 'null', is no text at all (json-filters.ts).
    return (alias) => {
      const sql = json.replaceAll(ALIAS_REPLACEMENT, alias);
      return plan.dialect === 'mysql' ? `if(json_type(${sql}) = 'NULL', null, json_unquote(${sql}))` : sql;
    };
  }
  const column = prop.fieldNames?.[0];
  if (column === undefined || prop.persist === false || prop.formula !== undefined) return undefined;
  const quoted = quoteName(plan.dialect, column);
  return (alias) => `${alias}.${quoted}`;
}

/** A pattern as SQLite GLOB, its case-sensitive match: `*`, `?` and `[` stand for themselves as `[*]`, `[?]`, `[[]`. */
export function likeToGlob(pattern: string): string {
  let out = '';
  for (const token of parseLikePattern(pattern)) {
    if (token.kind === 'any') out += '*';
    else if (token.kind === 'one') out += '?';
    else out += token.text.replace(/[*?[]/g, (special) => `[${special}]`);
  }
  return out;
}

// The escape character of rendered patterns: not a backslash, whose meaning in MySQL string
// literals depends on sql_mode (NO_BACKSLASH_ESCAPES).
const ESCAPE = '!';

/**
 * `$like` (case-sensitive) and `$ilike` (case-insensitive) with the same pattern language on every
 * database (lib/query/like-pattern.ts), rendered per dialect: SQLite GLOB for `$like` (its LIKE
 * ignores ASCII case) and LIKE for `$ilike` (ASCII case only); MySQL/MariaDB LIKE under a binary
 * collation, on `lower()` of both sides for `$ilike` (Unicode case, but not accents as the
 * default `_ci` collations would); PostgreSQL LIKE / ILIKE.
 */
function likeCondition(
  plan: ModelPlan,
  chain: readonly FieldPlan[],
  op: '$like' | '$ilike',
  pattern: string,
): Condition {
  if (throughRelation(chain)) {
    // Nested under the relation: MikroORM joins its target and hands the raw SQL the join's alias.
    const [relation, ...rest] = chain as [FieldPlan, ...FieldPlan[]];
    const target = plan.planOf(relation.field.relation?.targetModel as ModelClass);
    return { [relation.prop.name]: likeCondition(target, rest, op, pattern) };
  }
  const tokens = parseLikePattern(pattern);
  const sqlPattern = toSqlLike(tokens, ESCAPE);
  const expression = expressionOf(plan, chain);
  if (expression === undefined) {
    // A formula: MikroORM's own operator, with its default escape (PostgreSQL's and MySQL's). Only
    // PostgreSQL knows ILIKE; SQLite's LIKE already ignores ASCII case.
    const native = op === '$ilike' && plan.dialect !== 'postgresql' ? '$like' : op;
    return nestedCondition(chain, { [native]: toSqlLike(tokens, '\\') });
  }
  // The alias comes from MikroORM: a count query aliases the root table otherwise than a select.
  switch (plan.dialect) {
    case 'sqlite':
      return op === '$like'
        ? { [raw((alias: string) => `${expression(alias)} glob ?`, [likeToGlob(pattern)])]: [] }
        : { [raw((alias: string) => `${expression(alias)} like ? escape '${ESCAPE}'`, [sqlPattern])]: [] };
    case 'mysql':
      return op === '$like'
        ? {
            [raw(
              (alias: string) => `${expression(alias)} like ? collate utf8mb4_bin escape '${ESCAPE}'`,
              [sqlPattern],
            )]: [],
          }
        : {
            [raw(
              (alias: string) =>
                `lower(${expression(alias)}) like lower(?) collate utf8mb4_bin escape '${ESCAPE}'`,
              [sqlPattern],
            )]: [],
          };
    default:
      return {
        [raw(
          (alias: string) => `${expression(alias)} ${op === '$like' ? 'like' : 'ilike'} ? escape '${ESCAPE}'`,
          [sqlPattern],
        )]: [],
      };
  }
}

function valueCondition(field: FieldPlan, condition: FilterCondition): unknown {
  const { op, value } = condition;
  // MikroORM's own key for the value: none for equality, which it receives bare.
  const key = op === '$eq' ? undefined : op;
  const encode = (item: unknown) => {
    const encoded = field.encode(item);
    if (field.queryable?.(encoded, key) === false) {
      // A user's custom type refuses it, as it refuses the value in a body (a 422 there).
      throw ApiError.invalidQuery(
        `filter[${condition.field}]: "${String(item).slice(0, 100)}" is not a value of this field (its type refuses it).`,
      );
    }
    return encoded;
  };
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
    const chain = fieldPath(plan, condition.field);
    if (condition.op === '$like' || condition.op === '$ilike')
      return likeCondition(plan, chain, condition.op, String(condition.value));
    const tested = nestedCondition(chain, valueCondition(chain[chain.length - 1] as FieldPlan, condition));
    // MikroORM left-joins a nullable relation: `IS NULL` on a field of its target would also hold
    // for rows with no related record, which the contract says never match a filter.
    if (throughRelation(chain) && condition.op === '$eq' && condition.value === null)
      return { $and: [{ [(chain[0] as FieldPlan).prop.name]: { $ne: null } }, tested] };
    return tested;
  });
  if (conditions.length === 0) return {};
  if (conditions.length === 1) return conditions[0] as Condition;
  // $and keeps two conditions on one field apart (`age > 1` and `age < 9`).
  return { $and: conditions };
}

/**
 * The MikroORM `orderBy`, ending with the primary key so that pages never overlap. A key through a
 * many-to-one (`category.name`) is nested under the relation, which MikroORM joins (a left join
 * for a nullable one, so rows without a related record stay, where the database sorts NULL).
 * Consecutive keys under one property share its entry (`{ team: { name, city } }`). For an entity
 * with an `orderBy` of its own, `em.find` keeps only the first entry of each property
 * (`QueryHelper.mergeOrderBy`), so a later key under a property named before is left out here too
 * (`sort=team,team.name`): both paths then sort as `em.find` does.
 */
export function orderByOf(plan: ModelPlan, sort: ListQuery['sort']): Record<string, unknown>[] {
  const order: Record<string, unknown>[] = [];
  const merged = plan.meta.orderBy !== undefined;
  const heads = new Set<string>();
  let previous: { name: string; entry: Record<string, unknown> } | undefined;
  for (const key of sort) {
    const names = fieldPath(plan, key.field).map((step) => step.prop.name);
    const head = names[0] as string;
    const direction = key.nulls === undefined ? key.direction : `${key.direction} nulls ${key.nulls}`;
    const nested = previous?.name === head && names.length > 1 ? previous.entry[head] : undefined;
    if (typeof nested === 'object' && nested !== null) {
      setPath(nested as Record<string, unknown>, names.slice(1), direction);
      continue;
    }
    if (merged && heads.has(head)) continue;
    heads.add(head);
    const entry: Record<string, unknown> = {};
    setPath(entry, names, direction);
    order.push(entry);
    previous = names.length > 1 ? { name: head, entry } : undefined;
  }
  if (!heads.has(plan.primary.prop.name)) order.push({ [plan.primary.prop.name]: 'asc' });
  return order;
}

/** Sets `value` at the property path inside `target`, making the objects on the way. */
function setPath(target: Record<string, unknown>, names: readonly string[], value: unknown): void {
  let node = target;
  for (const name of names.slice(0, -1)) {
    const next = node[name];
    if (typeof next === 'object' && next !== null) node = next as Record<string, unknown>;
    else {
      const made: Record<string, unknown> = {};
      node[name] = made;
      node = made;
    }
  }
  node[names[names.length - 1] as string] = value;
}

/** The core's answer to a cursor that is no position of this list (lib/query/cursor.ts). */
function badCursor(): ApiError {
  return ApiError.invalidQuery(
    'after: the cursor is not valid; use the `after` of a `Link: rel="next"` header.',
  );
}

/**
 * The keyset condition "after these sort values": for keys a, b, c with directions, the rows where
 * a ≻ x, or a = x and b ≻ y, or a = x and b = y and c ≻ z (≻ is > ascending, < descending). It
 * leads with the bound a ⪰ x, which gives the database a range on the first key to scan an index
 * from instead of a disjunction to evaluate row by row. Sort keys are never NULL here: the core
 * refuses keyset paging on nullable fields.
 */
export function keysetOf(plan: ModelPlan, sort: ListQuery['sort'], after: readonly unknown[]): Condition {
  const keyIndex = sort.findIndex((key) => key.field === plan.description.primaryKey);
  const keyValue = keyIndex < 0 ? undefined : plan.primary.encodeKeyset(after[keyIndex]);
  const keys = sort.map((key, index) => {
    const field = plan.byName.get(key.field);
    if (field === undefined) throw new Error(`Unknown sort field ${key.field}`);
    const value = field.encodeKeyset(after[index]);
    // A forged cursor may hold a value the field's custom type refuses (MikroORM would throw).
    if (field.queryable?.(value, key.direction === 'asc' ? '$gt' : '$lt') === false) throw badCursor();
    return {
      name: field.prop.name,
      asc: key.direction === 'asc',
      value:
        field.field.type === 'datetime' && keyValue !== undefined && exactDatetimeKeyset(plan.dialect)
          ? storedValue(plan, field, keyValue, value)
          : value,
    };
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

/**
 * A datetime key's position as the cursor's row stores it: PostgreSQL and MariaDB keep microseconds
 * (`now()`), a cursor holds the millisecond the API showed, and comparing with that would repeat the
 * rows of that millisecond (or skip some, descending). The row is found by its key, and its value
 * counts only within the cursor's own millisecond, [value, value + 1 ms) (the drivers cut a stored
 * value to the millisecond, never round it up): a row edited since the page was read, or gone,
 * leaves the cursor's value, so the walk goes on from where the page ended (rows sharing that
 * millisecond at finer values may then repeat ascending or be skipped descending). The subquery
 * applies none of the list's conditions (filters, the policy's scope, MikroORM filters, an STI
 * discriminator: raw SQL gets none of them from MikroORM), so a forged cursor naming a row the
 * caller cannot see learns whether that row lies in the cursor's millisecond, and where in it.
 */
function storedValue(plan: ModelPlan, field: FieldPlan, key: unknown, cursor: unknown): unknown {
  const table =
    plan.meta.schema !== undefined && plan.meta.schema !== '*'
      ? `${plan.meta.schema}.${plan.meta.tableName}`
      : plan.meta.tableName;
  // A custom type may encode the cursor's value otherwise than as a Date.
  const time = cursor instanceof Date ? cursor.getTime() : Date.parse(String(cursor));
  if (Number.isNaN(time)) return cursor;
  const column = field.prop.fieldNames[0];
  return raw('coalesce((select ?? from ?? where ?? = ? and ?? >= ? and ?? < ?), ?)', [
    column,
    table,
    plan.primary.prop.fieldNames[0],
    key,
    column,
    new Date(time),
    column,
    new Date(time + 1),
    cursor,
  ]);
}

/**
 * Whether a list's statement carries values the client sent: a filter's value or pattern, a
 * keyset position. Only then may a value the database cannot read be the client's.
 */
export function carriesValues(query: ListQuery): boolean {
  return (
    query.after !== undefined ||
    query.filters.some((condition) => condition.op !== '$exists' && condition.value !== null)
  );
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
