/**
 * Validation of create and update bodies, compiled once per router from the model description:
 * fields a client may not write are dropped (or, with `strict`, named in a 422) at the top level
 * and inside embedded objects alike, the rest is checked by ajv with one error entry per field
 * (nested ones by dotted path, `address.city`).
 */
import type { ErrorObject } from 'ajv';
import { ApiError, type FieldError } from '../errors.js';
import type { FieldDescription, ModelDescription, RawRecord } from '../types.js';
import { ajv } from './ajv.js';
import { exceedsKept, inexactKeyMessage, keptDigits } from './exact-keys.js';
import type { JsonSchema } from './json-schema.js';
import {
  createSchema,
  decimalDigitsRule,
  NON_NULL_JSON_TYPES,
  UNADDRESSABLE_KEYS,
  updateSchema,
  writableNestedFields,
} from './model-schemas.js';

/** Options of `compileWriteValidator`. */
export interface WriteValidatorOptions {
  readonly mode: 'create' | 'update';
  /** Refuse non-writable and unknown fields with 422 instead of dropping them. */
  readonly strict: boolean;
  /** Fields this router never lets a client write, on top of the model's own rules. */
  readonly readOnlyFields?: ReadonlySet<string>;
  /** Write-only input fields added by plugins (e.g. `password`). */
  readonly extraFields?: Readonly<Record<string, JsonSchema>>;
  /** Extra fields a create must include. */
  readonly extraRequired?: readonly string[];
}

/** Turns one ajv error into the field it concerns and a short message. */
function toFieldError(error: ErrorObject): FieldError {
  const base = error.instancePath.replace(/^\//, '').replaceAll('/', '.');
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty?: string }).missingProperty ?? '');
    return { path: base === '' ? missing : `${base}.${missing}`, message: 'is required' };
  }
  if (error.keyword === 'enum') {
    const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues ?? [];
    return { path: base, message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  if (error.keyword === 'type' && isNonNullJson((error.params as { type?: unknown }).type))
    return { path: base, message: 'must not be null' };
  return { path: base, message: error.message ?? 'is invalid' };
}

/** Whether a `type` error's types are those of a JSON field that may not be null (only null fails them). */
function isNonNullJson(types: unknown): boolean {
  const list = Array.isArray(types) ? types : String(types ?? '').split(',');
  return (
    list.length === NON_NULL_JSON_TYPES.length && NON_NULL_JSON_TYPES.every((type) => list.includes(type))
  );
}

/** Keeps the first error of each field, so a response has one entry per field. */
function onePerField(errors: readonly FieldError[]): FieldError[] {
  const seen = new Map<string, FieldError>();
  for (const error of errors) if (!seen.has(error.path)) seen.set(error.path, error);
  return [...seen.values()];
}

/**
 * Which keys of one object level a client may send. `nested` holds the plan of each embedded
 * object among them; `known` the names that exist but may not be written (for the strict message).
 */
interface KeyPlan {
  /** Where this level is, for messages: `Person` or `Person.address`. */
  readonly label: string;
  /** Accepted keys; the value is the plan of an embedded object, or `null` for any other value. */
  readonly accepted: ReadonlyMap<string, KeyPlan | null>;
  /** Every field name of this level, writable or not. */
  readonly known: ReadonlySet<string>;
}

/** The plan of an embedded object's keys, built once. */
function nestedPlan(field: FieldDescription, label: string, mode: 'create' | 'update'): KeyPlan {
  const accepted = new Map<string, KeyPlan | null>();
  for (const inner of writableNestedFields(field, mode)) {
    accepted.set(
      inner.name,
      inner.type === 'object' ? nestedPlan(inner, `${label}.${inner.name}`, mode) : null,
    );
  }
  return { label, accepted, known: new Set((field.fields ?? []).map((inner) => inner.name)) };
}

/** Whether a value is a JSON object (the only value whose keys are checked; others go to ajv). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy of one object level with only the accepted keys (recursing into embedded objects);
 * with `strict`, each refused key is added to `refused` by its dotted path.
 */
function keepAccepted(
  input: Record<string, unknown>,
  plan: KeyPlan,
  strict: boolean,
  prefix: string,
  refused: FieldError[],
): RawRecord {
  const clean: RawRecord = {};
  for (const key of Object.keys(input)) {
    // One lookup per key: `undefined` is refused, `null` a plain value, a plan an embedded object.
    const inner = plan.accepted.get(key);
    if (inner !== undefined) {
      const value = input[key];
      clean[key] =
        inner !== null && isPlainObject(value)
          ? keepAccepted(value, inner, strict, `${prefix}${key}.`, refused)
          : value;
    } else if (strict) {
      refused.push({
        path: `${prefix}${key}`,
        message: plan.known.has(key) ? 'is not writable' : `is not a field of ${plan.label}`,
      });
    }
  }
  return clean;
}

// In a `u` regular expression a surrogate pair is one code point: only a lone half is in `Cs`.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The fields whose value holds what JSON parses but no column keeps: a string with a lone UTF-16
 * surrogate (`"\ud800"`; each database would store U+FFFD, PostgreSQL's jsonb refuses it), a NUL
 * inside a JSON value or an array (PostgreSQL refuses it; refused on every database alike), or a
 * number beyond a double (`1e400` parses to Infinity, which JSON writes back as null). Iterative,
 * so that a deeply nested JSON value cannot exhaust the stack.
 */
function unstorableValues(body: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  for (const [field, value] of Object.entries(body)) {
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const next = pending.pop();
      const message =
        typeof next === 'string' && LONE_SURROGATE.test(next)
          ? 'must be well-formed Unicode text (a lone surrogate)'
          : typeof next === 'string' && next.includes('\u0000')
            ? 'must not hold the character U+0000, which PostgreSQL cannot store'
            : typeof next === 'number' && !Number.isFinite(next)
              ? 'must be a finite number'
              : undefined;
      if (message !== undefined) {
        errors.push({ path: field, message });
        break;
      }
      if (Array.isArray(next)) {
        // One push per item: spreading a 500 000-item array would overflow the call's arguments.
        for (const item of next) pending.push(item);
      } else if (next !== null && typeof next === 'object') {
        // An object's keys are stored too (a JSON column): each is checked as a string.
        for (const [key, item] of Object.entries(next)) pending.push(key, item);
      }
    }
  }
  return errors;
}

/**
 * A client-chosen key no URL reaches (`UNADDRESSABLE_KEYS`): the create schema refuses it too, and
 * this says why.
 */
function unaddressableKey(model: ModelDescription, clean: RawRecord): FieldError[] {
  const key = clean[model.primaryKey];
  return typeof key === 'string' && UNADDRESSABLE_KEYS.includes(key)
    ? [{ path: model.primaryKey, message: 'A key of "", "." or ".." cannot be addressed in a URL.' }]
    : [];
}

/** A create's key with more digits after the point than its column keeps (exact-keys.ts). */
function inexactKey(model: ModelDescription, clean: RawRecord): FieldError[] {
  const key = clean[model.primaryKey];
  const field = model.fieldsByName.get(model.primaryKey);
  const kept = field === undefined ? undefined : keptDigits(field);
  if (field === undefined || kept === undefined || typeof key !== 'string' || !exceedsKept(key, kept))
    return [];
  return [{ path: model.primaryKey, message: inexactKeyMessage(field, kept) }];
}

/**
 * The required nested fields an update's embedded object leaves out where no object is stored (it
 * would be created without them): an object merges into a stored one, field by field and level by
 * level, as MikroORM's `em.assign` merges embeddables, but a new one must be whole.
 */
function missingNestedFields(
  fields: readonly FieldDescription[],
  given: Readonly<Record<string, unknown>>,
  stored: unknown,
  prefix: string,
  errors: FieldError[],
): void {
  for (const field of fields) {
    if (field.type !== 'object') continue;
    const value = given[field.name];
    if (!isPlainObject(value)) continue;
    const current = isPlainObject(stored) ? stored[field.name] : undefined;
    // An `onUpdate` field of a new object is the ORM's to set, as in a stored one.
    const nested = writableNestedFields(field, 'update');
    const path = `${prefix}${field.name}`;
    if (!isPlainObject(current)) {
      for (const inner of nested)
        if (inner.required && value[inner.name] === undefined)
          errors.push({ path: `${path}.${inner.name}`, message: 'is required' });
    }
    missingNestedFields(nested, value, current, `${path}.`, errors);
  }
}

/**
 * A compiled write validator: a clean copy of the writable input, or a 422 `ApiError`. An update
 * is given the stored record, which an embedded object in the body merges into.
 */
export type WriteValidator = (body: unknown, stored?: Readonly<RawRecord>) => RawRecord;

/** The field at an error's path (`price`, `address.price`), through embedded objects. */
function fieldAt(model: ModelDescription, path: string): FieldDescription | undefined {
  const [first, ...rest] = path.split('.');
  let field = model.fieldsByName.get(first as string);
  for (const name of rest) field = field?.fields?.find((inner) => inner.name === name);
  return field;
}

/** The error of a decimal too long for its column, in words rather than as its pattern. */
function digitsError(model: ModelDescription, error: FieldError): FieldError {
  const digits = fieldAt(model, error.path)?.digits;
  return digits === undefined
    ? error
    : { path: error.path, message: `must be a decimal of ${decimalDigitsRule(digits)}` };
}

/** Compiles a validator; calling it returns a clean copy of the writable input or throws a 422 `ApiError`. */
export function compileWriteValidator(
  model: ModelDescription,
  options: WriteValidatorOptions,
): WriteValidator {
  const schemaOptions = {
    ...(options.readOnlyFields === undefined ? {} : { readOnlyFields: options.readOnlyFields }),
    ...(options.extraFields === undefined ? {} : { extraFields: options.extraFields }),
    ...(options.extraRequired === undefined ? {} : { extraRequired: options.extraRequired }),
  };
  const schema =
    options.mode === 'create' ? createSchema(model, schemaOptions) : updateSchema(model, schemaOptions);
  const accepted = new Map<string, KeyPlan | null>();
  for (const name of Object.keys(schema.properties ?? {})) {
    const field = model.fieldsByName.get(name);
    // An extra (plugin) field wins over a model field of the same name: its value is not the model's.
    const isModelObject = field?.type === 'object' && options.extraFields?.[name] === undefined;
    accepted.set(name, isModelObject ? nestedPlan(field, `${model.name}.${name}`, options.mode) : null);
  }
  const known = new Set([
    ...model.fieldsByName.keys(),
    ...(model.collections ?? []).map((collection) => collection.name),
  ]);
  const plan: KeyPlan = { label: model.name, accepted, known };
  const validate = ajv.compile(schema);

  const objects = model.fields.filter((field) => field.type === 'object' && accepted.get(field.name) != null);
  return (body: unknown, stored?: Readonly<RawRecord>): RawRecord => {
    if (!isPlainObject(body)) {
      throw ApiError.validation([{ path: '', message: 'must be a JSON object' }]);
    }
    const refused: FieldError[] = [];
    const clean = keepAccepted(body, plan, options.strict, '', refused);
    const errors = validate(clean)
      ? []
      : (validate.errors ?? []).map((error) =>
          error.keyword === 'pattern' || error.keyword === 'not'
            ? digitsError(model, toFieldError(error))
            : toFieldError(error),
        );
    // A create's schema requires the nested fields itself; an update's only where nothing is stored.
    if (options.mode === 'update' && objects.length > 0)
      missingNestedFields(objects, clean, stored, '', errors);
    const all = onePerField([
      ...refused,
      // Before ajv's `minLength`/`not` of the key: its message says why.
      ...unaddressableKey(model, clean),
      ...inexactKey(model, clean),
      ...errors,
      ...unstorableValues(clean),
    ]);
    if (all.length > 0) throw ApiError.validation(all);
    return clean;
  };
}
