/**
 * The stored form of each field type, chosen to be what a SQL adapter returns: `datetime` as a
 * `Date`, `date` as `'YYYY-MM-DD'`, `time` as `'HH:MM:SS'`, `bigint` and `decimal` as strings
 * (exact), `uuid` lower-case (PostgreSQL's output form), `json` as a deep copy.
 */
import type { FieldType } from '../../lib/types.js';

/** A value that does not fit its field; the message completes "must be …" style sentences. */
export class ValueProblem extends Error {
  override name = 'ValueProblem';
}

/** What `toStored` needs to know about a field. */
export interface ValueShape {
  readonly type: FieldType;
  readonly maxLength?: number;
  readonly enumValues?: readonly (string | number)[];
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INTEGER_TEXT = /^[-+]?\d+$/;
const DECIMAL_TEXT = /^[-+]?(\d+(\.\d*)?|\.\d+)$/;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_TEXT = /^([01]\d|2[0-3]):([0-5]\d)(:([0-5]\d)(\.\d{1,6})?)?$/;

function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 100) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return false;
    return Object.values(value).every((item) => isJsonValue(item, depth + 1));
  }
  return false;
}

function storedString(value: unknown, shape: ValueShape): string {
  if (typeof value !== 'string') throw new ValueProblem('must be a string');
  // Characters, not UTF-16 units: varchar(n) counts characters.
  if (shape.maxLength !== undefined && [...value].length > shape.maxLength) {
    throw new ValueProblem(`must be at most ${shape.maxLength} characters long`);
  }
  return value;
}

function storedDecimal(value: unknown): string {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && DECIMAL_TEXT.test(value)) return value.replace(/^\+/, '');
  throw new ValueProblem('must be a decimal number');
}

function storedBigint(value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  if (typeof value === 'string' && INTEGER_TEXT.test(value)) return BigInt(value).toString();
  throw new ValueProblem('must be an integer');
}

function storedDate(value: unknown): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new ValueProblem('must be a valid date');
    return value.toISOString().slice(0, 10);
  }
  const match = typeof value === 'string' ? DATE_TEXT.exec(value) : null;
  if (match === null) throw new ValueProblem('must be a date (YYYY-MM-DD)');
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  // setUTCFullYear, not Date.UTC: Date.UTC reads the years 0 to 99 as 1900 to 1999.
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new ValueProblem('must be an existing calendar date');
  }
  return value as string;
}

function storedDatetime(value: unknown): Date {
  const date =
    value instanceof Date
      ? new Date(value.getTime())
      : typeof value === 'string'
        ? new Date(value)
        : undefined;
  if (date === undefined || Number.isNaN(date.getTime()))
    throw new ValueProblem('must be a date-time (ISO 8601)');
  // A year past 9999 (an offset can carry 9999-12-31 into it) is served as `+010000-…`, no RFC
  // 3339 date-time, as the MikroORM adapter refuses it too.
  const year = date.getUTCFullYear();
  if (year < 0 || year > 9999) throw new ValueProblem('must be a date-time of the years 0 to 9999');
  return date;
}

function storedTime(value: unknown): string {
  const match = typeof value === 'string' ? TIME_TEXT.exec(value) : null;
  if (match === null) throw new ValueProblem('must be a time (HH:MM or HH:MM:SS)');
  return match[3] === undefined ? `${value as string}:00` : (value as string);
}

/**
 * Converts a value given by the core (already validated, but possibly a `Date`, a number for a
 * decimal…) to its stored form; throws `ValueProblem` when it does not fit. `null` is passed
 * through: nullability is a constraint, checked by the table.
 */
export function toStored(shape: ValueShape, value: unknown): unknown {
  if (value === null) return null;
  switch (shape.type) {
    case 'string':
    case 'text':
      return storedString(value, shape);
    case 'uuid':
      if (typeof value !== 'string' || !UUID.test(value)) throw new ValueProblem('must be a UUID');
      return value.toLowerCase();
    case 'enum':
      if (
        (typeof value !== 'string' && typeof value !== 'number') ||
        !(shape.enumValues ?? []).includes(value)
      ) {
        throw new ValueProblem(`must be one of ${(shape.enumValues ?? []).join(', ')}`);
      }
      return value;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value))
        throw new ValueProblem('must be an integer');
      return value;
    case 'bigint':
      return storedBigint(value);
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new ValueProblem('must be a number');
      return value;
    case 'decimal':
      return storedDecimal(value);
    case 'boolean':
      if (typeof value !== 'boolean') throw new ValueProblem('must be a boolean');
      return value;
    case 'date':
      return storedDate(value);
    case 'datetime':
      return storedDatetime(value);
    case 'time':
      return storedTime(value);
    case 'json':
    case 'object':
    case 'array':
      if (!isJsonValue(value)) throw new ValueProblem('must be a JSON value');
      return structuredClone(value);
  }
}

/**
 * The map key of a primary key value taken from a path (`RecordId`), or `undefined` when no row
 * can have it (e.g. `abc` for an integer key: a SQL adapter answers "not found", not an error).
 */
export function keyFromId(type: FieldType, id: unknown): string | number | undefined {
  if (type === 'integer' && typeof id === 'string' && INTEGER_TEXT.test(id))
    return keyFromId(type, Number(id));
  try {
    const key = toStored({ type }, id);
    return typeof key === 'string' || typeof key === 'number' ? key : undefined;
  } catch (error) {
    if (error instanceof ValueProblem) return undefined;
    throw error;
  }
}

/** A deep copy of a stored row, so that no caller can reach into the storage. */
export function copyRow<T extends Record<string, unknown>>(row: T): T {
  return structuredClone(row);
}
