/**
 * Keyset cursors of list routes (`after=`): the base64url JSON of the last row's sort-key values
 * and a checksum binding it to the list's shape (model, sort keys and directions, filtered fields
 * and operators), so that a cursor used with another sort or filter, edited or made up is a
 * 400 instead of a silently wrong page. A cursor is opaque, not secret: it grants nothing, as the
 * filters and the policy's scope apply to every page anyway.
 */
import { ApiError } from '../errors.js';
import type { FieldDescription, FilterCondition, ModelDescription, RawRecord, SortKey } from '../types.js';
import { parseFieldText } from './coerce.js';

/** Format version, part of every checksum: a cursor of another version is refused. */
const CURSOR_VERSION = 'v1';
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

/**
 * A 52-bit FNV-1a hash of the shape and values, in base 36. It detects edits and mismatched shapes;
 * it is not a signature (nothing a cursor carries needs one), and unlike a native hash object it
 * allocates nothing per request (the keyset pages before and after:
 * bench/NOTES.md, "Figures behind code comments", list SQL templates and cursor check).
 */
function checksum(shape: string, values: string): string {
  const text = `${CURSOR_VERSION}\u0000${shape}\u0000${values}`;
  const half = 0x4000000; // 2^26: the state is high * 2^26 + low, so every product stays below 2^53
  let high = 0x3ba0d9c; // the 64-bit FNV offset basis, folded to 52 bits
  let low = 0x2ee2325;
  for (let i = 0; i < text.length; i++) {
    low ^= text.charCodeAt(i);
    // state × (2^40 + 0x1b3) mod 2^52: the 2^40 term only moves low's bottom 12 bits into high.
    const lowProduct = low * 0x1b3;
    high = (high * 0x1b3 + Math.floor(lowProduct / half) + (low % 0x1000) * 0x4000) % half;
    low = lowProduct % half;
  }
  return (high * half + low).toString(36);
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

/**
 * The cursor that continues after `row` in a list of this shape: `<values>.<check>`, the base64url
 * JSON of the row's sort-key values and the checksum of the shape and that text (checked before
 * anything is decoded, so that a mismatched cursor costs one pass over a few dozen characters).
 */
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
  const text = Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
  return `${text}.${checksum(shape, text)}`;
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
  const dot = raw.indexOf('.');
  if (raw.length > MAX_CURSOR_LENGTH || dot < 1 || !/^[A-Za-z0-9_-]+\.[0-9a-z]+$/.test(raw))
    throw malformed();
  const text = raw.slice(0, dot);
  if (raw.slice(dot + 1) !== checksum(shape, text)) {
    throw ApiError.invalidQuery(
      'after: the cursor was made for another sort or filter (or was changed); ' +
        'keep sort and filters as they were, or start again without `after`.',
    );
  }
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (!Array.isArray(values) || values.length !== sort.length) throw malformed();
  return sort.map((key, index) => {
    const field = model.fieldsByName.get(key.field);
    const value: unknown = values[index];
    if (field === undefined || !['string', 'number', 'boolean'].includes(typeof value)) throw malformed();
    const parsed = parseFieldText(field, String(value));
    if (parsed === undefined) throw malformed();
    return parsed;
  });
}
