/**
 * Evaluates a `ListQuery` over stored rows with SQL semantics:
 * - a comparison with NULL is never true (`$ne`, `$gt`, `$nin`… skip rows whose value is NULL);
 *   `$eq null` / `$exists false` mean `IS NULL`, `$ne null` / `$exists true` mean `IS NOT NULL`;
 * - `$nin` with a NULL among its values matches nothing (`x NOT IN (…, NULL)` is never true);
 * - NULLs sort like PostgreSQL: last ascending, first descending;
 * - rows equal on every sort key keep insertion order (a stable sort).
 */
import { ApiError } from '../../lib/errors.js';
import type {
  FieldDescription,
  FilterCondition,
  ListQuery,
  ModelDescription,
  RawRecord,
  SortKey,
} from '../../lib/types.js';
import { canonicalJson, compareStored, likeMatcher, likeText } from './compare.js';
import { toStored, ValueProblem } from './values.js';

type Test = (stored: unknown) => boolean;

function fieldOf(model: ModelDescription, name: string, parameter: string): FieldDescription {
  const field = model.fieldsByName.get(name);
  if (field === undefined) throw ApiError.invalidQuery(`${parameter}: ${model.name} has no field "${name}".`);
  return field;
}

function operand(field: FieldDescription, value: unknown, op: string): unknown {
  try {
    return toStored(field, value);
  } catch (error) {
    if (!(error instanceof ValueProblem)) throw error;
    throw ApiError.invalidQuery(`filter[${field.name}][${op}]: the value ${error.message}.`);
  }
}

/** Whether two non-null stored values of a field are equal. */
export function storedEquals(field: FieldDescription, a: unknown, b: unknown): boolean {
  return field.type === 'json'
    ? canonicalJson(a) === canonicalJson(b)
    : compareStored(field.type, a, b) === 0;
}

function compileCondition(field: FieldDescription, condition: FilterCondition): Test {
  const { op, value } = condition;
  const cmp = (stored: unknown, against: unknown): number => compareStored(field.type, stored, against);
  if (op === '$exists') {
    if (typeof value !== 'boolean')
      throw ApiError.invalidQuery(`filter[${field.name}][$exists] takes a boolean.`);
    return (stored) => (stored !== null) === value;
  }
  if (op === '$in' || op === '$nin') {
    if (!Array.isArray(value)) throw ApiError.invalidQuery(`filter[${field.name}][${op}] takes a list.`);
    const items = value.map((item) => operand(field, item, op));
    const present = items.filter((item) => item !== null);
    const hit = (stored: unknown): boolean => present.some((item) => storedEquals(field, stored, item));
    if (op === '$in') return (stored) => stored !== null && hit(stored);
    return present.length < items.length ? () => false : (stored) => stored !== null && !hit(stored);
  }
  if (op === '$like' || op === '$ilike') {
    if (typeof value !== 'string')
      throw ApiError.invalidQuery(`filter[${field.name}][${op}] takes a pattern.`);
    const matches = likeMatcher(value, op === '$ilike');
    return (stored) => stored !== null && matches(likeText(stored));
  }
  const against = operand(field, value, op);
  if (against === null) {
    if (op === '$eq') return (stored) => stored === null;
    if (op === '$ne') return (stored) => stored !== null;
    return () => false;
  }
  switch (op) {
    case '$eq':
      return (stored) => stored !== null && storedEquals(field, stored, against);
    case '$ne':
      return (stored) => stored !== null && !storedEquals(field, stored, against);
    case '$gt':
      return (stored) => stored !== null && cmp(stored, against) > 0;
    case '$gte':
      return (stored) => stored !== null && cmp(stored, against) >= 0;
    case '$lt':
      return (stored) => stored !== null && cmp(stored, against) < 0;
    case '$lte':
      return (stored) => stored !== null && cmp(stored, against) <= 0;
    default:
      throw ApiError.invalidQuery(`filter[${field.name}]: unknown operator "${String(op)}".`);
  }
}

/** Compiles the filters of a query into one predicate (all conditions must hold). */
export function compileFilters(
  model: ModelDescription,
  filters: readonly FilterCondition[],
): (row: RawRecord) => boolean {
  const tests = filters.map((condition) => {
    const field = fieldOf(model, condition.field, 'filter');
    const test = compileCondition(field, condition);
    return (row: RawRecord): boolean => test(row[field.name] ?? null);
  });
  return (row) => tests.every((test) => test(row));
}

/** Compiles sort keys into a comparator; NULLs last ascending and first descending. */
export function compileSort(
  model: ModelDescription,
  keys: readonly SortKey[],
): (a: RawRecord, b: RawRecord) => number {
  const comparators = keys.map((key) => {
    const field = fieldOf(model, key.field, 'sort');
    const direction = key.direction === 'desc' ? -1 : 1;
    return (a: RawRecord, b: RawRecord): number => {
      const x = a[field.name] ?? null;
      const y = b[field.name] ?? null;
      // NULL is the largest value in PostgreSQL's default ordering; the direction flips it too.
      if (x === null || y === null) return x === y ? 0 : (x === null ? 1 : -1) * direction;
      return compareStored(field.type, x, y) * direction;
    };
  });
  return (a, b) => {
    for (const compare of comparators) {
      const result = compare(a, b);
      if (result !== 0) return result;
    }
    return 0;
  };
}

/** Filters, sorts and pages stored rows; `total` counts the filtered rows before paging. */
export function runListQuery(
  model: ModelDescription,
  rows: Iterable<RawRecord>,
  query: ListQuery,
): { rows: RawRecord[]; total?: number } {
  const matches = compileFilters(model, query.filters);
  const selected = [...rows].filter(matches);
  const compare = compileSort(model, query.sort);
  if (query.sort.length > 0) selected.sort(compare);
  const start = query.after === undefined ? query.offset : keysetStart(model, query, selected, compare);
  const page = selected.slice(start, start + query.limit);
  return query.withTotal ? { rows: page, total: selected.length } : { rows: page };
}

/** Index of the first sorted row strictly after the keyset position (rows are already in order). */
function keysetStart(
  model: ModelDescription,
  query: ListQuery,
  sorted: readonly RawRecord[],
  compare: (a: RawRecord, b: RawRecord) => number,
): number {
  const after = query.after ?? [];
  if (after.length !== query.sort.length)
    throw ApiError.invalidQuery('after: one value per sort key is needed.');
  const pivot: RawRecord = {};
  query.sort.forEach((key, index) => {
    const field = fieldOf(model, key.field, 'sort');
    pivot[field.name] = operand(field, after[index], 'after');
  });
  const index = sorted.findIndex((row) => compare(row, pivot) > 0);
  return index === -1 ? sorted.length : index;
}
