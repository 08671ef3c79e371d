/**
 * Properties whose type MikroORM could not tell. With decorators, a TypeScript union
 * (`deleted_at?: Date | null`, `zip?: string | null`) or an intersection (`Date & Opt`) reflects as
 * `Object`; MikroORM then gives the property its unknown type (`type: 'any'`, no conversion) in the
 * platform's varchar column (`varchar(255)`, or `length`; `text` on SQLite) rather than guess JSON.
 * It holds what it is given: a string written is read back as that string, but a `Date` that
 * server code sets (`onCreate: () => new Date()`) is stored as each driver writes it and read back
 * as different text on each database, and filters compare it as text. That is MikroORM's own
 * behaviour, and such a string property works alike everywhere, so it is served (as a string)
 * with a warning at registration naming the property and the declaration that fixes it. A version
 * property is the exception: MikroORM increments it in SQL, which a varchar column breaks, so it is
 * refused (`refuseUntypedVersion`).
 */
import type { EntityMetadata, EntityProperty, Platform } from '@mikro-orm/core';
import { ReferenceKind } from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';

/** What the warning reads of a served field (plan.ts imports this module). */
export interface UntypedField {
  readonly field: { readonly name: string };
  readonly prop: EntityProperty;
  readonly nested?: ReadonlyMap<string, UntypedField>;
}

/** Whether MikroORM holds the scalar property with its unknown type: no type was declared or reflected. */
export function isUntypedProperty(prop: EntityProperty): boolean {
  return prop.kind === ReferenceKind.SCALAR && prop.type === 'any' && prop.customType === undefined;
}

/**
 * Whether the property is untyped and its column is the one MikroORM's unknown type makes (the
 * platform's varchar of its `length`): a string column, even where SQLite calls it `text`.
 */
export function isUntypedString(prop: EntityProperty, platform: Platform | undefined): boolean {
  return (
    isUntypedProperty(prop) &&
    platform !== undefined &&
    prop.columnTypes?.[0] === platform.getVarcharTypeDeclarationSQL(prop)
  );
}

/**
 * Throws a ConfigurationError for a `version: true` property MikroORM could not type: it keeps the
 * counter in a varchar column, which PostgreSQL refuses to increment (every update fails) and the
 * other databases answer as text ("2"). A warning would leave every update of the model broken.
 */
export function refuseUntypedVersion(meta: EntityMetadata, prop: EntityProperty): void {
  if (prop.version !== true || !isUntypedProperty(prop)) return;
  throw new ConfigurationError(
    `${meta.className}.${prop.name} is a version property whose type MikroORM could not tell (\`number & Opt\` or \`Date & Opt\` reflects as Object): it would keep the version as text in a ${prop.columnTypes?.[0] ?? 'varchar'} column, which PostgreSQL cannot increment and the other databases answer as a string. Declare its type in the decorator: \`@Property({ version: true, type: 'integer' })\` for a counter, or \`type: 'datetime'\` for a timestamp.`,
  );
}

// Warned once per property, however many adapters describe its model.
const warned = new WeakSet<EntityProperty>();

/** Emits `KMA_UNTYPED_PROPERTY` once for each served property (embedded ones too) MikroORM could not type. */
export function warnUntypedProperties(
  meta: EntityMetadata,
  fields: readonly UntypedField[],
  path = '',
): void {
  for (const field of fields) {
    const name = `${path}${field.field.name}`;
    if (field.nested !== undefined) {
      warnUntypedProperties(meta, [...field.nested.values()], `${name}.`);
      continue;
    }
    const prop = field.prop;
    if (!isUntypedProperty(prop) || warned.has(prop)) continue;
    warned.add(prop);
    const setByServer =
      prop.onCreate !== undefined || prop.onUpdate !== undefined
        ? ' A value server code sets (onCreate/onUpdate, a Date) is stored as each driver writes it and read back as different text on each database.'
        : '';
    process.emitWarning(
      `koa-model-api: MikroORM could not tell the type of ${meta.className}.${name} (a TypeScript union such as \`Date | null\` or \`string | null\`, or \`Date & Opt\`, reflects as Object): it holds the value untyped in a ${prop.columnTypes?.[0] ?? 'varchar'} column, and the API serves it as a string whose filters compare text.${setByServer} Declare its type in the decorator: \`type: 'datetime'\` for a Date, \`type: 'string'\` (or 'text'), \`type: 'integer'\`, 'double', 'boolean', 'json'.`,
      { code: 'KMA_UNTYPED_PROPERTY' },
    );
  }
}
