/**
 * Keyset cursors of list routes (`after=`): the base64url JSON of the last row's sort-key values,
 * bound to the list's shape (model, sort keys and directions, filtered fields and operators) and
 * carrying a checksum, so that a cursor used with another sort or filter, edited or made up is a
 * 400 instead of a silently wrong page. A cursor is opaque, not secret: it grants nothing, as the
 * filters and the policy's scope apply to every page anyway.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { FieldDescription, FilterCondition, ModelDescription, RawRecord, SortKey } from '../types.js';
import { parseFieldText } from './coerce.js';

/** Format version inside every cursor; a cursor of another version is refused. */
const CURSOR_VERSION = 1;
/** Longest `after` value accepted (a cursor of a few long text keys fits easily). */
export const MAX_CURSOR_LENGTH = 4096;

/** The shape a cursor is bound to: one string naming the model, the sort and the filtered fields. */
export function cursorShape(
  model: ModelDescription,
  sort: readonly SortKey[],
  filters: readonly FilterCondition[],
): string {
  const order = sort.map((key) => `${key.direction === 'desc' ? '-' : ''}${key.field}`).join(',');
  const filtered = filters
    .map((condition) => `${condition.field}${condition.op}`)
    .sort()
    .join(',');
  return `${model.name}|${order}|${filtered}`;
}

function checksum(shape: string, values: string): string {
  return createHash('sha256').update(shape).update('\u0000').update(values).digest('base64url').slice(0, 16);
}

/** The JSON form of a sort value taken from a raw row (the form a query value has). */
function cursorValue(field: FieldDescription, value: unknown): string | number | boolean | null {
  if (value === undefined || value === null) return null;
  if (value instanceof Date)
    return field.type === 'date' ? value.toISOString().slice(0, 10) : value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (field.type === 'boolean' && typeof value === 'number') return value !== 0;
  if (typeof value === 'number' && (field.type === 'bigint' || field.type === 'decimal'))
    return String(value);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}

/** The cursor that continues after `row` in a list of this shape. */
export function encodeCursor(
  model: ModelDescription,
  shape: string,
  sort: readonly SortKey[],
  row: Readonly<RawRecord>,
): string {
  const values = sort.map((key) => {
    const field = model.fieldsByName.get(key.field);
    return field === undefined ? null : cursorValue(field, row[key.field]);
  });
  const text = JSON.stringify(values);
  return Buffer.from(JSON.stringify([CURSOR_VERSION, checksum(shape, text), values]), 'utf8').toString(
    'base64url',
  );
}

const malformed = (): ApiError =>
  ApiError.invalidQuery('after: the cursor is not valid; use the `after` of a `Link: rel="next"` header.');

/**
 * The sort-key values a cursor holds, coerced to each field's query form; a 400 when the cursor is
 * garbage, was edited, or was made for another sort or filter.
 */
export function decodeCursor(
  model: ModelDescription,
  shape: string,
  sort: readonly SortKey[],
  raw: string,
): unknown[] {
  if (raw.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw malformed();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (!Array.isArray(decoded) || decoded.length !== 3 || decoded[0] !== CURSOR_VERSION) throw malformed();
  const [, sum, values] = decoded as [number, unknown, unknown];
  if (typeof sum !== 'string' || !Array.isArray(values)) throw malformed();
  if (sum !== checksum(shape, JSON.stringify(values))) {
    throw ApiError.invalidQuery(
      'after: the cursor was made for another sort or filter (or was changed); ' +
        'keep sort and filters as they were, or start again without `after`.',
    );
  }
  if (values.length !== sort.length) throw malformed();
  return sort.map((key, index) => {
    const field = model.fieldsByName.get(key.field);
    const value: unknown = values[index];
    if (field === undefined || !['string', 'number', 'boolean'].includes(typeof value)) throw malformed();
    const parsed = parseFieldText(field, String(value));
    if (parsed === undefined) throw malformed();
    return parsed;
  });
}
