/**
 * How the database compares a text primary key when not exactly: by its column's collation, which
 * may ignore case, accents and trailing spaces, so that a foreign key stored as `'fr'` references
 * `'FR'` (MySQL/MariaDB collations, SQLite's `NOCASE` and `RTRIM`, PostgreSQL's nondeterministic
 * ICU collations). The core pairs such keys with their records by it (`include=`). A collation
 * the adapter cannot know gives exact matching: a key stored in another case is then left
 * unpaired (`null`), never paired with another record.
 */
import type { EntityManager, EntityProperty, Platform } from '@mikro-orm/core';
import type { FieldType, TextComparison } from '../../lib/types.js';
import { dialectOf } from './dialect.js';

/**
 * The collations of the columns of the current MySQL/MariaDB database or PostgreSQL schema (of
 * SQLite's text primary keys), by `table.column`, as read when the adapter connected; by
 * platform, one per MikroORM instance.
 */
const COLLATIONS = new WeakMap<Platform, ReadonlyMap<string, string>>();

/** The nondeterministic collations of a PostgreSQL database, by name: what each ignores, when known. */
const NONDETERMINISTIC = new WeakMap<Platform, ReadonlyMap<string, TextComparison | undefined>>();

/**
 * Each column's schema (`s`), table, name and collation, and whether its schema is the current one
 * (`u`). A column without a collation of its own: bytes on MySQL (binary), the database's on
 * PostgreSQL, whose every schema is read (a URL's `?schema=sales` qualifies the entities' tables).
 * SQLite keeps a column's collation only in its table's SQL; the index of a text primary key
 * reports it (an integer key has none, and needs none). Only what can matter is read, so that a
 * database of many schemas costs little at connect: primary-key columns only (the keys paired).
 */
const COLUMNS_SQL = {
  sqlite:
    "select 'main' as s, m.name as t, ix.name as c, ix.coll as k, 1 as u from sqlite_master m join pragma_index_list(m.name) il join pragma_index_xinfo(il.name) ix where m.type = 'table' and il.origin = 'pk' and ix.key = 1",
  mysql:
    "select table_schema as s, table_name as t, column_name as c, coalesce(collation_name, 'binary') as k, 1 as u from information_schema.columns where table_schema = database() and column_key = 'PRI'",
  postgresql:
    "select n.nspname as s, c.relname as t, a.attname as c, coalesce(co.collname, 'default') as k, n.nspname = current_schema() as u from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace join pg_attribute a on a.attrelid = c.oid and a.attnum = any(i.indkey) left join pg_collation co on co.oid = a.attcollation where i.indisprimary and n.nspname not in ('pg_catalog', 'information_schema')",
} as const;

/** One row of `COLUMNS_SQL`. */
interface ColumnRow {
  readonly s: string;
  readonly t: string;
  readonly c: string;
  readonly k: string;
  readonly u: unknown;
}

/** The keys a column is found by: `schema.table.column`, and `table.column` in the current schema. */
function columnKeys(row: ColumnRow): [string, string][] {
  const qualified: [string, string] = [`${row.s}.${row.t}.${row.c}`, row.k];
  return row.u === true || Number(row.u) === 1 ? [qualified, [`${row.t}.${row.c}`, row.k]] : [qualified];
}

// The ICU locale is colllocale from PostgreSQL 17, colliculocale in 15 and 16, collcollate
// before; custom rules (collicurules, 16+) may make any two strings equal.
const NONDETERMINISTIC_SQL =
  "select collname as n, coalesce(to_jsonb(c) ->> 'colllocale', to_jsonb(c) ->> 'colliculocale', collcollate) as l, coalesce(to_jsonb(c) ->> 'collicurules', '') as r from pg_collation c where not collisdeterministic";

/**
 * Reads the collations of the current MySQL/MariaDB or PostgreSQL schema's columns (and
 * PostgreSQL's nondeterministic collations) or of SQLite's primary keys, for the key comparisons
 * of the models described afterwards. Run after any schema creation.
 */
export async function readCollations(orm: { readonly em: EntityManager }): Promise<void> {
  const platform = orm.em.getPlatform();
  const dialect = dialectOf(platform);
  if (dialect === 'other') return;
  const connection = orm.em.getConnection();
  const rows = (await connection.execute(COLUMNS_SQL[dialect])) as ColumnRow[];
  COLLATIONS.set(platform, new Map(rows.flatMap(columnKeys)));
  if (dialect !== 'postgresql') return;
  const collations = (await connection.execute(NONDETERMINISTIC_SQL)) as {
    n: string;
    l: string | null;
    r: string;
  }[];
  const comparisons = collations.map(
    (row) => [row.n, row.r === '' ? icuComparison(row.l ?? '') : undefined] as const,
  );
  NONDETERMINISTIC.set(platform, new Map(comparisons));
}

/**
 * What a nondeterministic ICU collation ignores, from its locale's strength: level 1 (`ks-level1`,
 * `colStrength=primary`) case and accents, level 2 case; anything else (a case level, level 3 and
 * up, which only ignore what JavaScript cannot fold) compares exactly here. Only the root locale
 * (`und`) and English, which CLDR does not tailor: Swedish holds å apart from a, Turkish I from i.
 */
export function icuComparison(locale: string): TextComparison | undefined {
  const name = locale.toLowerCase();
  if (!['', 'und', 'root', 'en'].includes(name.split(/[-_@]/)[0] ?? '')) return undefined;
  if (/-kc(-true)?(-|$)|colcaselevel=(on|yes)/.test(name)) return undefined;
  if (/-ks-level1(-|$)|colstrength=primary/.test(name)) return { ignoresCase: true, ignoresAccents: true };
  if (/-ks-level2(-|$)|colstrength=secondary/.test(name)) return { ignoresCase: true };
  return undefined;
}

/** The Unicode collations with the root's folding, in utf8mb4 or utf8mb3 (`utf8`). */
const ROOT_FAMILY =
  /^utf8(mb[34])?_(general|general_mysql500|unicode|unicode_520|uca1400|0900)(_nopad)?(_a[is])?_c[is]$/;

/** What `ß` equals under a case-insensitive collation of this family, when known for certain. */
function sharpSOf(name: string): 's' | 'ss' | undefined {
  // `general_ci` weighs one character at a time (ß as s); `unicode_ci` and `unicode_520_ci` expand
  // ß to ss (both seen on MariaDB 10.11). Newer UCA collations (`uca1400`, `0900`) are unchecked:
  // ß then stays itself, which at worst leaves a key unpaired.
  if (/_general_/.test(name)) return 's';
  if (/_unicode_(520_)?(nopad_)?ci$/.test(name)) return 'ss';
  return undefined;
}

/** What a collation ignores, by its name's suffixes (`_ci`, `_ai`, `_as`, `_bin`, `nopad`, `_0900_`). */
export function collationComparison(collation: string): TextComparison | undefined {
  const name = collation.toLowerCase();
  if (name === 'binary') return undefined;
  // Language collations differ from the root's folding (Swedish å, Turkish ı, German ä as ae):
  // only the root families are folded; the others compare case and accents, PAD SPACE aside.
  const root = ROOT_FAMILY.test(name);
  const ignoresCase = root && /_ci$/.test(name);
  // `_ai` says so; the older `_ci` collations (general, unicode) ignore accents without saying.
  const ignoresAccents = root && (/_ai_/.test(name) || (ignoresCase && !/_as_/.test(name)));
  // MySQL 8's `_0900_` collations and MariaDB's `_nopad_` ones compare trailing spaces.
  const ignoresTrailingSpaces = !/nopad|_0900_/.test(name);
  const sharpS = ignoresCase ? sharpSOf(name) : undefined;
  if (!ignoresCase && !ignoresAccents && !ignoresTrailingSpaces) return undefined;
  return {
    ...(ignoresCase ? { ignoresCase } : {}),
    ...(ignoresAccents ? { ignoresAccents } : {}),
    ...(ignoresTrailingSpaces ? { ignoresTrailingSpaces } : {}),
    ...(sharpS === undefined ? {} : { sharpS }),
  };
}

/**
 * The collation of the property's column as read from the database, if it was: in the entity's
 * schema, else the configured one (PostgreSQL's `?schema=`), else the current one.
 */
function readCollationOf(prop: EntityProperty, table: TableName, platform: Platform): string | undefined {
  const configured = platform.getConfig().get('schema');
  const schema = table.schema ?? (typeof configured === 'string' ? configured : undefined);
  // `*`: any schema, chosen per request (multi-tenant); the current one is then a guess.
  if (schema === '*') return undefined;
  const column = `${table.name}.${prop.fieldNames?.[0] ?? prop.name}`;
  return COLLATIONS.get(platform)?.get(schema === undefined ? column : `${schema}.${column}`);
}

/** A table's name and the schema the entity names, if any. */
export interface TableName {
  readonly name: string;
  readonly schema?: string | undefined;
}

/** What an SQLite collation ignores: `NOCASE` the case of A–Z only, `RTRIM` trailing spaces. */
export function sqliteCollationComparison(collation: string): TextComparison | undefined {
  const name = collation.toUpperCase();
  if (name === 'NOCASE') return { ignoresCase: 'ascii' };
  if (name === 'RTRIM') return { ignoresTrailingSpaces: true };
  return undefined;
}

/**
 * The collation of a MySQL/MariaDB key column: the one read at connect, else the declared one (the
 * property's `collation`, the ORM's `collate`), which MikroORM gives the tables it creates. Never
 * the server's default: a table made elsewhere may compare exactly (`utf8mb4_bin`).
 */
function mysqlCollationOf(prop: EntityProperty, table: TableName, platform: Platform): string | undefined {
  const read = readCollationOf(prop, table, platform);
  if (read !== undefined) return read;
  const configured = platform.getConfig().get('collate');
  return prop.collation ?? (typeof configured === 'string' ? configured : undefined);
}

/**
 * The comparison of a PostgreSQL key column: by its nondeterministic collation as read at connect
 * (the column's, else the declared one); none without a connection (keys then match exactly).
 */
function postgresComparisonOf(
  prop: EntityProperty,
  table: TableName,
  platform: Platform,
): TextComparison | undefined {
  const read = readCollationOf(prop, table, platform);
  const collation = read ?? prop.collation?.replace(/^"|"$/g, '');
  return collation === undefined ? undefined : NONDETERMINISTIC.get(platform)?.get(collation);
}

/**
 * How the database compares a text primary key of `table`, when not exactly: MySQL/MariaDB by the
 * column's collation, SQLite by `NOCASE` or `RTRIM` (read, else declared), PostgreSQL by a nondeterministic
 * ICU collation of strength 1 or 2.
 */
export function keyComparisonOf(
  prop: EntityProperty,
  type: FieldType,
  platform: Platform,
  table: TableName,
): TextComparison | undefined {
  if (type !== 'string' && type !== 'uuid') return undefined;
  const dialect = dialectOf(platform);
  if (dialect === 'sqlite') {
    const collation = readCollationOf(prop, table, platform) ?? prop.collation;
    return collation === undefined ? undefined : sqliteCollationComparison(collation);
  }
  if (dialect === 'postgresql') return postgresComparisonOf(prop, table, platform);
  if (dialect !== 'mysql') return undefined;
  const collation = mysqlCollationOf(prop, table, platform);
  return collation === undefined ? undefined : collationComparison(collation);
}
