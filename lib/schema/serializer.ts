/**
 * Response serialization, compiled once per model: picks the readable fields of a raw row in
 * declaration order and puts each value in its JSON form. Hidden fields never pass.
 */
import type { FieldDescription, ModelDescription, RawRecord } from '../types.js';

/** A compiled serializer: raw row in, response object out. */
export type Serializer = (row: Readonly<RawRecord>) => Record<string, unknown>;

/** `YYYY-MM-DD` of a Date, in UTC. */
function isoDate(value: Date): string {
  return value.toISOString().slice(0, 10);
}

/** The JSON form of one value of the field. */
function converterFor(field: FieldDescription): (value: unknown) => unknown {
  switch (field.type) {
    case 'datetime':
      return (value) => (value instanceof Date ? value.toISOString() : value);
    case 'date':
      return (value) => (value instanceof Date ? isoDate(value) : value);
    case 'bigint':
    case 'decimal':
      return (value) => (typeof value === 'bigint' || typeof value === 'number' ? String(value) : value);
    case 'boolean':
      return (value) => (typeof value === 'number' ? value !== 0 : value);
    default:
      return (value) => value;
  }
}

/** The readable fields of a model, optionally narrowed to a selection (already validated). */
export function readableFields(model: ModelDescription, selection?: readonly string[]): FieldDescription[] {
  const readable = model.fields.filter((field) => !field.hidden);
  if (selection === undefined) return readable;
  const wanted = new Set(selection);
  return readable.filter((field) => wanted.has(field.name));
}

/** Compiles a serializer for a model, or for a selection of its readable fields. */
export function compileSerializer(model: ModelDescription, selection?: readonly string[]): Serializer {
  const plan = readableFields(model, selection).map((field) => ({
    name: field.name,
    convert: converterFor(field),
  }));
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const { name, convert } of plan) {
      const value = row[name];
      out[name] = value === undefined || value === null ? null : convert(value);
    }
    return out;
  };
}
