/**
 * Parses the query string of a list route into a validated `ListQuery`: `limit`, `offset`,
 * `sort`, `fields`, `filter[field]` and `filter[field][$op]`. Only readable fields may be named,
 * and only queryable ones filtered or sorted; a filter may name a scalar inside an embedded object
 * by dotted path (`filter[address.city]`). `$like`/`$ilike` patterns are capped (length and
 * wildcards) and reach unbounded `text` fields only where the router opts in. Parameters named
 * `_…` or `utm_…` (cache-busters, tracking) are ignored; `sort` and `fields` may be repeated, each
 * value a comma-separated list. Every other mistake is a 400 that says
 * what was wrong.
 */
import { ApiError } from '../errors.js';
import type { IncludableRelation } from '../model/relations.js';
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
import { fieldAtPath, isJsonKey, isQueryable } from './field-paths.js';
import { type IncludeRequest, includeRequests, parseInclude, selectIncludedField } from './include.js';
import { likeCost } from './like-pattern.js';
import { listOrder } from './list-order.js';

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
  '$ilike',
  '$exists',
];

/** The caps and opt-ins of `$like` / `$ilike` patterns (a router's `like` option, resolved). */
export interface LikeLimits {
  /** Longest pattern, in characters as sent (escapes included). */
  readonly maxLength: number;
  /** Most unescaped `%` and `_` in one pattern. */
  readonly maxWildcards: number;
  /** The unbounded `text` fields (by path) patterns may apply to, or `true` for all of them. */
  readonly textFields: true | ReadonlySet<string>;
}

/**
 * Default pattern caps. A pattern costs about its length for every character it is matched
 * against (SQLite, PostgreSQL and MySQL all match by backtracking to the last `%`), so 100
 * characters bound one request at roughly 100 comparisons per stored character; `%a%b%` or
 * `2024-__-__` fit within 4 wildcards. Unbounded `text` fields are opted in per router: a
 * `varchar(n)` bounds the text a pattern scans, a `text` column does not.
 */
export const LIKE_LIMITS: LikeLimits = { maxLength: 100, maxWildcards: 4, textFields: new Set<string>() };

/** Per-router options of `parseListQuery`. */
export interface ListQueryOptions {
  /** Pattern caps and text-field opt-ins; `LIKE_LIMITS` when not given. */
  readonly like?: LikeLimits;
  /** The relations `include=`, filters and sort may use; none when not given. */
  readonly relations?: readonly IncludableRelation[];
}

/** A parsed list request: the adapter query (with the field selection, `fields`) plus the keyset shape. */
export interface ParsedListQuery extends ListQuery {
  /** Set when the request pages by keyset (`after`, possibly empty): what its cursors are bound to. */
  readonly cursorShape?: string;
  /** The relations to embed in each record (`include=`). */
  readonly include?: readonly IncludeRequest[];
  /** The relations filters and sort keys go through (their target's read rules apply). */
  readonly throughRelations?: readonly string[];
}

/** Field types the range operators (`$gt` … `$lte`) compare; the OpenAPI document offers them on these only. */
export const ORDERED_TYPES: ReadonlySet<string> = new Set([
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
/** Field types `$like` / `$ilike` apply to; the OpenAPI document offers them on these only. */
export const TEXT_TYPES: ReadonlySet<string> = new Set(['string', 'text', 'uuid', 'enum']);

/** Whether `$like` / `$ilike` apply to a field: a text-like kind the adapter did not rule out. */
export function takesPatterns(field: FieldDescription): boolean {
  return TEXT_TYPES.has(field.type) && field.patterns !== false;
}
/** The operators a filter on the field takes: those of its kind, less what its `filterLimit` rules out. */
export function filterOperatorsOf(field: FieldDescription): FilterOperator[] {
  const ranges: FilterOperator[] = ORDERED_TYPES.has(field.type) ? ['$gt', '$gte', '$lt', '$lte'] : [];
  const patterns: FilterOperator[] = takesPatterns(field) ? ['$like', '$ilike'] : [];
  const kind: FilterOperator[] =
    field.type === 'json' ? ['$exists'] : ['$eq', '$ne', ...ranges, '$in', '$nin', ...patterns, '$exists'];
  const limit = field.filterLimit;
  return limit === undefined ? kind : kind.filter((op) => limit.operators.includes(op));
}

const FILTER_KEY = /^filter\[([^\][]+)\](?:\[([^\][]+)\])?$/;

function nonNegativeInteger(name: string, raw: string, max: number): number {
  if (!/^\d{1,16}$/.test(raw)) throw ApiError.invalidQuery(`${name} must be a non-negative integer.`);
  const value = Number(raw);
  if (value > max) throw ApiError.invalidQuery(`${name} must be at most ${max}.`);
  return value;
}

/** The 400 for a name that is unknown or hidden: the same whether or not a hidden field has it. */
function noReadableField(model: ModelDescription, name: string, parameter: string): ApiError {
  return ApiError.invalidQuery(`${parameter}: ${model.name} has no readable field "${name}".`);
}

/**
 * The top-level readable field named in `sort` or `fields`, or a 400 naming the parameter. A
 * dotted path is refused with its own message: only filters reach into embedded objects.
 */
function readableField(model: ModelDescription, name: string, parameter: string): FieldDescription {
  const field = model.fieldsByName.get(name);
  if (field === undefined || field.hidden) {
    if (name.includes('.') && !startsAtUnreadable(model, name)) {
      throw ApiError.invalidQuery(
        `${parameter}: "${name}" is a nested path; ${parameter} takes top-level fields of ${model.name} only.`,
      );
    }
    throw noReadableField(model, name, parameter);
  }
  return field;
}

/** Whether a dotted path starts at an unknown or hidden field (then nothing more is said about it). */
function startsAtUnreadable(model: ModelDescription, path: string): boolean {
  const head = model.fieldsByName.get(path.slice(0, path.indexOf('.')));
  return head === undefined || head.hidden;
}

/** A 400 for a readable field that filters or sort may not name (an object, an array, a getter…). */
function notQueryable(field: FieldDescription, path: string, parameter: 'filter' | 'sort'): ApiError {
  const example = field.fields?.find((inner) => !inner.hidden && isQueryable(inner));
  const hint =
    parameter === 'sort'
      ? 'sort takes top-level fields that can be compared'
      : example !== undefined
        ? `filter one of its fields by dotted path, e.g. filter[${path}.${example.name}]`
        : 'it can only be selected with fields=';
  const verb = parameter === 'sort' ? 'sorted' : 'filtered';
  return ApiError.invalidQuery(`${parameter}: "${path}" cannot be ${verb}; ${hint}.`);
}

/**
 * The scalar field a filter names: a top-level field, or by dotted path a field inside embedded
 * objects. Unknown or hidden anywhere on the path is the 400 of an unknown field; a field that is
 * not queryable (objects and arrays themselves included) is a 400 too.
 */
function filterField(model: ModelDescription, path: string): FieldDescription {
  const field = fieldAtPath(model, path);
  if (field === undefined) throw noReadableField(model, path, 'filter');
  if (!isQueryable(field)) throw notQueryable(field, path, 'filter');
  return field;
}

/**
 * The target field of a path through a many-to-one relation (`owner.username`), or `undefined`
 * when the path's first step is not such a relation. One step through the relation, then a
 * readable top-level field of its target; anything else there is the 400 of an unknown field.
 */
function relatedField(
  path: string,
  parameter: 'filter' | 'sort',
  relations: readonly IncludableRelation[],
): { relation: string; field: FieldDescription } | undefined {
  const dot = path.indexOf('.');
  if (dot < 0) return undefined;
  const relation = relations.find((candidate) => candidate.name === path.slice(0, dot));
  if (relation === undefined) return undefined;
  const name = path.slice(dot + 1);
  if (relation.kind !== 'many-to-one') {
    throw ApiError.invalidQuery(
      `${parameter}: "${path}" goes through the to-many relation "${relation.name}"; ${parameter} may go through many-to-one relations only.`,
    );
  }
  const field = relation.target.fieldsByName.get(name);
  if (field === undefined || field.hidden) {
    throw ApiError.invalidQuery(`${parameter}: ${relation.target.name} has no readable field "${name}".`);
  }
  if (!isQueryable(field) || (parameter === 'sort' && field.type === 'json')) {
    throw notQueryable(field, path, parameter);
  }
  return { relation: relation.name, field };
}

function parseSort(
  model: ModelDescription,
  raw: string,
  relations: readonly IncludableRelation[],
  through: Set<string>,
): SortKey[] {
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  for (const part of raw.split(',')) {
    const descending = part.startsWith('-');
    const name = descending || part.startsWith('+') ? part.slice(1) : part;
    if (name === '') throw ApiError.invalidQuery('sort: empty sort key.');
    const related = model.fieldsByName.has(name) ? undefined : relatedField(name, 'sort', relations);
    if (related !== undefined) {
      if (seen.has(name)) throw ApiError.invalidQuery(`sort: "${name}" is named twice.`);
      seen.add(name);
      through.add(related.relation);
      keys.push({ field: name, direction: descending ? 'desc' : 'asc' });
      continue;
    }
    const field = readableField(model, name, 'sort');
    if (!isQueryable(field)) throw notQueryable(field, name, 'sort');
    if (field.type === 'json') throw ApiError.invalidQuery(`sort: JSON field "${name}" cannot be sorted.`);
    if (seen.has(name)) throw ApiError.invalidQuery(`sort: "${name}" is named twice.`);
    seen.add(name);
    keys.push({ field: name, direction: descending ? 'desc' : 'asc' });
  }
  return keys;
}

/**
 * The selection of `fields=` (of a list or a read): top-level readable fields, lazy and non-queryable ones included. A
 * dotted name whose first step is an included relation selects a field of the embedded records
 * instead (`owner.username`); it is routed into the include tree, not into the selection.
 */
export function parseFields(
  model: ModelDescription,
  raw: string,
  included: ReturnType<typeof parseInclude>,
): string[] | undefined {
  const unique = new Set<string>();
  let related = false;
  for (const name of raw.split(',')) {
    const dot = name.indexOf('.');
    if (dot > 0 && !model.fieldsByName.has(name) && isRelationName(model, name.slice(0, dot))) {
      selectIncludedField(included, name);
      related = true;
      continue;
    }
    // An included to-many relation is in the response whatever `fields=` says: naming it is no error.
    if (!model.fieldsByName.has(name) && model.collections?.some((collection) => collection.name === name)) {
      if (!included.has(name))
        throw ApiError.invalidQuery(
          `fields: "${name}" is a relation of ${model.name}, which the request does not include; add include=${name}.`,
        );
      related = true;
      continue;
    }
    readableField(model, name, 'fields');
    unique.add(name);
  }
  // Only related names: the records themselves keep all their fields.
  return unique.size === 0 && related ? undefined : [...unique];
}

/** Whether a name is a readable relation of the model: a many-to-one field or a collection. */
function isRelationName(model: ModelDescription, name: string): boolean {
  const field = model.fieldsByName.get(name);
  if (field !== undefined) return field.relation !== undefined && !field.hidden;
  return model.collections?.some((collection) => collection.name === name) ?? false;
}

/** Checks a `$like`/`$ilike` pattern against the caps and the field against the text opt-ins. */
function checkPattern(
  field: FieldDescription,
  path: string,
  op: '$like' | '$ilike',
  pattern: string,
  limits: LikeLimits,
): void {
  const parameter = `filter[${path}][${op}]`;
  if (field.type === 'text' && limits.textFields !== true && !limits.textFields.has(path)) {
    throw ApiError.invalidQuery(
      `${parameter}: "${path}" is an unbounded text field; pattern filters on it must be enabled by the router's like.text_fields option.`,
    );
  }
  // Other values meet the NUL check in parseFieldText; a pattern is no field value, so it is checked here.
  if (pattern.includes('\u0000'))
    throw ApiError.invalidQuery(
      `${parameter}: the pattern contains a NUL character, which no text can hold.`,
    );
  const cost = likeCost(pattern);
  if (cost.length > limits.maxLength) {
    throw ApiError.invalidQuery(
      `${parameter}: the pattern is ${cost.length} characters long; at most ${limits.maxLength} are allowed (the router's like.max_length option).`,
    );
  }
  if (cost.wildcards > limits.maxWildcards) {
    throw ApiError.invalidQuery(
      `${parameter}: the pattern has ${cost.wildcards} wildcards (% and _); at most ${limits.maxWildcards} are allowed (the router's like.max_wildcards option; write \\% or \\_ for a literal % or _).`,
    );
  }
  if (cost.danglingEscape) {
    throw ApiError.invalidQuery(
      `${parameter}: the pattern ends in a backslash that escapes nothing; write \\\\ for a literal backslash.`,
    );
  }
}

function parseFilter(
  model: ModelDescription,
  fieldName: string,
  rawOp: string,
  raw: string,
  limits: LikeLimits,
  relations: readonly IncludableRelation[],
  through: Set<string>,
): FilterCondition {
  const parameter = `filter[${fieldName}]`;
  const related =
    fieldAtPath(model, fieldName) === undefined ? relatedField(fieldName, 'filter', relations) : undefined;
  if (related !== undefined) {
    through.add(related.relation);
    if (rawOp === '$exists') {
      throw ApiError.invalidQuery(
        `${parameter}[$exists]: a field reached through a relation cannot be tested with $exists; filter the relation's key instead, e.g. filter[${related.relation}][$exists].`,
      );
    }
  }
  const field = related?.field ?? filterField(model, fieldName);
  if (!(FILTER_OPERATORS as readonly string[]).includes(rawOp)) {
    throw ApiError.invalidQuery(
      `${parameter}: unknown operator "${rawOp}"; use one of ${FILTER_OPERATORS.join(' ')}.`,
    );
  }
  const op = rawOp as FilterOperator;
  const limit = field.filterLimit;
  if (limit !== undefined && !limit.operators.includes(op)) {
    const taken = filterOperatorsOf(field);
    const others = taken.length === 0 ? 'no filter' : taken.join(' ');
    throw ApiError.invalidQuery(`${parameter}[${op}]: ${limit.reason} (this field takes ${others}).`);
  }
  const condition = parseCondition(field, fieldName, op, raw, limits);
  // A value compared with the field's (not a pattern, not $exists' flag) that a null would equal.
  const refused = limit?.values ?? [];
  if (refused.length > 0 && op !== '$exists' && op !== '$like' && op !== '$ilike') {
    const values = Array.isArray(condition.value) ? condition.value : [condition.value];
    // A decimal or bigint comes as text (`"0.00"`): a refused number is compared by its value.
    const value = values.find((item) =>
      refused.some((bad) =>
        typeof bad === 'number' && typeof item === 'string'
          ? item.trim() !== '' && Number(item) === bad
          : bad === item,
      ),
    );
    if (value !== undefined) {
      throw ApiError.invalidQuery(
        `${parameter}: ${JSON.stringify(value)} would also match the records where it is null; ${limit?.reason}.`,
      );
    }
  }
  return condition;
}

/** The condition of one filter parameter, its value coerced to the field's type. */
function parseCondition(
  field: FieldDescription,
  fieldName: string,
  op: FilterOperator,
  raw: string,
  limits: LikeLimits,
): FilterCondition {
  const parameter = `filter[${fieldName}]`;
  if (op === '$exists') {
    if (raw !== 'true' && raw !== 'false')
      throw ApiError.invalidQuery(`${parameter}[$exists] must be true or false.`);
    return { field: fieldName, op, value: raw === 'true' };
  }
  if (field.type === 'json' && !isJsonKey(field))
    throw ApiError.invalidQuery(`${parameter}: JSON fields can only be tested with $exists.`);
  if (op === '$like' || op === '$ilike') {
    if (!takesPatterns(field))
      throw ApiError.invalidQuery(`${parameter}[${op}] applies to text fields only.`);
    checkPattern(field, fieldName, op, raw, limits);
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

/** Whether a parameter is one clients and proxies add on their own: `_=…` cache-busters, `utm_…` tracking. */
export function isIgnoredParameter(name: string): boolean {
  return name.startsWith('_') || name.startsWith('utm_');
}

/** Parses a list route's query string against the model's readable (and, for filter and sort, queryable) fields. */
export function parseListQuery(
  model: ModelDescription,
  search: string,
  options: ListQueryOptions = {},
): ParsedListQuery {
  const likeLimits = options.like ?? LIKE_LIMITS;
  const relations = options.relations ?? [];
  const through = new Set<string>();
  const params = new URLSearchParams(search);
  const seen = new Set<string>();
  let limit: number = LIST_LIMITS.defaultLimit;
  let offset = 0;
  let sort: SortKey[] = [];
  let fields: string[] | undefined;
  let withTotal = true;
  let after: string | undefined;
  const filters: FilterCondition[] = [];

  // Lists may be repeated (`sort=a&sort=-b`): generated clients send arrays that way by default.
  const sortParts: string[] = [];
  const fieldParts: string[] = [];
  const includeParts: string[] = [];
  for (const [key, value] of params) {
    if (isIgnoredParameter(key)) continue;
    if (key === 'include') {
      includeParts.push(value);
      continue;
    }
    if (key === 'sort') {
      sortParts.push(value);
      continue;
    }
    if (key === 'fields') {
      fieldParts.push(value);
      continue;
    }
    if (seen.has(key)) throw ApiError.invalidQuery(`Query parameter "${key}" is given more than once.`);
    seen.add(key);
    if (key === 'limit') {
      limit = nonNegativeInteger('limit', value, Number.MAX_SAFE_INTEGER);
      if (limit < 1 || limit > LIST_LIMITS.maxLimit) {
        throw ApiError.invalidQuery(`limit must be between 1 and ${LIST_LIMITS.maxLimit}.`);
      }
    } else if (key === 'offset') {
      offset = nonNegativeInteger('offset', value, Number.MAX_SAFE_INTEGER);
    } else if (key === 'count') {
      if (value !== 'true' && value !== 'false') throw ApiError.invalidQuery('count must be true or false.');
      withTotal = value === 'true';
    } else if (key === 'after') {
      after = value;
    } else {
      const match = FILTER_KEY.exec(key);
      if (match === null) {
        throw ApiError.invalidQuery(
          `Unknown query parameter "${key}"; use limit, offset, after, sort, fields, include, count or filter[field][$op] (names starting with _ or utm_ are ignored).`,
        );
      }
      filters.push(
        parseFilter(model, match[1] as string, match[2] ?? '$eq', value, likeLimits, relations, through),
      );
    }
  }
  const included = parseInclude(model, includeParts, relations);
  if (sortParts.length > 0) sort = parseSort(model, sortParts.join(','), relations, through);
  if (fieldParts.length > 0) fields = parseFields(model, fieldParts.join(','), included);
  const requested = new Set(sort.map((key) => key.field));
  sort = listOrder(model, sort);
  const base = {
    filters,
    sort,
    limit,
    offset,
    withTotal,
    ...(fields === undefined ? {} : { fields }),
    ...(included.size === 0 ? {} : { include: includeRequests(included) }),
    ...(through.size === 0 ? {} : { throughRelations: [...through] }),
  };
  if (after === undefined) return base;
  if (seen.has('offset'))
    throw ApiError.invalidQuery('after and offset cannot be combined: page by one or the other.');
  const shape = keysetShape(model, sort, filters, requested);
  return after === ''
    ? { ...base, cursorShape: shape }
    : { ...base, cursorShape: shape, after: decodeCursor(model, shape, sort, after) };
}

/**
 * The shape keyset cursors of this sort and filter are bound to. NULL sorts first on some
 * databases and last on others, and `x > NULL` is never true: rather than pages that differ per
 * database, keyset paging refuses nullable sort keys (offset paging still sorts by them), and
 * single-precision ones, whose stored values the doubles of a cursor miss by a little. A key of the
 * model's default order is refused the same way, and also when a cursor would show what a response
 * may not (a hidden field) or could not carry it (a JSON value other than the key).
 */
function keysetShape(
  model: ModelDescription,
  sort: readonly SortKey[],
  filters: readonly FilterCondition[],
  requested: ReadonlySet<string>,
): string {
  for (const key of sort) {
    const field = model.fieldsByName.get(key.field);
    const problem = keysetProblem(field, key.field === model.primaryKey);
    if (problem === undefined) continue;
    const named = requested.has(key.field)
      ? `"${key.field}"`
      : `the default order of ${model.name} (its ORM's orderBy) sorts by "${key.field}", which`;
    throw ApiError.invalidQuery(`after: ${named} ${problem}.`);
  }
  return cursorShape(model, sort, filters);
}

/** Why keyset paging cannot sort by this field (undefined: not one of the model's own), and what to do; undefined when it can. */
function keysetProblem(field: FieldDescription | undefined, primary: boolean): string | undefined {
  const cannot = 'and keyset paging cannot sort by it; page with offset';
  if (field === undefined) return `is a field of a related record or an embedded object, ${cannot}`;
  if (field.nullable)
    return 'may be null, and keyset paging cannot sort by a nullable field; sort by non-null fields or page with offset';
  if (field.singlePrecision === true)
    return `is stored in single precision, which the values a cursor holds do not match exactly, ${cannot}`;
  // ORDER BY follows the declared list (a CASE), a comparison with a value its natural order.
  if (field.customOrder === true)
    return `is sorted in a custom order of its values, which comparisons with a cursor's value do not follow, ${cannot}`;
  // A cursor is made from the last row's values, and a row carries a lazy value only when asked.
  if (field.lazy === true) return `is loaded only on request, ${cannot}`;
  // Only a default order names these: a request's sort names readable, sortable fields only.
  if (field.hidden) return `is hidden, which a cursor would show, ${cannot}`;
  if (field.type === 'json' && !primary) return `is a JSON value, which a cursor cannot hold, ${cannot}`;
  return undefined;
}
