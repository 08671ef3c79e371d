/**
 * A property whose column reads back as another JavaScript type than MikroORM holds it as. A
 * TypeScript type fixes MikroORM's `runtimeType` (`@Property({ type: 'integer', columnType:
 * 'varchar(20)' }) code!: number`); MikroORM validates writes by it but converts nothing on load,
 * so the entity it loads holds the driver's value: `7` is written, `"7"` read back. Without a
 * TypeScript type MikroORM takes the JavaScript type from the column itself, and the API follows
 * it (field-types.ts); only a number held in a text column, or a string in a numeric one, is left.
 */
import type { EntityMetadata, EntityProperty, Platform } from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';
import type { FieldType } from '../../lib/types.js';
import { dialectOf } from './dialect.js';
import { columnKindOf, runtimeOfKind } from './field-types.js';

// The MikroORM type to declare for a column of each kind.
const TYPE_FOR: Readonly<Partial<Record<FieldType, string>>> = {
  string: 'string',
  text: 'text',
  uuid: 'uuid',
  time: 'time',
  date: 'date',
  integer: 'integer',
  number: 'double',
};

/**
 * Throws a ConfigurationError when the property, served as `kind`, has a column MikroORM reads back
 * as a string where it holds a number, or the other way round, or (on PostgreSQL, `platform`) a
 * numeric column for a boolean. Call only for a property with a column of its own (not a value
 * inside a JSON column).
 */
export function checkColumnAgreement(
  meta: EntityMetadata,
  prop: EntityProperty,
  kind: FieldType,
  platform: Platform,
): void {
  // A MikroORM Type converts the column's value on every load.
  if (prop.customType !== undefined || prop.persist === false || prop.formula !== undefined) return;
  const held = runtimeOfKind(kind);
  const column = columnKindOf(prop);
  const read = runtimeOfKind(column);
  const columnType = prop.columnTypes?.[0] ?? '';
  // MikroORM loads a boolean from any column (`!!value`), but PostgreSQL refuses `true` for a
  // numeric one: every write MikroORM sends would fail. SQLite and MySQL/MariaDB store it as 1.
  const written = meta.readonly !== true && prop.generated === undefined;
  if (written && held === 'boolean' && read === 'number' && dialectOf(platform) === 'postgresql')
    throw new ConfigurationError(
      `${meta.className}.${prop.name}: PostgreSQL does not take a boolean in its ${columnType} column, so every write MikroORM sends for it would fail. Declare \`columnType: 'boolean'\` (or drop columnType), or make it a number property to match ${columnType}.`,
    );
  const foreign = foreignReading(columnType, dialectOf(platform), held);
  if (foreign !== undefined && (held === 'string' || held === 'boolean' || held === 'number'))
    throw new ConfigurationError(
      `${meta.className}.${prop.name}: MikroORM holds it as a ${held} but its driver reads the ${columnType} column back as ${foreign}, and MikroORM serializes that as it is: the API could not give back what a client sends. Give it a MikroORM Type that converts the column's value (a custom Type with convertToJSValue), declare a column of the ${held}'s own kind (drop columnType), or leave it out of the entity the API serves.`,
    );
  const numeric = (type: string | undefined) => type === 'number';
  const text = (type: string | undefined) => type === 'string';
  if (!((numeric(held) && text(read)) || (text(held) && numeric(read)))) return;
  throw new ConfigurationError(
    `${meta.className}.${prop.name}: MikroORM holds it as a ${held} (its TypeScript type or \`type\`) but reads its column ${columnType} back as a ${read} and does not convert it, so a value would not read back as written. Make it a ${read} property to match ${columnType} (\`type: '${TYPE_FOR[column as FieldType] ?? String(column)}'\` and a TypeScript ${read}), or drop columnType.`,
  );
}

// Column types whose driver value is no string, number or boolean however the property is typed
// (round 12 of the fidelity checks): bytes (a Buffer), MySQL/MariaDB's bit (a Buffer: a stored 0 is
// a truthy object), PostgreSQL's parsed geometry (`{x, y}`) and arrays, MariaDB's year (a number).
const BYTES = /^(?:binary|varbinary|(?:tiny|medium|long)?blob|bytea)\b/;
const MYSQL_BIT = /^bit\b/;
const MYSQL_YEAR = /^year\b/;
const POSTGRES_OBJECTS = /^(?:point|circle)\b/;
const ARRAY_COLUMN = /\[\s*\d*\s*\]\s*$/;

/** What the driver reads a column of this type as, when it is neither a string, a number nor a boolean. */
function foreignReading(
  columnType: string,
  dialect: ReturnType<typeof dialectOf>,
  held: string | undefined,
): string | undefined {
  const column = columnType.trim().toLowerCase();
  if (BYTES.test(column)) return 'bytes (a Buffer)';
  if (dialect === 'mysql' && MYSQL_BIT.test(column)) return 'bytes (a Buffer, truthy even for 0)';
  if (dialect === 'postgresql' && POSTGRES_OBJECTS.test(column)) return 'an object';
  if (dialect === 'postgresql' && ARRAY_COLUMN.test(column)) return 'an array';
  if (dialect === 'mysql' && MYSQL_YEAR.test(column) && held !== 'number') return 'a number';
  return undefined;
}
