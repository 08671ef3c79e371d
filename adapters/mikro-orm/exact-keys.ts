/**
 * A primary key is the record's identity: a client addresses the record by the key it gets back,
 * and a write reads its row back by the key it wrote. A key the column stores as another value
 * breaks both. A float key has no exact round trip (a single-precision column stores 0.1 as
 * 0.100000001490116; a double's text form is not the column's): it is refused at registration. A
 * timestamp or time key keeps the fraction its column keeps (fraction-digits.ts), which the model
 * description carries (`fractionDigits`, as a decimal key's `digits.scale`) for the core to refuse
 * a client's key with more (lib/schema/exact-keys.ts).
 */
import { DecimalType, type EntityMetadata, type EntityProperty, FloatType } from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';
import type { FieldType } from '../../lib/types.js';
import type { Dialect } from './dialect.js';
import { timeDigitsOf, timestampDigitsOf } from './fraction-digits.js';

/** Throws a ConfigurationError for a key (or a relation to one: `via`) of a type with no exact round trip. */
export function refuseInexactKey(
  meta: EntityMetadata,
  prop: EntityProperty,
  type: FieldType,
  via?: EntityProperty,
): void {
  if (type !== 'number' || !isFloatingPoint(prop)) return;
  const subject =
    via === undefined
      ? `${meta.className}.${prop.name} is a primary key of a floating-point type`
      : `${meta.className}.${via.name} references ${prop.targetMeta?.className ?? 'an entity'} by its floating-point key ${prop.name}`;
  throw new ConfigurationError(
    `${subject} (${String(prop.columnTypes?.[0] ?? prop.type)}): the database may store another number than the one given, so a record could not be addressed, nor read back, by the key it was created with. Use an integer, a decimal (\`type: 'decimal'\`, a string of fixed places), a string or a uuid key.`,
  );
}

/**
 * Whether a key described as a JSON number is stored in a floating-point column: a decimal in
 * `mode: 'number'` (an exact column, a number in JS) is not.
 */
function isFloatingPoint(prop: EntityProperty): boolean {
  if (prop.customType instanceof DecimalType) return false;
  if (prop.customType instanceof FloatType) return true;
  const column = String(prop.columnTypes?.[0] ?? prop.type ?? '').toLowerCase();
  return !/^(decimal|numeric|number)\b/.test(column);
}

/** The `fractionDigits` of a timestamp or time key on this dialect, or undefined when every digit given is kept. */
export function keyFractionDigits(
  prop: EntityProperty,
  type: FieldType,
  dialect: Dialect,
): number | undefined {
  if (type === 'datetime') return timestampDigitsOf(prop, dialect);
  if (type === 'time') return timeDigitsOf(prop, dialect);
  return undefined;
}
