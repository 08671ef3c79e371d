/**
 * Response serialization, compiled once per model and field selection: picks the readable fields
 * of a raw row in declaration order and puts each value in its JSON form. Hidden fields never
 * pass; lazy fields pass only when a selection names them.
 */
import type { FieldDescription, ModelDescription, RawRecord } from '../types.js';

/** A compiled serializer: raw row in, response object out. */
export type Serializer = (row: Readonly<RawRecord>) => Record<string, unknown>;

/** The JSON form of one present (non-null) value. */
type Converter = (value: unknown) => unknown;

/** `YYYY-MM-DD` of a Date, in UTC. */
function isoDate(value: Date): string {
  return value.toISOString().slice(0, 10);
}

const identity: Converter = (value) => value;

/** The JSON form of one value of the field; `identity` when the value is already JSON. */
function converterFor(field: FieldDescription): Converter {
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
    case 'object':
      return objectConverter(field.fields ?? []);
    default:
      return identity;
  }
}

/**
 * An embedded object as the adapter gave it (its JSON form, with JSON names), with the nested
 * values that are not JSON yet (a Date, a bigint) converted like top-level ones and hidden nested
 * fields left out. When no nested field needs either, the object passes as it is, uncopied.
 */
function objectConverter(nested: readonly FieldDescription[]): Converter {
  const hidden = nested.filter((field) => field.hidden).map((field) => field.name);
  const steps = nested
    .filter((field) => !field.hidden)
    .map((field) => ({ name: field.name, convert: converterFor(field) }))
    .filter((step) => step.convert !== identity);
  if (hidden.length === 0 && steps.length === 0) return identity;
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
    const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    for (const name of hidden) delete out[name];
    for (const { name, convert } of steps) {
      const inner = out[name];
      if (inner !== undefined && inner !== null) out[name] = convert(inner);
    }
    return out;
  };
}

/**
 * The readable fields of a model, optionally narrowed to a selection (already validated). Without
 * a selection lazy fields are left out; a selection may name them.
 */
export function readableFields(model: ModelDescription, selection?: readonly string[]): FieldDescription[] {
  const readable = model.fields.filter((field) => !field.hidden);
  if (selection === undefined) return readable.filter((field) => field.lazy !== true);
  const wanted = new Set(selection);
  return readable.filter((field) => wanted.has(field.name));
}

/**
 * Compiles the serializer of a list of fields. A missing value is null, unless the model leaves
 * null values out (`omitsNull`) or the field is another subclass's (`variant`).
 */
function compileFields(fields: readonly FieldDescription[], omitsNull: boolean): Serializer {
  const plan = fields.map((field) => ({
    name: field.name,
    convert: converterFor(field),
    absentIfNull: omitsNull,
    absentIfMissing: omitsNull || field.variant === true,
  }));
  return (row) => {
    const out: Record<string, unknown> = {};
    for (const { name, convert, absentIfNull, absentIfMissing } of plan) {
      const value = row[name];
      if (value === undefined) {
        if (!absentIfMissing) out[name] = null;
      } else if (value === null) {
        if (!absentIfNull) out[name] = null;
      } else out[name] = convert(value);
    }
    return out;
  };
}

/** Most selections remembered per model; beyond it a selection is compiled per call (still correct). */
const MAX_CACHED_SELECTIONS = 64;
/** Serializers of field selections, per model, keyed by the selected names in declaration order. */
const selectionCache = new WeakMap<ModelDescription, Map<string, Serializer>>();

/**
 * Compiles a serializer for a model, or for a selection of its readable fields. A selection's
 * serializer is remembered per model, so a list request with `fields=` compiles nothing after the
 * first request of that selection (in whichever order it names the fields).
 */
export function compileSerializer(model: ModelDescription, selection?: readonly string[]): Serializer {
  const fields = readableFields(model, selection);
  const omitsNull = model.omitsNull === true;
  if (selection === undefined) return compileFields(fields, omitsNull);
  let cache = selectionCache.get(model);
  if (cache === undefined) {
    cache = new Map();
    selectionCache.set(model, cache);
  }
  const key = fields.map((field) => field.name).join(',');
  let serializer = cache.get(key);
  if (serializer === undefined) {
    serializer = compileFields(fields, omitsNull);
    if (cache.size < MAX_CACHED_SELECTIONS) cache.set(key, serializer);
  }
  return serializer;
}
