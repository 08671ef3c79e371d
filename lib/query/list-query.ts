/**
 * Parses the query string of a list route into a validated `ListQuery`: `limit`, `offset`,
 * `sort`, `fields`, `filter[field]` and `filter[field][$op]`. Only readable fields may be named;
 * every other mistake is a 400 that says what was wrong.
 */
import { ApiError } from '../errors.js';
import type {
  FieldDescription,
  FilterCondition,
  FilterOperator,
  ListQuery,
  ModelDescription,
  SortKey,
} from '../types.js';
import { coerceQueryValue } from './coerce.js';
import { cursorShape, decodeCursor } from './cursor.js';

/** Default and largest page size. */
export const LIST_LIMITS = {
  /** `limit` of a list request that does not give one. */
  defaultLimit: 100,
  /** Largest `limit` accepted; a larger one is refused with 400. */
  maxLimit: 1000,
  /** Most values one `$in` or `$nin` filter takes. */
  maxInItems: 100,
} as const;

/** The operators of `filter[field][$op]`. */
export const FILTER_OPERATORS: readonly FilterOperator[] = [
  '$eq',
  '$ne',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$in',
  '$nin',
  '$like',
  '$exists',
];

/** A parsed list request: the adapter query plus the field selection and the keyset shape. */
export interface ParsedListQuery extends ListQuery {
  readonly fields?: readonly string[];
  /** Set when the request pages by keyset (`after`, possibly empty): what its cursors are bound to. */
  readonly cursorShape?: string;
}

const ORDERED_TYPES = new Set([
  'integer',
  'bigint',
  'number',
  'decimal',
  'date',
  'datetime',
  'time',
  'string',
  'text',
  'uuid',
  'enum',
]);
const TEXT_TYPES = new Set(['string', 'text', 'uuid', 'enum']);
const FILTER_KEY = /^filter\[([^\][]+)\](?:\[([^\][]+)\])?$/;

function nonNegativeInteger(name: string, raw: string, max: number): number {
  if (!/^\d{1,16}$/.test(raw)) throw ApiError.invalidQuery(`${name} must be a non-negative integer.`);
  const value = Number(raw);
  if (value > max) throw ApiError.invalidQuery(`${name} must be at most ${max}.`);
  return value;
}

/** The readable field named in a query, or a 400 naming the parameter. */
function readableField(model: ModelDescription, name: string, parameter: string): FieldDescription {
  const field = model.fieldsByName.get(name);
  if (field === undefined || field.hidden) {
    throw ApiError.invalidQuery(`${parameter}: ${model.name} has no readable field "${name}".`);
  }
  return field;
}

function parseSort(model: ModelDescription, raw: string): SortKey[] {
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  for (const part of raw.split(',')) {
    const descending = part.startsWith('-');
    const name = descending || part.startsWith('+') ? part.slice(1) : part;
    if (name === '') throw ApiError.invalidQuery('sort: empty sort key.');
    const field = readableField(model, name, 'sort');
    if (field.type === 'json') throw ApiError.invalidQuery(`sort: JSON field "${name}" cannot be sorted.`);
    if (seen.has(name)) throw ApiError.invalidQuery(`sort: "${name}" is named twice.`);
    seen.add(name);
    keys.push({ field: name, direction: descending ? 'desc' : 'asc' });
  }
  return keys;
}

function parseFields(model: ModelDescription, raw: string): string[] {
  const names = raw.split(',');
  const unique = new Set<string>();
  for (const name of names) {
    readableField(model, name, 'fields');
    unique.add(name);
  }
  return [...unique];
}

function parseFilter(
  model: ModelDescription,
  fieldName: string,
  rawOp: string,
  raw: string,
): FilterCondition {
  const parameter = `filter[${fieldName}]`;
  const field = readableField(model, fieldName, 'filter');
  if (!(FILTER_OPERATORS as readonly string[]).includes(rawOp)) {
    throw ApiError.invalidQuery(
      `${parameter}: unknown operator "${rawOp}"; use one of ${FILTER_OPERATORS.join(' ')}.`,
    );
  }
  const op = rawOp as FilterOperator;
  if (op === '$exists') {
    if (raw !== 'true' && raw !== 'false')
      throw ApiError.invalidQuery(`${parameter}[$exists] must be true or false.`);
    return { field: fieldName, op, value: raw === 'true' };
  }
  if (field.type === 'json')
    throw ApiError.invalidQuery(`${parameter}: JSON fields can only be tested with $exists.`);
  if (op === '$like') {
    if (!TEXT_TYPES.has(field.type))
      throw ApiError.invalidQuery(`${parameter}[$like] applies to text fields only.`);
    return { field: fieldName, op, value: raw };
  }
  if ((op === '$gt' || op === '$gte' || op === '$lt' || op === '$lte') && !ORDERED_TYPES.has(field.type)) {
    throw ApiError.invalidQuery(`${parameter}[${op}] does not apply to ${field.type} fields.`);
  }
  if (op === '$in' || op === '$nin') {
    const items = raw.split(',');
    if (items.length > LIST_LIMITS.maxInItems) {
      throw ApiError.invalidQuery(`${parameter}[${op}] takes at most ${LIST_LIMITS.maxInItems} values.`);
    }
    return { field: fieldName, op, value: items.map((item) => coerceQueryValue(field, item, parameter)) };
  }
  return { field: fieldName, op, value: coerceQueryValue(field, raw, parameter) };
}

/** Parses a list route's query string against the model's readable fields. */
export function parseListQuery(model: ModelDescription, search: string): ParsedListQuery {
  const params = new URLSearchParams(search);
  const seen = new Set<string>();
  let limit: number = LIST_LIMITS.defaultLimit;
  let offset = 0;
  let sort: SortKey[] = [];
  let fields: string[] | undefined;
  let withTotal = true;
  let after: string | undefined;
  const filters: FilterCondition[] = [];

  for (const [key, value] of params) {
    if (seen.has(key)) throw ApiError.invalidQuery(`Query parameter "${key}" is given more than once.`);
    seen.add(key);
    if (key === 'limit') {
      limit = nonNegativeInteger('limit', value, Number.MAX_SAFE_INTEGER);
      if (limit < 1 || limit > LIST_LIMITS.maxLimit) {
        throw ApiError.invalidQuery(`limit must be between 1 and ${LIST_LIMITS.maxLimit}.`);
      }
    } else if (key === 'offset') {
      offset = nonNegativeInteger('offset', value, Number.MAX_SAFE_INTEGER);
    } else if (key === 'sort') {
      sort = parseSort(model, value);
    } else if (key === 'fields') {
      fields = parseFields(model, value);
    } else if (key === 'count') {
      if (value !== 'true' && value !== 'false') throw ApiError.invalidQuery('count must be true or false.');
      withTotal = value === 'true';
    } else if (key === 'after') {
      after = value;
    } else {
      const match = FILTER_KEY.exec(key);
      if (match === null) {
        throw ApiError.invalidQuery(
          `Unknown query parameter "${key}"; use limit, offset, after, sort, fields, count or filter[field][$op].`,
        );
      }
      filters.push(parseFilter(model, match[1] as string, match[2] ?? '$eq', value));
    }
  }
  // The primary key as last sort key makes offset pages stable.
  if (!sort.some((key) => key.field === model.primaryKey))
    sort.push({ field: model.primaryKey, direction: 'asc' });
  const base = { filters, sort, limit, offset, withTotal, ...(fields === undefined ? {} : { fields }) };
  if (after === undefined) return base;
  if (seen.has('offset'))
    throw ApiError.invalidQuery('after and offset cannot be combined: page by one or the other.');
  const shape = keysetShape(model, sort, filters);
  return after === ''
    ? { ...base, cursorShape: shape }
    : { ...base, cursorShape: shape, after: decodeCursor(model, shape, sort, after) };
}

/**
 * The shape keyset cursors of this sort and filter are bound to. NULL sorts first on some
 * databases and last on others, and `x > NULL` is never true: rather than pages that differ per
 * database, keyset paging refuses nullable sort keys (offset paging still sorts by them).
 */
function keysetShape(
  model: ModelDescription,
  sort: readonly SortKey[],
  filters: readonly FilterCondition[],
): string {
  for (const key of sort) {
    if (model.fieldsByName.get(key.field)?.nullable) {
      throw ApiError.invalidQuery(
        `after: "${key.field}" may be null, and keyset paging cannot sort by a nullable field; sort by non-null fields or page with offset.`,
      );
    }
  }
  return cursorShape(model, sort, filters);
}
