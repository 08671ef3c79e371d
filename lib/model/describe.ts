/**
 * Builds the frozen `ModelDescription` from what an adapter read off its ORM, applying the core's
 * rules (table naming, write protection) so that every adapter gives the same result.
 */
import { ConfigurationError } from '../errors.js';
import type { FieldDescription, ModelClass, ModelDescription } from '../types.js';
import { explicitTableName, protectedFieldsOf } from './framework-model.js';
import { defaultTableName } from './table-name.js';

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
  /** Fields as the ORM sees them; `writable` is derived here and may be omitted. */
  readonly fields: readonly (Omit<FieldDescription, 'writable'> & {
    /** `false` makes the field read-only; `true` (the default) cannot lift the core's rules. */
    readonly writable?: boolean;
  })[];
}

/** The table name of a model: `__tablename__` wins, then the ORM's explicit name, then the rule. */
export function tableNameOf(model: ModelClass, name: string, ormTable?: string): string {
  return explicitTableName(model) ?? ormTable ?? defaultTableName(name);
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
      !protectedFields.has(field.name) &&
      (field.writable ?? true) &&
      (!isKey || (!field.generated && !field.hasDefault));
    return Object.freeze({ ...field, primary: isKey, writable });
  });
  if (!fields.some((field) => field.name === primaryKey)) {
    throw new ConfigurationError(`Model ${facts.name}: primary key ${primaryKey} is not among its fields.`);
  }
  const table = tableNameOf(facts.model, facts.name, facts.table);
  return Object.freeze({
    name: facts.name,
    table,
    resource: table,
    primaryKey,
    fields: Object.freeze(fields),
    fieldsByName: new Map(fields.map((field) => [field.name, field])),
    model: facts.model,
  });
}
