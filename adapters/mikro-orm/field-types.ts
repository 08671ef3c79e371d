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
  SmallIntType,
  StringType,
  TextType,
  TimeType,
  TinyIntType,
  type Type,
  types,
  UuidType,
} from '@mikro-orm/core';
import type { FieldType } from '../../lib/types.js';

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

/** The core field kind of a scalar property, or undefined when the core has no JSON form for it. */
export function fieldTypeOf(prop: EntityProperty): FieldType | undefined {
  if (prop.enum && (prop.items?.length ?? 0) > 0) return 'enum';
  const custom = prop.customType;
  // In `number` mode MikroORM holds and serializes these as JSON numbers.
  if ((custom instanceof DecimalType || custom instanceof BigIntType) && custom.mode === 'number')
    return 'number';
  if (custom !== undefined) {
    for (const [typeClass, fieldType] of BY_CUSTOM_TYPE) if (custom instanceof typeClass) return fieldType;
    // A user's own type: its JSON form is whatever its value (or toJSON) is, whatever the column.
    if (isUserType(prop)) return 'json';
  }
  const typeName = typeof prop.type === 'string' ? prop.type.toLowerCase() : '';
  // `Date` (reflected design type) is a timestamp unless declared otherwise.
  if (typeName === 'date' && prop.runtimeType === 'Date') return 'datetime';
  const byName = BY_TYPE_NAME[typeName];
  if (byName !== undefined) return byName;
  const column = (prop.columnTypes?.[0] ?? '').toLowerCase().replace(/\(.*$/, '').trim();
  return BY_TYPE_NAME[column];
}

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
