/** Maps a MikroORM scalar property to the core's field kind. */
import {
  BigIntType,
  BooleanType,
  CharacterType,
  DateTimeType,
  DateType,
  DecimalType,
  DoubleType,
  type EntityProperty,
  EnumType,
  FloatType,
  IntegerType,
  JsonType,
  MediumIntType,
  type Platform,
  SmallIntType,
  StringType,
  TextType,
  TimeType,
  TinyIntType,
  type Type,
  types,
  UuidType,
} from '@mikro-orm/core';
import { INT32_MAX, INT32_MIN } from '../../lib/schema/model-schemas.js';
import type { FieldDescription, FieldType } from '../../lib/types.js';
import { columnTypeOf } from './column-type.js';
import { dialectOf } from './dialect.js';
import { isUntypedString } from './untyped-properties.js';

// Order matters only for subclasses; MikroORM's types do not extend each other.
const BY_CUSTOM_TYPE: readonly [abstract new (...args: never[]) => Type<unknown, unknown>, FieldType][] = [
  [EnumType, 'enum'],
  [DecimalType, 'decimal'],
  [DoubleType, 'number'],
  [FloatType, 'number'],
  [BigIntType, 'bigint'],
  [IntegerType, 'integer'],
  [SmallIntType, 'integer'],
  [TinyIntType, 'integer'],
  [MediumIntType, 'integer'],
  [BooleanType, 'boolean'],
  [DateTimeType, 'datetime'],
  [DateType, 'date'],
  [TimeType, 'time'],
  [JsonType, 'json'],
  [UuidType, 'uuid'],
  [TextType, 'text'],
  [StringType, 'string'],
  [CharacterType, 'string'],
];

/** `type` names (MikroORM type keys, JS type names and common column types), lower-cased. */
const BY_TYPE_NAME: Readonly<Record<string, FieldType>> = {
  string: 'string',
  character: 'string',
  varchar: 'string',
  char: 'string',
  'character varying': 'string',
  text: 'text',
  tinytext: 'text',
  mediumtext: 'text',
  longtext: 'text',
  citext: 'text',
  clob: 'text',
  uuid: 'uuid',
  integer: 'integer',
  int: 'integer',
  int4: 'integer',
  smallint: 'integer',
  int2: 'integer',
  tinyint: 'integer',
  mediumint: 'integer',
  bigint: 'bigint',
  int8: 'bigint',
  // A bare `number` is mapped by MikroORM to an integer column.
  number: 'integer',
  float: 'number',
  float4: 'number',
  float8: 'number',
  double: 'number',
  'double precision': 'number',
  real: 'number',
  decimal: 'decimal',
  numeric: 'decimal',
  boolean: 'boolean',
  bool: 'boolean',
  date: 'date',
  datetime: 'datetime',
  timestamp: 'datetime',
  timestamptz: 'datetime',
  'timestamp with time zone': 'datetime',
  time: 'time',
  json: 'json',
  jsonb: 'json',
  object: 'json',
  enum: 'enum',
};

/**
 * The core field kind of a scalar property, or undefined when the core has no JSON form for it.
 * `platform` is the platform of its column, when it has one.
 */
export function fieldTypeOf(prop: EntityProperty, platform?: Platform): FieldType | undefined {
  if (prop.enum && (prop.items?.length ?? 0) > 0) return 'enum';
  const custom = prop.customType;
  // In `number` mode (a decimal's mode follows a `number` property unless given) MikroORM holds
  // and serializes these as JSON numbers; a bigint's are whole, within ±2^53 (describe.ts).
  if (custom instanceof DecimalType && (custom.mode ?? prop.runtimeType) === 'number') return 'number';
  if (custom instanceof BigIntType && custom.mode === 'number') return 'integer';
  if (custom !== undefined) {
    for (const [typeClass, fieldType] of BY_CUSTOM_TYPE) if (custom instanceof typeClass) return fieldType;
    // A user's own type: its JSON form is whatever its value (or toJSON) is, whatever the column.
    if (isUserType(prop)) return 'json';
  }
  // A type MikroORM could not tell holds strings in its varchar column, which SQLite calls `text`:
  // served as a string everywhere (untyped-properties.ts).
  if (isUntypedString(prop, platform)) return 'string';
  const typeName = typeof prop.type === 'string' ? prop.type.toLowerCase() : '';
  // `Date` (reflected design type) is a timestamp unless declared otherwise.
  if (typeName === 'date' && prop.runtimeType === 'Date') return 'datetime';
  const column = BY_TYPE_NAME[columnBase(prop)];
  const byName = BY_TYPE_NAME[typeName];
  if (byName === undefined) return column;
  const declared = refinedByColumn(byName, column, platform);
  return custom === undefined ? followedRuntime(prop, declared) : declared;
}

/** The base of the property's column type, lower-cased: `varchar(5)` → `varchar`. */
function columnBase(prop: EntityProperty): string {
  return (prop.columnTypes?.[0] ?? '').toLowerCase().replace(/\(.*$/, '').trim();
}

/**
 * The kind of the property's column type: by its base (`varchar(5)` → string), else by its first
 * word as MikroORM's platforms read it (`int unsigned` → integer). MySQL's `tinyint(1)` is what
 * MikroORM's MySQL platform maps to a boolean.
 */
export function columnKindOf(prop: EntityProperty): FieldType | undefined {
  const base = columnBase(prop);
  if (prop.runtimeType === 'boolean' && prop.columnTypes?.[0]?.toLowerCase() === 'tinyint(1)')
    return 'boolean';
  return BY_TYPE_NAME[base] ?? BY_TYPE_NAME[/^[^(), ]*/.exec(base)?.[0] ?? ''];
}

/**
 * The JavaScript type MikroORM holds a value of each kind as (its `runtimeType`), for the kinds
 * without a MikroORM Type of their own doing the conversion.
 */
const RUNTIME_OF: Readonly<Partial<Record<FieldType, string>>> = {
  string: 'string',
  text: 'string',
  uuid: 'string',
  time: 'string',
  date: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  datetime: 'Date',
};

/** The JavaScript type MikroORM holds a value of this kind as, when it is one of its scalars. */
export function runtimeOfKind(kind: FieldType | undefined): string | undefined {
  return kind === undefined ? undefined : RUNTIME_OF[kind];
}

/**
 * MikroORM derives a property's JavaScript type (`runtimeType`) from its `columnType` when no
 * TypeScript type gave one (an `EntitySchema`, `defineEntity`): `{ type: 'integer', columnType:
 * 'varchar(20)' }` is a string to it, which it validates, loads and serializes as such (`"7"`), and
 * `{ type: 'boolean', columnType: 'smallint' }` a number (it refuses `true`, serializes `1`). The
 * API serves such a property as MikroORM holds it: as the column's kind.
 */
function followedRuntime(prop: EntityProperty, declared: FieldType): FieldType {
  const runtime = prop.runtimeType;
  const expected = RUNTIME_OF[declared];
  if (expected === undefined || runtime === expected) return declared;
  const column = columnKindOf(prop);
  return column !== undefined && RUNTIME_OF[column] === runtime ? column : declared;
}

/**
 * The kind a `columnType` gives a property whose declared type is broader: a `number` in a
 * `real` column holds fractions, a `string` in a `text` column has no length, a `string` in a
 * `time` column is a time of day. On SQLite MikroORM makes every string a `text` column, so there
 * a `text` column tells nothing (declare `type: 'text'` instead).
 */
function refinedByColumn(declared: FieldType, column: FieldType | undefined, platform?: Platform): FieldType {
  if (declared === 'integer' && column === 'number') return 'number';
  if (declared === 'string' && column === 'time') return 'time';
  if (
    declared === 'string' &&
    column === 'text' &&
    platform !== undefined &&
    dialectOf(platform) !== 'sqlite'
  )
    return 'text';
  return declared;
}

/**
 * The length a string column holds, from its column type (`varchar(5)`, `char(2)`) when it has
 * one, else the property's `length`; undefined when neither says.
 */
export function stringLengthOf(prop: EntityProperty): number | undefined {
  const column = columnTypeOf(prop);
  if (
    column !== undefined &&
    STRING_COLUMNS.has(column.base) &&
    column.size !== undefined &&
    column.scale === undefined &&
    column.modifiers === ''
  )
    return column.size;
  return prop.length !== undefined && prop.length > 0 ? prop.length : undefined;
}

/** The column types whose one argument is a length in characters. */
const STRING_COLUMNS: ReadonlySet<string> = new Set([
  'varchar',
  'character varying',
  'char',
  'character',
  'nvarchar',
  'nchar',
  'varchar2',
]);

const BUILT_IN_TYPES: ReadonlySet<unknown> = new Set(Object.values(types));

/** Whether the property has a type of the user's own that extends none of MikroORM's (its JSON form is its own). */
export function isUserType(prop: EntityProperty): boolean {
  const custom = prop.customType;
  if (custom === undefined || BUILT_IN_TYPES.has(custom.constructor)) return false;
  return !Object.values(types).some((builtIn) => custom instanceof builtIn);
}

/** Whether the property's type is one of MikroORM's own (exactly, not a user's subclass), or it has none. */
export function hasBuiltInType(prop: EntityProperty): boolean {
  const custom = prop.customType;
  return custom === undefined || BUILT_IN_TYPES.has(custom.constructor);
}

/** The range of values an integer column holds. */
export type IntegerRange = Required<Pick<FieldDescription, 'minimum' | 'maximum'>>;

const INT16: IntegerRange = { minimum: -32768, maximum: 32767 };
const INT32: IntegerRange = { minimum: INT32_MIN, maximum: INT32_MAX };
/** The whole numbers JavaScript holds exactly: the range of an integer no column bounds. */
export const SAFE_INTEGERS: IntegerRange = {
  minimum: Number.MIN_SAFE_INTEGER,
  maximum: Number.MAX_SAFE_INTEGER,
};

/** PostgreSQL's integer columns (MikroORM makes `tinyint` a smallint there). */
const POSTGRESQL_RANGES: Readonly<Record<string, IntegerRange>> = {
  smallint: INT16,
  int2: INT16,
  smallserial: INT16,
  int: INT32,
  integer: INT32,
  int4: INT32,
  serial: INT32,
  serial4: INT32,
};

/** MySQL/MariaDB integer columns: [signed, unsigned]. */
const MYSQL_RANGES: Readonly<Record<string, readonly [IntegerRange, IntegerRange]>> = {
  tinyint: [
    { minimum: -128, maximum: 127 },
    { minimum: 0, maximum: 255 },
  ],
  smallint: [INT16, { minimum: 0, maximum: 65535 }],
  mediumint: [
    { minimum: -8388608, maximum: 8388607 },
    { minimum: 0, maximum: 16777215 },
  ],
  int: [INT32, { minimum: 0, maximum: 4294967295 }],
  integer: [INT32, { minimum: 0, maximum: 4294967295 }],
};

/**
 * The range of the column MikroORM maps an integer property to on this platform: its column type
 * (the user's `columnType` when given) and, on MySQL/MariaDB, `unsigned` (MikroORM makes numeric
 * primary keys and the foreign keys to them unsigned there). Undefined where the database does not
 * bound the column (SQLite stores any 64-bit integer whatever the declared type) or the type is
 * not one of these.
 */
export function integerRangeOf(prop: EntityProperty, platform: Platform): IntegerRange | undefined {
  // A 64-bit column read as JavaScript numbers: whole numbers JavaScript holds exactly.
  if (prop.customType instanceof BigIntType) return SAFE_INTEGERS;
  const column = columnTypeOf(prop);
  if (column === undefined || column.scale !== undefined) return undefined;
  const { base } = column;
  switch (dialectOf(platform)) {
    case 'postgresql':
      return POSTGRESQL_RANGES[base];
    case 'mysql': {
      const ranges = MYSQL_RANGES[base];
      // `zerofill` implies unsigned; MikroORM adds `unsigned` to the column when the property says so.
      const unsigned = /unsigned|zerofill/.test(column.modifiers) || prop.unsigned === true;
      return ranges?.[unsigned ? 1 : 0];
    }
    default:
      return undefined;
  }
}
