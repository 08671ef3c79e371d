/** Which columns `$like`/`$ilike` apply to: those the database compares as text. */
import { type EntityProperty, ReferenceKind } from '@mikro-orm/core';
import type { FieldType } from '../../lib/types.js';

/** Column types the databases match patterns against (MySQL's `enum('a','b')` is text there). */
const TEXT_COLUMN =
  /^\s*(?:n?(?:var)?char|character(?:\s+varying)?|national\s+(?:var)?char(?:acter)?|bpchar|(?:tiny|medium|long)?text|citext|clob|string|enum)\b/i;

/** The scalar key a many-to-one compares by (a key that is itself a relation: its target's key). */
function comparedProperty(prop: EntityProperty): EntityProperty | undefined {
  let current: EntityProperty | undefined = prop;
  for (let hops = 0; current !== undefined && current.kind !== ReferenceKind.SCALAR && hops < 8; hops++)
    current = current.targetMeta?.getPrimaryProps()[0];
  return current?.kind === ReferenceKind.SCALAR ? current : undefined;
}

/**
 * Whether `$like`/`$ilike` apply to a string, text, uuid or enum property (or a many-to-one to
 * one). PostgreSQL has no pattern operator for its `uuid`, native enum (`nativeEnumName`) and other
 * non-text columns (`inet`…): `em.find` fails there ("operator does not exist: uuid ~~ text"). A
 * uuid and a native enum are refused on every database, so the API does not depend on it; another
 * property by its column type.
 */
export function takesPatterns(prop: EntityProperty, type: FieldType): boolean {
  if (type === 'uuid') return false;
  const compared = comparedProperty(prop);
  if (compared === undefined) return true;
  if (compared.nativeEnumName !== undefined) return false;
  const column = compared.columnTypes?.[0];
  return column === undefined || column === '' || TEXT_COLUMN.test(column);
}
