/**
 * Coercion of text from the URL (query values and `{id}`) to a field's JSON form, with a 400
 * (or `undefined` for ids) for text that is not a value of that field.
 */
import { ApiError } from '../errors.js';
import { INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN } from '../schema/model-schemas.js';
import type { FieldDescription, FieldType, RecordId } from '../types.js';

const PATTERNS: Partial<Record<FieldType, RegExp>> = {
  // Up to the 16 digits of a safe integer; the field's range decides the rest.
  integer: /^-?\d{1,16}$/,
  bigint: /^-?\d{1,19}$/,
  decimal: /^-?\d{1,30}(\.\d{1,30})?$/,
  number: /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  // A day alone is its UTC midnight; a time of day needs its offset (`Z`, `+02:00`): without one it
  // would be read in the server's time zone, and the same query would find other rows elsewhere.
  datetime: /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2}))?$/,
  // As TIME_PATTERN: the end of the day, 24:00:00, is a time PostgreSQL stores.
  time: /^(([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?|24:00(:00(\.0+)?)?)$/,
};

/**
 * Whether `YYYY-MM-DD` names a day of the calendar: `Date.parse` rolls `2024-02-30` over to March,
 * which each database would then read its own way (PostgreSQL refuses it, the others compare text).
 */
function isCalendarDate(day: string): boolean {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  const parsed = new Date(0);
  parsed.setUTCFullYear(year, month - 1, date);
  return (
    parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === date
  );
}

/** The value of `raw` for this field, or `undefined` when it is not one. */
export function parseFieldText(field: FieldDescription, raw: string): unknown {
  if (raw.includes('\u0000')) return undefined;
  const pattern = PATTERNS[field.type];
  if (pattern !== undefined && !pattern.test(raw)) return undefined;
  switch (field.type) {
    case 'integer': {
      // The field's range, as in the body schema: a number its column cannot hold is no value of it.
      const value = Number(raw);
      return value >= (field.minimum ?? INT32_MIN) && value <= (field.maximum ?? INT32_MAX)
        ? value
        : undefined;
    }
    case 'bigint': {
      const value = BigInt(raw);
      return value >= INT64_MIN && value <= INT64_MAX ? value.toString() : undefined;
    }
    case 'number': {
      const value = Number(raw);
      return Number.isFinite(value) ? value : undefined;
    }
    case 'boolean':
      return raw === 'true' ? true : raw === 'false' ? false : undefined;
    case 'date':
    case 'datetime':
      return Number.isNaN(Date.parse(raw)) || !isCalendarDate(raw.slice(0, 10)) ? undefined : raw;
    case 'enum': {
      const match = field.enumValues?.find((candidate) => String(candidate) === raw);
      return match;
    }
    case 'string':
    case 'text':
      return field.maxLength !== undefined && raw.length > field.maxLength * 4 ? undefined : raw;
    case 'object':
    case 'array':
      // Not a value one query parameter can carry: filters name an object's scalar fields instead.
      return undefined;
    default:
      return raw;
  }
}

/** Coerces a query value; a 400 naming the parameter when it is not a value of the field. */
export function coerceQueryValue(field: FieldDescription, raw: string, parameter: string): unknown {
  const value = parseFieldText(field, raw);
  if (value === undefined) {
    throw ApiError.invalidQuery(`${parameter}: "${raw.slice(0, 100)}" is not a valid ${field.type} value.`);
  }
  return value;
}

/** Coerces a path `{id}`; `undefined` means no record can have it (the route answers 404). */
export function coerceId(field: FieldDescription, raw: string): RecordId | undefined {
  const value = parseFieldText(field, raw);
  if (value === undefined) return undefined;
  return typeof value === 'number' ? value : String(value);
}
