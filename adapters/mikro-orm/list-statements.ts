/**
 * The SQL of list queries, built once per shape. A list's shape (which fields are filtered with
 * which operators, the sort, whether it starts after a keyset position) decides its SQL; only the
 * values change between requests. MikroORM's query builder spends more on turning a `where`
 * object into SQL than SQLite spends running the query (bench/NOTES.md, "Figures behind code
 * comments": list SQL templates and cursor check), so each shape is built once with marker values,
 * the markers are found among the parameters, and later requests only fill in their values.
 *
 * Only shapes whose values reach the database unchanged are templated: comparisons and lists of
 * integer, number, string, UUID and enum values, NULL tests and keyset positions. `$like` (its
 * pattern is rewritten per database), other field types (MikroORM converts dates, booleans,
 * decimals, JSON) and models with MikroORM filters take the query builder every time.
 */
import type { FilterCondition, ListQuery } from '../../lib/types.js';
import type { ModelPlan } from './plan.js';

/** A query with marker parameters replaced by the request's values in `values`. */
export interface ListStatement {
  readonly sql: string;
  readonly params: readonly unknown[];
}

/** Builds the SQL and parameters of a list query the slow way (the query builder's `toQuery()`). */
export type ListBuilder = (query: ListQuery) => ListStatement;

interface Template {
  readonly sql: string;
  /** For each parameter: the index of the value it takes. */
  readonly slots: readonly number[];
}

// Field types whose query values MikroORM passes to the driver as they are.
const PLAIN_TYPES = new Set(['integer', 'number', 'string', 'text', 'uuid', 'enum']);
const VALUE_OPS = new Set(['$eq', '$ne', '$gt', '$gte', '$lt', '$lte', '$in', '$nin']);
const MAX_TEMPLATES = 500;
const MARKER = '\u0000kma-list-value\u0000';
// Integers no list uses: the markers of limit and offset.
const LIMIT_MARKER = 2_147_480_001;
const OFFSET_MARKER = 2_147_480_002;

/** The shape of one condition, or undefined when its values are not passed through unchanged. */
function conditionShape(plan: ModelPlan, condition: FilterCondition): string | undefined {
  const field = plan.byName.get(condition.field);
  const { op, value } = condition;
  if (field === undefined) return undefined;
  // NULL tests carry no value: any field type.
  if (op === '$exists') return `${condition.field}${op}${String(value)}`;
  if ((op === '$eq' || op === '$ne') && value === null) return `${condition.field}${op}null`;
  if (!PLAIN_TYPES.has(field.field.type) || !VALUE_OPS.has(op)) return undefined;
  if (op === '$in' || op === '$nin') {
    if (!Array.isArray(value) || value.some((item) => item === null || item === undefined)) return undefined;
    return `${condition.field}${op}${value.length}`;
  }
  return `${condition.field}${op}`;
}

/** The values of the query in marker order, and its shape; undefined when it cannot be templated. */
function analyse(plan: ModelPlan, query: ListQuery): { key: string; values: unknown[] } | undefined {
  if (plan.filtered) return undefined;
  const parts: string[] = [];
  const values: unknown[] = [];
  for (const condition of query.filters) {
    const shape = conditionShape(plan, condition);
    if (shape === undefined) return undefined;
    parts.push(shape);
    const { op, value } = condition;
    if (op === '$exists' || value === null) continue;
    if (Array.isArray(value)) values.push(...value);
    else values.push(value);
  }
  const order = query.sort.map((key) => `${key.direction === 'desc' ? '-' : ''}${key.field}`).join(',');
  if (query.after !== undefined) {
    // A position that does not match the sort is the builder's to refuse.
    if (query.after.length !== query.sort.length) return undefined;
    for (const key of query.sort) {
      const type = plan.byName.get(key.field)?.field.type;
      if (type === undefined || !PLAIN_TYPES.has(type)) return undefined;
    }
    values.push(...query.after);
  }
  return { key: `${parts.join('&')}|${order}|${query.after === undefined ? '' : 'after'}`, values };
}

/** The query with every value replaced by its marker (`MARKER` + index). */
function markedQuery(query: ListQuery): ListQuery {
  let n = 0;
  const mark = (): string => `${MARKER}${n++}`;
  const filters = query.filters.map((condition): FilterCondition => {
    const { op, value } = condition;
    if (op === '$exists' || value === null) return condition;
    return { ...condition, value: Array.isArray(value) ? value.map(mark) : mark() };
  });
  return {
    ...query,
    filters,
    limit: LIMIT_MARKER,
    offset: OFFSET_MARKER,
    ...(query.after === undefined ? {} : { after: query.after.map(mark) }),
  };
}

/** Finds where each marker went; undefined when a parameter is anything but a marker. */
function templateOf(statement: ListStatement, count: number, paged: boolean): Template | undefined {
  const slots: number[] = [];
  const seen = new Set<number>();
  for (const param of statement.params) {
    if (param === LIMIT_MARKER && paged) slots.push(count);
    else if (param === OFFSET_MARKER && paged) slots.push(count + 1);
    else if (typeof param === 'string' && param.startsWith(MARKER)) {
      const index = Number(param.slice(MARKER.length));
      if (!Number.isInteger(index) || index < 0 || index >= count) return undefined;
      slots.push(index);
      seen.add(index);
    } else return undefined;
  }
  // A value the builder changed (encoded, quoted, folded into the SQL) leaves its marker unseen;
  // limit and offset must be parameters too, each once, or every page would have the marker's size.
  const once = (slot: number) => slots.filter((s) => s === slot).length === 1;
  if (seen.size !== count || (paged && (!once(count) || !once(count + 1)))) return undefined;
  if (statement.sql.includes(String(LIMIT_MARKER)) || statement.sql.includes(String(OFFSET_MARKER)))
    return undefined;
  return { sql: statement.sql, slots };
}

/** The list statements of one adapter: templates by model and shape, built on first use. */
export class ListStatements {
  readonly #templates = new Map<string, Template | null>();

  /**
   * The SQL and parameters of `query`: from its shape's template, or from `build` when the shape
   * cannot be templated. `paged` is false for the count query (no limit or offset).
   */
  statement(plan: ModelPlan, query: ListQuery, paged: boolean, build: ListBuilder): ListStatement {
    const analysed = analyse(plan, query);
    if (analysed === undefined) return build(query);
    const key = `${plan.description.name}|${paged ? 'rows' : 'count'}|${analysed.key}`;
    let template = this.#templates.get(key);
    if (template === undefined) {
      template = this.#build(query, analysed.values.length, paged, build) ?? null;
      if (this.#templates.size >= MAX_TEMPLATES) this.#templates.clear();
      this.#templates.set(key, template);
    }
    if (template === null) return build(query);
    const values = [
      ...analysed.values.map((value, index) => encodeAt(plan, query, index, value)),
      query.limit,
      query.offset,
    ];
    return { sql: template.sql, params: template.slots.map((slot) => values[slot]) };
  }

  #build(query: ListQuery, count: number, paged: boolean, build: ListBuilder): Template | undefined {
    try {
      return templateOf(build(markedQuery(query)), count, paged);
    } catch {
      // An encoder or the builder refused a marker: this shape takes the builder every time.
      return undefined;
    }
  }
}

/** The database form of value `index` (in marker order), as the live query would encode it. */
function encodeAt(plan: ModelPlan, query: ListQuery, index: number, value: unknown): unknown {
  let position = 0;
  for (const condition of query.filters) {
    const { op, value: given } = condition;
    if (op === '$exists' || given === null) continue;
    const width = Array.isArray(given) ? given.length : 1;
    if (index < position + width) return plan.byName.get(condition.field)?.encode(value) ?? value;
    position += width;
  }
  const key = query.sort[index - position];
  return key === undefined ? value : (plan.byName.get(key.field)?.encodeKeyset(value) ?? value);
}
