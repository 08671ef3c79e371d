/**
 * JSON Schemas (2020-12) derived from a model description: one per field value, and the read,
 * create and update shapes of a record. Validation and the OpenAPI document both use them, so
 * what is documented is what is enforced.
 */
import { ConfigurationError } from '../errors.js';
import type { CollectionDescription, DecimalDigits, FieldDescription, ModelDescription } from '../types.js';
import { keptDigits, keptFraction, keptRule, keyFractionPattern } from './exact-keys.js';
import type { JsonSchema } from './json-schema.js';

/** Options of the write schemas: the router's own rules on top of the model's. */
export interface WriteSchemaOptions {
  /** Fields this router never lets a client write (e.g. the ownership field of a secured router). */
  readonly readOnlyFields?: ReadonlySet<string>;
  /** Input-only fields added by plugins (e.g. `password`); they win over a model field of the same name. */
  readonly extraFields?: Readonly<Record<string, JsonSchema>>;
  /** Extra fields a create must include; each must be a writable or extra field. */
  readonly extraRequired?: readonly string[];
}

/** Lower bound of a 32-bit signed integer column, the common `integer` of SQL databases (the default range). */
export const INT32_MIN = -2147483648;
/** Upper bound of a 32-bit signed integer column. */
export const INT32_MAX = 2147483647;
/** The smallest value of a signed 64-bit column (`bigint`), the range of bigint fields. */
export const INT64_MIN = -(2n ** 63n);
/** The largest value of a signed 64-bit column. */
export const INT64_MAX = 2n ** 63n - 1n;

/**
 * Text may hold any character but NUL: PostgreSQL refuses it in text columns and C clients of
 * other databases truncate at it. A negated class stays linear on long strings.
 */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';
/** A base-10 integer of any size, sent as a string so no JSON parser loses precision. */
export const BIGINT_PATTERN = '^-?[0-9]+$';
/** A base-10 decimal, sent as a string so no JSON parser rounds it. */
export const DECIMAL_PATTERN = '^-?[0-9]+(\\.[0-9]+)?$';
/**
 * `HH:MM`, `HH:MM:SS` or `HH:MM:SS.fraction`, 24-hour clock, no time zone (SQL `time`); and the end
 * of the day, `24:00:00`, which PostgreSQL stores (and rounds `23:59:59.5` to) so a client can send
 * back what it read.
 */
export const TIME_PATTERN = '^(([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]+)?)?|24:00(:00(\\.0+)?)?)$';

/**
 * Where a value schema is used: a response (`read`), a create body (`create`, defaults shown) or an
 * update body (`update`). It matters for object fields, whose nested fields differ per place.
 */
type SchemaMode = 'read' | 'create' | 'update';

/**
 * The types of a JSON field that may not be null: any JSON value but null, which its column cannot
 * hold (MikroORM refuses it, and a create would store the default in its place).
 */
export const NON_NULL_JSON_TYPES: readonly string[] = ['object', 'array', 'string', 'number', 'boolean'];

/** Item schemas of `array` fields: the same bounds as a scalar field of that kind. */
const ITEM_SCHEMAS: Readonly<Record<NonNullable<FieldDescription['itemType']>, JsonSchema>> = {
  string: { type: 'string', pattern: NO_NUL_PATTERN },
  integer: { type: 'integer', minimum: INT32_MIN, maximum: INT32_MAX },
  number: { type: 'number' },
};

/**
 * Keys no URL reaches: clients resolve `/codes/.` to `/codes/` and `/codes/..` to `/` before
 * sending (RFC 3986 dot segments), and `/codes/` is the collection. A create refuses them as a
 * client-chosen key.
 */
export const UNADDRESSABLE_KEYS: readonly string[] = ['', '.', '..'];

/**
 * The decimals a column of these digits takes: at most `integer` digits before the point (leading
 * zeros aside) and, where the database reads no more, at most `fraction` after it.
 */
function decimalPattern(digits: DecimalDigits): string {
  // Zeros, or the significant digits after them: never two ways to read one zero, so that the
  // match stays linear on a megabyte of digits.
  const rest = digits.integer === 1 ? '' : `[0-9]{0,${digits.integer - 1}}`;
  const integer = digits.integer === 0 ? '0+' : `(0+|0*[1-9]${rest})`;
  const fraction = digits.fraction === undefined ? '[0-9]+' : `[0-9]{1,${digits.fraction}}`;
  return `^-?${integer}(\\.${fraction})?$`;
}

/**
 * The decimals that fit `decimalPattern` but not the column once rounded to its scale: all nines
 * before the point and a fraction that rounds up (`9999.995` in `numeric(6, 2)` is `10000.00`).
 */
function carryPattern(digits: DecimalDigits): string | undefined {
  if (digits.scale === undefined) return undefined;
  const nines = (count: number) => (count === 0 ? '' : `9{${count}}`);
  return `^-?0*${nines(digits.integer)}\\.${nines(digits.scale)}[5-9]`;
}

/** What a decimal column of these digits takes, in words: `at most 4 digits before the point…`. */
export function decimalDigitsRule(digits: DecimalDigits): string {
  const before =
    digits.integer === 0
      ? 'no digit but 0 before the point'
      : `at most ${digits.integer} ${digits.integer === 1 ? 'digit' : 'digits'} before the point`;
  const rounded =
    digits.scale === undefined
      ? ''
      : digits.scale === 0
        ? ', once rounded to a whole number'
        : `, once rounded to ${digits.scale} ${digits.scale === 1 ? 'place' : 'places'}`;
  const after = digits.fraction === undefined ? '' : `, and at most ${digits.fraction} after it`;
  return `${before}${rounded}${after}, as its column holds`;
}

/** A decimal's schema in a write body: the digits its column holds, when the database refuses more. */
function decimalSchema(digits: DecimalDigits | undefined): JsonSchema {
  const schema: JsonSchema = {
    type: 'string',
    pattern: digits === undefined ? DECIMAL_PATTERN : decimalPattern(digits),
    description: 'An exact decimal, written as a string.',
  };
  if (digits === undefined) return schema;
  const carry = carryPattern(digits);
  schema.description = `An exact decimal, written as a string, of ${decimalDigitsRule(digits)}.`;
  // `not` rather than a lookahead, which regular expressions outside JavaScript often lack.
  if (carry !== undefined) schema.not = { type: 'string', pattern: carry };
  return schema;
}

/** The schema of a value of the field's kind, before nullability and defaults. */
function kindSchema(field: FieldDescription, mode: SchemaMode, body: boolean): JsonSchema {
  switch (field.type) {
    case 'string':
    case 'text':
      return {
        type: 'string',
        pattern: NO_NUL_PATTERN,
        ...(field.maxLength === undefined ? {} : { maxLength: field.maxLength }),
      };
    case 'uuid':
      return { type: 'string', format: 'uuid' };
    case 'integer':
      // The column's own range when the adapter knows it (an unsigned or a small integer column).
      return { type: 'integer', minimum: field.minimum ?? INT32_MIN, maximum: field.maximum ?? INT32_MAX };
    case 'bigint':
      return {
        type: 'string',
        pattern: BIGINT_PATTERN,
        description: 'A 64-bit integer, written as a string.',
      };
    case 'number':
      return { type: 'number' };
    case 'decimal':
      // Only a write body is held to the column: a response shows what is stored, a filter may
      // compare with any decimal.
      return decimalSchema(body ? field.digits : undefined);
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', format: 'date' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'time':
      return { type: 'string', pattern: TIME_PATTERN };
    case 'json':
      return {};
    case 'enum':
      return enumSchema(field.enumValues ?? []);
    case 'object':
      return mode === 'read'
        ? readObjectSchema(field.fields ?? [])
        : writeObjectSchema(field.fields ?? [], mode, body);
    case 'array':
      // An array of an enum (`@Enum({ items, array: true })`) takes the enum's values only.
      return {
        type: 'array',
        items:
          field.enumValues === undefined
            ? { ...ITEM_SCHEMAS[field.itemType ?? 'string'] }
            : enumSchema(field.enumValues),
      };
  }
}

/** `enum` plus a `type` when the values share one, which code generators and Swagger UI use. */
function enumSchema(values: readonly (string | number)[]): JsonSchema {
  const schema: JsonSchema = { enum: [...values] };
  if (values.length === 0) return schema;
  if (values.every((value) => typeof value === 'string')) schema.type = 'string';
  else if (values.every((value) => Number.isInteger(value))) schema.type = 'integer';
  else if (values.every((value) => typeof value === 'number')) schema.type = 'number';
  return schema;
}

/** Whether a value survives a JSON round trip unchanged (no Date, no function, no class instance). */
function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value as Record<string, unknown>).every(isJsonValue);
  }
  return false;
}

/** Adds `null` to a schema's `type` (or `enum`); a schema without either already allows null. */
function withNull(schema: JsonSchema): JsonSchema {
  const result: JsonSchema = { ...schema };
  if (result.enum !== undefined && !result.enum.includes(null)) result.enum = [...result.enum, null];
  if (typeof result.type === 'string') result.type = [result.type, 'null'];
  return result;
}

/** What a lazy field's schema says, so that a reader knows why it may be missing. */
const LAZY_NOTE = 'Sent only when the request names it in `fields=` (a lazy field).';

/**
 * The value schema of a field in one place: nullability, relation note, default, read-only marks.
 * `body`: the rules only a write body is held to (the digits of a decimal column, an addressable
 * key), which a value in a query or a path is not.
 */
function valueSchema(field: FieldDescription, mode: SchemaMode, body = mode !== 'read'): JsonSchema {
  let schema = kindSchema(field, mode, body);
  if (body && mode === 'create' && field.primary) schema = addressableKey(field, schema);
  if (field.nullable) schema = withNull(schema);
  else if (field.type === 'json') schema = { ...schema, type: [...NON_NULL_JSON_TYPES] };
  if (field.relation !== undefined) {
    schema.description = `Primary key (${field.relation.targetKey}) of the referenced ${field.relation.target}.`;
  }
  // In a response every field is present, and in an update a validator that applied defaults
  // would reset fields the client left out: only create bodies show defaults.
  if (mode === 'create' && field.default !== undefined && isJsonValue(field.default)) {
    schema.default = field.default;
  }
  if (mode === 'create' && field.setOnUpdate === true) {
    schema.description =
      schema.description === undefined ? ON_UPDATE_NOTE : `${schema.description} ${ON_UPDATE_NOTE}`;
  }
  if (mode === 'read') {
    if (field.computed === true || field.variant === true) schema.readOnly = true;
    if (field.lazy === true) {
      schema.description =
        schema.description === undefined ? LAZY_NOTE : `${schema.description} ${LAZY_NOTE}`;
    }
  }
  return schema;
}

/**
 * JSON Schema of one field's value as a create body takes it (nullable → type includes 'null',
 * enum incl. null), less the rules of its column and of a new key: the value of a query or a path.
 */
export function fieldValueSchema(field: FieldDescription): JsonSchema {
  return valueSchema(field, 'create', false);
}

/**
 * A client-chosen key's schema without the keys no URL reaches (`UNADDRESSABLE_KEYS`) and those its
 * column would store as another key (exact-keys.ts).
 */
function addressableKey(field: FieldDescription, schema: JsonSchema): JsonSchema {
  const kept = keptDigits(field);
  if (kept !== undefined) return exactKey(field, schema, kept);
  if (schema.enum !== undefined) {
    return { ...schema, enum: schema.enum.filter((value) => !UNADDRESSABLE_KEYS.includes(value as string)) };
  }
  if (field.type !== 'string' && field.type !== 'text') return schema;
  return { ...schema, minLength: 1, not: { enum: UNADDRESSABLE_KEYS.filter((key) => key !== '') } };
}

/** A timestamp, time or decimal key's schema limited to the digits after the point its column keeps. */
function exactKey(field: FieldDescription, schema: JsonSchema, kept: number): JsonSchema {
  const note = `A key: its column keeps ${keptRule(field, kept)}, and a key with more is refused.`;
  const description = schema.description === undefined ? note : `${schema.description} ${note}`;
  switch (field.type) {
    case 'datetime':
      return { ...schema, pattern: keyFractionPattern(kept), description };
    case 'time':
      return {
        ...schema,
        pattern: TIME_PATTERN.replace('(\\.[0-9]+)?', () => keptFraction(kept)),
        description,
      };
    default: {
      const digits = field.digits;
      if (digits === undefined) return schema;
      // The fraction of `decimalPattern`, kept digits then zeros.
      const pattern = decimalPattern(digits).replace(
        digits.fraction === undefined ? '(\\.[0-9]+)?' : `(\\.[0-9]{1,${digits.fraction}})?`,
        () => keptFraction(kept, digits.fraction),
      );
      return { ...schema, pattern, description };
    }
  }
}

/** An object schema that refuses unknown keys; `required` only when non-empty. */
function objectSchema(properties: Record<string, JsonSchema>, required: readonly string[]): JsonSchema {
  return {
    type: 'object',
    properties,
    ...(required.length === 0 ? {} : { required: [...required] }),
    additionalProperties: false,
  };
}

/**
 * The response schema of an embedded object. Its value is the adapter's JSON form passed through,
 * which (like MikroORM's serializer) may leave out a nested value that is null: only non-nullable
 * nested fields are required.
 */
function readObjectSchema(nested: readonly FieldDescription[]): JsonSchema {
  const readable = nested.filter((field) => !field.hidden);
  const properties: Record<string, JsonSchema> = {};
  for (const field of readable) properties[field.name] = valueSchema(field, 'read');
  return objectSchema(
    properties,
    readable.filter((field) => !field.nullable && field.lazy !== true).map((field) => field.name),
  );
}

/** Whether a client may send the field: writable, not computed, and not hidden (a hidden field is never offered). */
function isClientWritable(field: FieldDescription): boolean {
  return field.writable && field.computed !== true && !field.hidden;
}

/** Whether an update body may give the field: not a key, and not one the ORM sets on every update. */
function isUpdateWritable(field: FieldDescription): boolean {
  return !field.primary && field.setOnUpdate !== true;
}

/** The nested fields of an object field that a write body (a create's by default) may give. */
export function writableNestedFields(
  field: FieldDescription,
  mode: 'create' | 'update' = 'create',
): FieldDescription[] {
  return (field.fields ?? []).filter(
    (inner) => isClientWritable(inner) && (mode === 'create' || isUpdateWritable(inner)),
  );
}

/** What a create body's value of an `onUpdate` field becomes, for readers of the document. */
const ON_UPDATE_NOTE = 'The server sets it on every update: update bodies do not take it.';

/** What an update's embedded object means, for readers of the document. */
const PARTIAL_OBJECT_NOTE =
  'May be partial: the fields left out keep their stored values. Where no object is stored yet, the fields a create requires must be given.';

/**
 * The write schema of an embedded object. A create writes the whole object, so its required nested
 * fields are required; an update merges it into the stored object (MikroORM's `em.assign` does), so
 * none is: where no object is stored, the validator requires them (`missingNestedFields`).
 */
function writeObjectSchema(
  nested: readonly FieldDescription[],
  mode: 'create' | 'update',
  body: boolean,
): JsonSchema {
  const writable = nested.filter(
    (field) => isClientWritable(field) && (mode === 'create' || field.setOnUpdate !== true),
  );
  const properties: Record<string, JsonSchema> = {};
  for (const field of writable) properties[field.name] = valueSchema(field, mode, body);
  if (mode === 'update') return { ...objectSchema(properties, []), description: PARTIAL_OBJECT_NOTE };
  return objectSchema(
    properties,
    writable.filter((field) => field.required).map((field) => field.name),
  );
}

/**
 * Response schema: readable (non-hidden) fields, additionalProperties false; every field is
 * required except lazy ones, which come only when a request names them in `fields=`, and, on a
 * model whose records leave null values out (`omitsNull`), nullable ones.
 */
export function readSchema(model: ModelDescription): JsonSchema {
  const readable = model.fields.filter((field) => !field.hidden);
  const properties: Record<string, JsonSchema> = {};
  for (const field of readable) properties[field.name] = valueSchema(field, 'read');
  const alwaysSent = (field: FieldDescription) =>
    field.lazy !== true && field.variant !== true && !(model.omitsNull === true && field.nullable);
  return objectSchema(
    properties,
    readable.filter(alwaysSent).map((field) => field.name),
  );
}

/**
 * The fields a client may send: writable, not computed, not hidden and not made read-only by the
 * router.
 */
function writableFields(model: ModelDescription, options: WriteSchemaOptions): FieldDescription[] {
  const readOnly = options.readOnlyFields ?? new Set<string>();
  return model.fields.filter((field) => isClientWritable(field) && !readOnly.has(field.name));
}

/** Most keys one write may give for a collection. */
export const MAX_COLLECTION_ITEMS = 1000;

/** The write schema of a writable collection: the target keys, the whole set at once. */
function collectionSchema(collection: CollectionDescription): JsonSchema {
  const key: FieldDescription = {
    name: collection.targetKey,
    type: collection.targetKeyType,
    nullable: false,
    required: false,
    hasDefault: false,
    unique: true,
    hidden: false,
    primary: true,
    generated: false,
    writable: true,
    ...(collection.targetKeyRange ?? {}),
  };
  return {
    type: 'array',
    items: kindSchema(key, 'create', false),
    maxItems: MAX_COLLECTION_ITEMS,
    description: `Keys (${collection.targetKey}) of ${collection.target} records, each once: the whole set, replacing the stored one.`,
  };
}

/** The collections a write body may set: writable ones the router does not make read-only. */
export function writableCollections(
  model: ModelDescription,
  readOnly: ReadonlySet<string> = new Set(),
): CollectionDescription[] {
  return (model.collections ?? []).filter(
    (collection) => collection.writable && !readOnly.has(collection.name),
  );
}

/** Properties of a write body: writable model fields, writable collections, then the extra fields. */
function writeProperties(
  model: ModelDescription,
  options: WriteSchemaOptions,
  mode: 'create' | 'update',
): Record<string, JsonSchema> {
  const properties: Record<string, JsonSchema> = {};
  for (const field of writableFields(model, options)) {
    // A natural key is given on create and never changed, and the ORM sets an `onUpdate` field on
    // every update: updates do not offer them.
    if (mode === 'update' && !isUpdateWritable(field)) continue;
    properties[field.name] = valueSchema(field, mode);
  }
  for (const collection of writableCollections(model, options.readOnlyFields)) {
    properties[collection.name] = collectionSchema(collection);
  }
  for (const [name, schema] of Object.entries(options.extraFields ?? {})) properties[name] = { ...schema };
  return properties;
}

/** Create body: writable fields not in readOnlyFields + extraFields; required = field.required && writable, plus extraRequired; additionalProperties false. */
export function createSchema(model: ModelDescription, options: WriteSchemaOptions = {}): JsonSchema {
  const properties = writeProperties(model, options, 'create');
  const required = writableFields(model, options)
    .filter((field) => field.required)
    .map((field) => field.name);
  for (const name of options.extraRequired ?? []) {
    if (!(name in properties)) {
      throw new ConfigurationError(
        `Model ${model.name}: the required input field "${name}" is neither a writable field nor an extra field.`,
      );
    }
    if (!required.includes(name)) required.push(name);
  }
  return objectSchema(properties, required);
}

/** Update body (PUT/PATCH partial): the create properties less the primary key, none required. */
export function updateSchema(model: ModelDescription, options: WriteSchemaOptions = {}): JsonSchema {
  return objectSchema(writeProperties(model, options, 'update'), []);
}
