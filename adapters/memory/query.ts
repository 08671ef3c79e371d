/**
 * Evaluates a `ListQuery` over stored rows with SQL semantics:
 * - a comparison with NULL is never true (`$ne`, `$gt`, `$nin`… skip rows whose value is NULL);
 *   `$eq null` / `$exists false` mean `IS NULL`, `$ne null` / `$exists true` mean `IS NOT NULL`;
 * - `$nin` with a NULL among its values matches nothing (`x NOT IN (…, NULL)` is never true);
 * - NULLs sort like PostgreSQL (last ascending, first descending) unless a key places them;
 * - rows equal on every sort key keep insertion order (a stable sort);
 * - through a many-to-one (`author.name`, paths.ts), a row whose relation is NULL or dangling
 *   matches no filter and sorts as a NULL value.
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
import { type FieldPath, type RelatedRows, resolvePath } from './paths.js';
import { toStored, ValueProblem } from './values.js';

type Test = (stored: unknown) => boolean;

function operand(path: FieldPath, value: unknown, op: string): unknown {
  try {
    return toStored(path.field, value);
  } catch (error) {
    if (!(error instanceof ValueProblem)) throw error;
    throw ApiError.invalidQuery(`filter[${path.name}][${op}]: the value ${error.message}.`);
  }
}

/** Whether two non-null stored values of a field are equal. */
export function storedEquals(field: FieldDescription, a: unknown, b: unknown): boolean {
  return field.type === 'json'
    ? canonicalJson(a) === canonicalJson(b)
    : compareStored(field.type, a, b) === 0;
}

function compileCondition(path: FieldPath, condition: FilterCondition): Test {
  const { field, name } = path;
  const { op, value } = condition;
  const cmp = (stored: unknown, against: unknown): number => compareStored(field.type, stored, against);
  if (op === '$exists') {
    if (typeof value !== 'boolean') throw ApiError.invalidQuery(`filter[${name}][$exists] takes a boolean.`);
    return (stored) => (stored !== null) === value;
  }
  if (op === '$in' || op === '$nin') {
    if (!Array.isArray(value)) throw ApiError.invalidQuery(`filter[${name}][${op}] takes a list.`);
    const items = value.map((item) => operand(path, item, op));
    const present = items.filter((item) => item !== null);
    const hit = (stored: unknown): boolean => present.some((item) => storedEquals(field, stored, item));
    if (op === '$in') return (stored) => stored !== null && hit(stored);
    return present.length < items.length ? () => false : (stored) => stored !== null && !hit(stored);
  }
  if (op === '$like' || op === '$ilike') {
    if (typeof value !== 'string') throw ApiError.invalidQuery(`filter[${name}][${op}] takes a pattern.`);
    const matches = likeMatcher(value, op === '$ilike');
    return (stored) => stored !== null && matches(likeText(stored));
  }
  const against = operand(path, value, op);
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
      throw ApiError.invalidQuery(`filter[${name}]: unknown operator "${String(op)}".`);
  }
}

/** Compiles the filters of a query into one predicate (all conditions must hold). */
export function compileFilters(
  model: ModelDescription,
  filters: readonly FilterCondition[],
  related: RelatedRows,
): (row: RawRecord) => boolean {
  const tests = filters.map((condition) => {
    const path = resolvePath(model, condition.field, 'filter', related);
    const test = compileCondition(path, condition);
    return (row: RawRecord): boolean => {
      const value = path.read(row);
      return value !== undefined && test(value);
    };
  });
  return (row) => tests.every((test) => test(row));
}

/** How rows are ordered: each row's sort values, and an order of two rows' values. */
export interface SortPlan {
  /** The resolved sort keys, most significant first. */
  readonly paths: readonly FieldPath[];
  /** The row's value per sort key (NULL for a NULL or dangling relation). */
  values(row: RawRecord): unknown[];
  /** Orders two rows' values; NULLs where a key places them, else last ascending and first descending. */
  compare(a: readonly unknown[], b: readonly unknown[]): number;
}

/** Compiles sort keys into a `SortPlan`. */
export function compileSort(
  model: ModelDescription,
  keys: readonly SortKey[],
  related: RelatedRows,
): SortPlan {
  const paths = keys.map((key) => resolvePath(model, key.field, 'sort', related));
  const directions = keys.map((key) => (key.direction === 'desc' ? -1 : 1));
  // Where a key places NULLs: -1 first, 1 last; by default last ascending and first descending.
  const nullPlaces = keys.map((key, index) =>
    key.nulls === undefined ? (directions[index] ?? 1) : key.nulls === 'first' ? -1 : 1,
  );
  return {
    paths,
    values: (row) => paths.map((path) => path.read(row) ?? null),
    compare: (a, b) => {
      for (const [index, path] of paths.entries()) {
        const x = a[index] ?? null;
        const y = b[index] ?? null;
        const direction = directions[index] ?? 1;
        // NULL is the largest value in PostgreSQL's default ordering; the direction flips it too.
        const result =
          x === null || y === null
            ? x === y
              ? 0
              : (x === null ? 1 : -1) * (nullPlaces[index] ?? 1)
            : compareStored(path.field.type, x, y) * direction;
        if (result !== 0) return result;
      }
      return 0;
    },
  };
}

/** A row with its sort values, computed once per row rather than per comparison. */
interface Keyed {
  readonly row: RawRecord;
  readonly values: readonly unknown[];
}

/**
 * Filters, sorts and pages stored rows; `total` counts the filtered rows before paging. `related`
 * resolves paths through many-to-one relations.
 */
export function runListQuery(
  model: ModelDescription,
  rows: Iterable<RawRecord>,
  query: ListQuery,
  related: RelatedRows,
): { rows: RawRecord[]; total?: number } {
  const matches = compileFilters(model, query.filters, related);
  const plan = compileSort(model, query.sort, related);
  const selected: Keyed[] = [...rows].filter(matches).map((row) => ({ row, values: plan.values(row) }));
  if (query.sort.length > 0) selected.sort((a, b) => plan.compare(a.values, b.values));
  const start = query.after === undefined ? query.offset : keysetStart(query, selected, plan);
  const page = selected.slice(start, start + query.limit).map((keyed) => keyed.row);
  return query.withTotal ? { rows: page, total: selected.length } : { rows: page };
}

/** Index of the first sorted row strictly after the keyset position (rows are already in order). */
function keysetStart(query: ListQuery, sorted: readonly Keyed[], plan: SortPlan): number {
  const after = query.after ?? [];
  if (after.length !== query.sort.length)
    throw ApiError.invalidQuery('after: one value per sort key is needed.');
  const pivot = plan.paths.map((path, index) => operand(path, after[index], 'after'));
  const index = sorted.findIndex((keyed) => plan.compare(keyed.values, pivot) > 0);
  return index === -1 ? sorted.length : index;
}
