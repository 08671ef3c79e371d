/**
 * How MySQL and MariaDB compare a text primary key: by its column's collation, which may ignore
 * case, accents and trailing spaces, so that a foreign key stored as `'fr'` references `'FR'`.
 * The core pairs such keys with their records by it (`include=`); other databases compare exactly.
 */
import type { EntityProperty, Platform } from '@mikro-orm/core';
import type { FieldType, TextComparison } from '../../lib/types.js';
import { dialectOf } from './dialect.js';

/**
 * The collation of a column MikroORM declares none for: the server's default, which the adapter
 * cannot see (MikroORM's MySQL driver serves MariaDB too); MariaDB's, case- and accent-insensitive
 * with PAD SPACE. MySQL 8's `utf8mb4_0900_ai_ci` differs only in comparing trailing spaces.
 */
const SERVER_DEFAULT = 'utf8mb4_general_ci';

/** What a collation ignores, by its name's suffixes (`_ci`, `_ai`, `_as`, `_bin`, `nopad`, `_0900_`). */
export function collationComparison(collation: string): TextComparison | undefined {
  const name = collation.toLowerCase();
  if (name === 'binary') return undefined;
  const ignoresCase = /_ci(_|$)/.test(name);
  // `_ai` says so; the older `_ci` collations (general, unicode) ignore accents without saying.
  const ignoresAccents = /_ai(_|$)/.test(name) || (ignoresCase && !/_as(_|$)/.test(name));
  // MySQL 8's `_0900_` collations and MariaDB's `_nopad_` ones compare trailing spaces.
  const ignoresTrailingSpaces = !/nopad|_0900_/.test(name);
  if (!ignoresCase && !ignoresAccents && !ignoresTrailingSpaces) return undefined;
  return {
    ...(ignoresCase ? { ignoresCase } : {}),
    ...(ignoresAccents ? { ignoresAccents } : {}),
    ...(ignoresTrailingSpaces ? { ignoresTrailingSpaces } : {}),
  };
}

/**
 * How the database compares a text primary key, when not exactly: from the property's
 * `collation`, else the ORM's `collate` option, else MariaDB's default collation.
 */
export function keyComparisonOf(
  prop: EntityProperty,
  type: FieldType,
  platform: Platform,
): TextComparison | undefined {
  if ((type !== 'string' && type !== 'uuid') || dialectOf(platform) !== 'mysql') return undefined;
  const configured = platform.getConfig().get('collate');
  const collation =
    prop.collation ?? (typeof configured === 'string' ? configured : undefined) ?? SERVER_DEFAULT;
  return collationComparison(collation);
}
