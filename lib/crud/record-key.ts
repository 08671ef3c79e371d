/**
 * A primary key as a map key, so that the same record is found whatever JS type a key came in:
 * a number, a bigint or a string of the same digits agree, and a UUID agrees in any case.
 */
import type { FieldType } from '../types.js';

/** The map key of a record's primary key value (`type` the key's field type, when known). */
export function recordKey(value: unknown, type?: FieldType): string {
  return type === 'uuid' ? String(value).toLowerCase() : String(value);
}
