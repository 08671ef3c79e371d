/**
 * A primary key as a map key, so that the same record is found whatever JS type a key came in:
 * a number, a bigint or a string of the same digits agree, and a UUID agrees in any case.
 */
import type { FieldType } from '../types.js';

/** The map key of a record's primary key value (`type` the key's field type, when known). */
export function recordKey(value: unknown, type?: FieldType): string {
  // An object key (an adapter's composite form) by its JSON, not as "[object Object]".
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return type === 'uuid' ? String(value).toLowerCase() : String(value);
}
