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

/** A parsed list request: the adapter query plus the field selection and whether to count. */
export interface ParsedListQuery extends ListQuery {
  readonly fields?: readonly string[];
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
    } else {
      const match = FILTER_KEY.exec(key);
      if (match === null) {
        throw ApiError.invalidQuery(
          `Unknown query parameter "${key}"; use limit, offset, sort, fields, count or filter[field][$op].`,
        );
      }
      filters.push(parseFilter(model, match[1] as string, match[2] ?? '$eq', value));
    }
  }
  // The primary key as last sort key makes offset pages stable.
  if (!sort.some((key) => key.field === model.primaryKey))
    sort.push({ field: model.primaryKey, direction: 'asc' });
  return { filters, sort, limit, offset, withTotal, ...(fields === undefined ? {} : { fields }) };
}
