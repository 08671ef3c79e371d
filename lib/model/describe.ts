/**
 * Builds the frozen `ModelDescription` from what an adapter read off its ORM, applying the core's
 * rules (table naming, write protection, which fields a query may name) so that every adapter
 * gives the same result.
 */
import { ConfigurationError } from '../errors.js';
import { INT32_MAX, INT32_MIN } from '../schema/model-schemas.js';
import type {
  CollectionDescription,
  FieldDescription,
  ModelClass,
  ModelDescription,
  SortKey,
} from '../types.js';
import { checkedCollections } from './describe-collections.js';
import { explicitTableName, protectedFieldsOf } from './framework-model.js';
import { defaultTableName } from './table-name.js';

/** One field as an adapter sees it; `writable` and `primary` are derived here and may be omitted. */
export type FieldFacts = Omit<FieldDescription, 'writable' | 'primary' | 'fields'> & {
  /** `false` makes the field read-only; `true` (the default) cannot lift the core's rules. */
  readonly writable?: boolean;
  /** Ignored: the primary key is the one `ModelFacts.primaryKeys` names. */
  readonly primary?: boolean;
  /** For an `object` field: its own fields, by JSON name (nested objects allowed). */
  readonly fields?: readonly FieldFacts[];
};

/** What an adapter knows of a model before the core's rules are applied. */
export interface ModelFacts {
  /** The model class. */
  readonly model: ModelClass;
  /** The model's class name. */
  readonly name: string;
  /** The table the ORM maps to; when omitted, `__tablename__` or the plural snake_case rule. */
  readonly table?: string;
  /** Primary key property names; more than one is refused. */
  readonly primaryKeys: readonly string[];
  /** Fields as the ORM sees them. */
  readonly fields: readonly FieldFacts[];
  /**
   * The to-many relations the adapter serves (one-to-many, many-to-many), never among `fields`;
   * checked (names, kinds, `inverseField`, `writable`) and copied to `ModelDescription.collections`.
   */
  readonly collections?: readonly CollectionDescription[];
  /** The ORM never writes the model (MikroORM's `readonly: true`): it is served by its GET routes only. */
  readonly readOnly?: boolean;
  /** False when the ORM cannot create a record of the model itself (an inheritance root whose rows are all subclasses'): no POST route. */
  readonly creatable?: boolean;
  /** True when the ORM's serialization leaves null values out (MikroORM's `forceUndefined`): so do records. */
  readonly omitsNull?: boolean;
  /** The ORM runs the application's code on create (hooks, subscribers), which may fill hidden fields. */
  readonly createHooks?: boolean;
  /** The order the ORM gives the model's rows when a query names none (see `ModelDescription.defaultOrder`). */
  readonly defaultOrder?: readonly SortKey[];
}

/** The table name of a model: `__tablename__` wins, then the ORM's explicit name, then the rule. */
export function tableNameOf(model: ModelClass, name: string, ormTable?: string): string {
  return explicitTableName(model) ?? ormTable ?? defaultTableName(name);
}

/** Refuses shapes the rest of the core cannot serve, naming the property (`Model.address.city`). */
function checkShape(field: FieldFacts, where: string): void {
  if (field.type === 'object') {
    if (field.fields === undefined || field.fields.length === 0) {
      throw new ConfigurationError(
        `${where}: an object field needs its nested fields; the adapter gave none.`,
      );
    }
    const names = new Set<string>();
    for (const nested of field.fields) {
      // A dot would make the filter path `a.b.c` ambiguous.
      if (nested.name === '' || nested.name.includes('.')) {
        throw new ConfigurationError(
          `${where}: nested field name "${nested.name}" is empty or contains a dot.`,
        );
      }
      if (names.has(nested.name))
        throw new ConfigurationError(`${where}: nested field "${nested.name}" is given twice.`);
      names.add(nested.name);
    }
  } else if (field.fields !== undefined) {
    throw new ConfigurationError(
      `${where}: only an object field has nested fields (this one is ${field.type}).`,
    );
  }
  if (field.type === 'array' && field.itemType === undefined) {
    throw new ConfigurationError(`${where}: an array field needs its item type (string, integer or number).`);
  }
  if (field.type !== 'array' && field.itemType !== undefined) {
    throw new ConfigurationError(
      `${where}: only an array field has an item type (this one is ${field.type}).`,
    );
  }
  checkRange(field, where);
  checkDigits(field, where);
  checkFractionDigits(field, where);
}

/** An integer field's range: safe integers, in order (JSON numbers beyond 2^53 are not exact). */
function checkRange(field: FieldFacts, where: string): void {
  if (field.minimum === undefined && field.maximum === undefined) return;
  if (field.type !== 'integer') {
    throw new ConfigurationError(
      `${where}: only an integer field has a minimum or maximum (this one is ${field.type}).`,
    );
  }
  const bounds = [field.minimum, field.maximum].filter((bound) => bound !== undefined);
  if (
    !bounds.every((bound) => Number.isSafeInteger(bound)) ||
    (field.minimum ?? INT32_MIN) > (field.maximum ?? INT32_MAX)
  ) {
    throw new ConfigurationError(
      `${where}: minimum and maximum must be safe integers with minimum <= maximum (got ${field.minimum} and ${field.maximum}).`,
    );
  }
}

/** Digits belong to a decimal and are counts: non-negative safe integers. */
function checkDigits(field: FieldFacts, where: string): void {
  if (field.digits === undefined) return;
  if (field.type !== 'decimal') {
    throw new ConfigurationError(`${where}: only a decimal field has digits (this one is ${field.type}).`);
  }
  const { integer, scale, fraction } = field.digits;
  const counts = [integer, scale, fraction].filter((count) => count !== undefined);
  if (!counts.every((count) => Number.isSafeInteger(count) && count >= 0)) {
    throw new ConfigurationError(
      `${where}: the digits of a decimal must be non-negative integers (got ${JSON.stringify(field.digits)}).`,
    );
  }
}

/** Fraction digits belong to a timestamp or a time, and are a count. */
function checkFractionDigits(field: FieldFacts, where: string): void {
  const digits = field.fractionDigits;
  if (digits === undefined) return;
  if (field.type !== 'datetime' && field.type !== 'time')
    throw new ConfigurationError(
      `${where}: only a datetime or time field has fractionDigits (this one is ${field.type}).`,
    );
  if (!Number.isSafeInteger(digits) || digits < 0)
    throw new ConfigurationError(`${where}: fractionDigits must be a non-negative integer (got ${digits}).`);
}

/**
 * One field with the core's rules applied, frozen with its nested fields. A computed field is
 * never written nor required; an object or array is never named by a filter or sort itself (an
 * object's scalar fields are, by dotted path).
 */
function finishField(
  field: FieldFacts,
  where: string,
  primary: boolean,
  writable: boolean,
): FieldDescription {
  checkShape(field, where);
  const computed = field.computed === true || field.variant === true;
  const { fields: nested, ...rest } = field;
  const result: FieldDescription = {
    ...rest,
    primary,
    writable: writable && !computed && (field.writable ?? true),
    required: field.required && !computed,
    ...(field.type === 'object' || field.type === 'array' ? { queryable: false } : {}),
    ...(field.digits === undefined ? {} : { digits: Object.freeze({ ...field.digits }) }),
    ...(nested === undefined
      ? {}
      : {
          fields: Object.freeze(
            nested.map((inner) => finishField(inner, `${where}.${inner.name}`, false, true)),
          ),
        }),
  };
  return Object.freeze(result);
}

/**
 * Applies the core's rules and freezes the result. A primary key is writable only when the
 * database cannot produce it (natural keys given on create); protected fields never are.
 */
export function buildModelDescription(facts: ModelFacts): ModelDescription {
  if (facts.primaryKeys.length !== 1) {
    throw new ConfigurationError(
      facts.primaryKeys.length === 0
        ? `Model ${facts.name} has no primary key; every model served by koa-model-api needs exactly one.`
        : `Model ${facts.name} has a composite primary key (${facts.primaryKeys.join(', ')}); koa-model-api serves only models with a single-column primary key.`,
    );
  }
  const primaryKey = facts.primaryKeys[0] as string;
  const protectedFields = protectedFieldsOf(facts.model);
  const fields = facts.fields.map((field): FieldDescription => {
    const isKey = field.name === primaryKey;
    const writable =
      facts.readOnly !== true &&
      !protectedFields.has(field.name) &&
      !(field.property !== undefined && protectedFields.has(field.property)) &&
      (!isKey || (!field.generated && !field.hasDefault));
    return finishField(field, `${facts.name}.${field.name}`, isKey, writable);
  });
  const key = fields.find((field) => field.name === primaryKey);
  if (key === undefined) {
    throw new ConfigurationError(`Model ${facts.name}: primary key ${primaryKey} is not among its fields.`);
  }
  if (key.type === 'object' || key.type === 'array') {
    throw new ConfigurationError(
      `Model ${facts.name}: primary key ${primaryKey} is ${article(key.type)} ${key.type}; a key must be a scalar value.`,
    );
  }
  const table = tableNameOf(facts.model, facts.name, facts.table);
  const fieldsByName = new Map(fields.map((field) => [field.name, field]));
  const defaultOrder = checkedDefaultOrder(facts, fieldsByName);
  const collections = checkedCollections(facts.name, facts.collections, fieldsByName);
  return Object.freeze({
    name: facts.name,
    table,
    resource: table,
    primaryKey,
    fields: Object.freeze(fields),
    fieldsByName,
    model: facts.model,
    ...(collections === undefined ? {} : { collections }),
    ...(facts.readOnly === true ? { readOnly: true } : {}),
    ...(facts.creatable === false ? { creatable: false } : {}),
    ...(facts.omitsNull === true ? { omitsNull: true } : {}),
    ...(facts.createHooks === true ? { createHooks: true } : {}),
    ...(defaultOrder === undefined ? {} : { defaultOrder }),
  });
}

/**
 * The default order, frozen, once each key is known to name something lists can sort by: a scalar
 * field, a field of an embedded object, or one field of a many-to-one's target (whose fields the
 * adapter knows). Undefined when there is none.
 */
function checkedDefaultOrder(
  facts: ModelFacts,
  fields: ReadonlyMap<string, FieldDescription>,
): readonly SortKey[] | undefined {
  const order = facts.defaultOrder;
  if (order === undefined || order.length === 0) return undefined;
  const seen = new Set<string>();
  for (const key of order) {
    const problem = defaultKeyProblem(key, fields);
    const named = seen.has(key.field) ? 'is named twice' : problem;
    if (named !== undefined)
      throw new ConfigurationError(`Model ${facts.name}: its default order's key "${key.field}" ${named}.`);
    seen.add(key.field);
  }
  return Object.freeze(order.map((key) => Object.freeze({ ...key })));
}

/** What makes a default-order key unusable, or undefined when lists can sort by it. */
function defaultKeyProblem(key: SortKey, fields: ReadonlyMap<string, FieldDescription>): string | undefined {
  if (key.direction !== 'asc' && key.direction !== 'desc') return `has the direction "${key.direction}"`;
  if (key.nulls !== undefined && key.nulls !== 'first' && key.nulls !== 'last')
    return `puts NULLs "${key.nulls}"`;
  const [head = '', ...rest] = key.field.split('.');
  let field = fields.get(key.field) ?? fields.get(head);
  if (field === undefined) return 'names no field';
  if (fields.has(key.field) || rest.length === 0) {
    return field.type === 'object' || field.type === 'array'
      ? `is ${article(field.type)} ${field.type}`
      : undefined;
  }
  // One step into a relation's target, whose fields the adapter checked; any depth into objects.
  if (field.relation !== undefined) return rest.length === 1 ? undefined : 'goes further than one relation';
  for (const name of rest) {
    field = field?.type === 'object' ? field.fields?.find((inner) => inner.name === name) : undefined;
    if (field === undefined) return 'names no field';
  }
  return field?.type === 'object' || field?.type === 'array'
    ? `is ${article(field.type)} ${field.type}`
    : undefined;
}

/** `an` before `object` and `array`, the only kinds the key check names. */
function article(word: string): string {
  return /^[aeiou]/.test(word) ? 'an' : 'a';
}
