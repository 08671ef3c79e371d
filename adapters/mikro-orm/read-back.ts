/**
 * When the plain path must read a row back after writing it. After a flush MikroORM's entity holds
 * the values the application gave it, plus what MikroORM itself refreshes from the database
 * (ChangeSetPersister in @mikro-orm/core 7): on PostgreSQL and SQLite the `RETURNING` of the
 * primary key, `defaultRaw`, `generated` and version columns an insert did not set, and of
 * `generated` and version columns on update; on MySQL and MariaDB one select of the same columns
 * after the write. An application answering with that entity (the hand-written one in bench/) sends
 * no further statement; neither does the plain path for a model whose entity after flush is proved
 * to hold what a fresh read gives (spec/adapters/mikro-orm/fidelity/read-back.test.ts shows each
 * reason below on a real database, and that the other models answer alike without the read).
 *
 * Not refreshed, so a reason to read back: formulas; values the database stores in another form
 * than the entity holds them (a decimal's scale, a timestamp without milliseconds, a float column,
 * CHAR padding, an upper-case uuid on PostgreSQL, a custom type's conversion, array items, a JSON
 * integer past 2^53 on MySQL/MariaDB, an object's key order in PostgreSQL's jsonb);
 * embedded values (a fresh read hydrates every nested field); database triggers (the entity
 * option `hasTriggers`, or `@Trigger`) and columns the database sets (`returning: true`, which
 * MikroORM honours only on a PostgreSQL or SQLite insert); transient (`persist: false`) values
 * and getters of a model with lazy properties; listeners that run after the write or on load.
 * A database default or trigger MikroORM is not told of is unknown to the entity after flush as
 * to any MikroORM application: declare it (`defaultRaw`, `generated`, `hasTriggers`, `returning`).
 */
import {
  ArrayType,
  CharacterType,
  DecimalType,
  type EntityManager,
  type EntityMetadata,
  type EntityProperty,
  EventType,
  FloatType,
  isRaw,
  ReferenceKind,
} from '@mikro-orm/core';
import type { FieldType } from '../../lib/types.js';
import type { Dialect } from './dialect.js';
import { fieldTypeOf, hasBuiltInType } from './field-types.js';
import { timestampDigitsOf } from './fraction-digits.js';

/** What the read-back check reads of a plan under construction. */
export interface ReadBackCandidate {
  readonly meta: EntityMetadata;
  readonly dialect: Dialect;
  /**
   * Whether the driver parses JSON columns itself (MikroORM's MySqlDriver: mysql2 with
   * `supportBigNumbers`, an integer past 2^53 read as a string), where MikroORM's MariaDbDriver
   * parses the column's text as JSON.parse does, as the flushed entity holds it.
   */
  readonly jsonReadByDriver: boolean;
  /** The served properties (each field's MikroORM property). */
  readonly fields: readonly { readonly prop: EntityProperty }[];
  /**
   * MikroORM's `forceUtcTimezone: false`: a timestamp column without a time zone holds the local
   * time of the connection's `timezone` (or the process's), which a read turns back into a Date
   * its own way: the flushed Date may not be the one a read gives.
   */
  readonly localTimestamps?: boolean;
}

/** Column types that keep a text as written (a CHAR's padding is its own reason, above). */
const PLAIN_TEXT_COLUMN =
  /^\s*(?:n?(?:var)?char|character(?:\s+varying)?|national\s+(?:var)?char(?:acter)?|bpchar|(?:tiny|medium|long)?text|citext|clob|string)\b/;

/** The first column type of a property, lower-cased ('' when MikroORM has none). */
function columnOf(prop: EntityProperty): string {
  return String(prop.columnTypes?.[0] ?? '').toLowerCase();
}

/** Whether a timestamp column keeps a JS Date's milliseconds (fraction-digits.ts). */
function keepsMilliseconds(prop: EntityProperty, dialect: Dialect): boolean {
  return timestampDigitsOf(prop, dialect) >= 3;
}

/** A single-precision column: PostgreSQL `real`/`float4`, MySQL `float` (MikroORM's `float` type on both). */
function isSinglePrecision(prop: EntityProperty, dialect: Dialect): boolean {
  if (dialect === 'sqlite') return false;
  if (prop.customType instanceof FloatType) return true;
  const column = columnOf(prop);
  if (dialect === 'postgresql') return /^(real|float4)\b/.test(column) || /^float(\(|$)/.test(column);
  return /^float\b/.test(column);
}

/** A blank-padded CHAR column: PostgreSQL pads the value, MySQL and MariaDB strip trailing blanks. */
function isPaddedChar(prop: EntityProperty, dialect: Dialect): boolean {
  if (dialect === 'sqlite') return false;
  if (prop.customType instanceof CharacterType) return true;
  return /^(char|character|bpchar|nchar)\b(?!\s*varying)/.test(columnOf(prop));
}

/**
 * Why a value of this property, as the entity holds it after a flush, may differ from what the
 * database gives back; undefined when the round trip is proved exact on this dialect.
 */
function valueReason(
  name: string,
  prop: EntityProperty,
  dialect: Dialect,
  jsonReadByDriver = false,
  localTimestamps = false,
): string | undefined {
  if (!hasBuiltInType(prop)) return `${name} has a custom type, whose value a read converts from the column`;
  if (prop.customType instanceof ArrayType || prop.array === true)
    return `${name} is an array, whose items MikroORM does not read back as written`;
  // Before fieldTypeOf: a decimal in `mode: 'number'` is a 'number' there, and is stored at the scale too.
  if (prop.customType instanceof DecimalType) return `${name} is a decimal, stored at the column's scale`;
  if (isPaddedChar(prop, dialect)) return `${name} is a CHAR column, blank-padded by the database`;
  const type = fieldTypeOf(prop);
  switch (type) {
    case 'decimal':
      return `${name} is a decimal, stored at the column's scale`;
    case 'number':
      return isSinglePrecision(prop, dialect) ? `${name} is a single-precision float` : undefined;
    case 'uuid':
      if (dialect === 'postgresql') return `${name} is a uuid, which PostgreSQL stores lower-cased`;
      // MariaDB's own uuid type (a columnType) lower-cases too; a char(36) keeps the text.
      return dialect === 'mysql' && columnOf(prop).startsWith('uuid')
        ? `${name} is held in a uuid column, which MariaDB stores lower-cased`
        : undefined;
    case 'string':
    case 'text': {
      const column = columnOf(prop);
      // A text column keeps the text as written; another (a uuid, inet, macaddr, money, MariaDB's
      // inet6, enum(…), set(…)) stores the value in its own form, which a fresh read gives.
      return column === '' || dialect === 'sqlite' || PLAIN_TEXT_COLUMN.test(column)
        ? undefined
        : `${name} is held in a ${column} column, which the database may store in its own form`;
    }
    case 'datetime':
      if (!keepsMilliseconds(prop, dialect)) return `${name} is a timestamp column without milliseconds`;
      return localTimestamps &&
        dialect !== 'sqlite' &&
        !/^(timestamptz|timestamp\b.*\bwith time zone)/.test(columnOf(prop))
        ? `${name} is a timestamp without a time zone, read in local time (forceUtcTimezone: false)`
        : undefined;
    case 'integer':
    case 'bigint':
    case 'boolean':
    case 'enum':
    case 'date':
      return undefined;
    case 'time':
      // SQLite keeps the text as written; PostgreSQL rounds a fraction to the column's precision
      // and drops trailing zeros, MariaDB truncates it and pads to the precision.
      return dialect === 'sqlite'
        ? undefined
        : `${name} is a time, which the database stores at the column's precision`;
    // JSON text reads back equal on SQLite and in PostgreSQL's `json`; PostgreSQL's `jsonb` (MikroORM's
    // json column there) keeps an object's keys in its own order (shorter keys first), which a fresh
    // read and the fast path show; MikroORM's MySQL driver sets mysql2's `supportBigNumbers`: an
    // integer past 2^53 reads as a string (not its MariaDB driver, which parses the text itself).
    case 'json':
      if (dialect === 'mysql' && jsonReadByDriver)
        return `${name} is JSON, whose integers past 2^53 MySQL/MariaDB read back as strings`;
      return dialect === 'postgresql' && columnOf(prop).startsWith('jsonb')
        ? `${name} is jsonb, which PostgreSQL stores with an object's keys in its own order`
        : undefined;
    default:
      return `${name} has a type whose round trip is not proved`;
  }
}

/** The JS type a default must have to be what a read of the column gives. */
function defaultFits(type: FieldType | undefined, value: unknown): boolean {
  switch (type) {
    case 'integer':
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
    case 'text':
    case 'uuid':
    case 'date':
    case 'time':
      return typeof value === 'string';
    case 'enum':
      return typeof value === 'string' || typeof value === 'number';
    case 'datetime':
      return value instanceof Date;
    default:
      return true;
  }
}

/** Why one served property keeps its model's writes reading back, or undefined. */
function propertyReason(
  meta: EntityMetadata,
  prop: EntityProperty,
  { dialect, jsonReadByDriver, localTimestamps }: ReadBackCandidate,
): string | undefined {
  const name = `${meta.className}.${prop.name}`;
  // A lazy value is never part of a write's answer (a read sends it only when asked for).
  if (prop.lazy === true) return undefined;
  if (prop.formula !== undefined)
    return `${name} is a formula, which MikroORM computes only when it loads the row`;
  if (prop.kind === ReferenceKind.EMBEDDED)
    return `${name} is embedded: a fresh read hydrates every nested field, the flushed value only those given`;
  if (prop.persist === false) {
    // A getter computes from the entity's values, which are proved equal to a fresh read's…
    if (prop.getter === true || prop.getterName !== undefined)
      // …except lazy ones, loaded after a write and not after a read.
      return meta.props.some((other) => other.lazy === true)
        ? `${name} is a getter of a model with lazy properties`
        : undefined;
    return `${name} is a transient value (persist: false), set on a new entity but not on a loaded one`;
  }
  if (prop.returning === true) return `${name} is set by the database (returning: true)`;
  if (prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE) {
    // The column holds the target's key, in the key's type.
    const key = prop.targetMeta?.getPrimaryProps()[0];
    return key === undefined ? `${name} has no single key` : valueReason(`${name} (its key)`, key, dialect);
  }
  const fallback = prop.default;
  // MikroORM puts a static default on a new entity as it is (EntityFactory.assignDefaultValues).
  if (
    fallback !== undefined &&
    fallback !== null &&
    !isRaw(fallback) &&
    !defaultFits(fieldTypeOf(prop), fallback)
  )
    return `${name} has a default of another type than its column's values`;
  return valueReason(name, prop, dialect, jsonReadByDriver, localTimestamps);
}

/**
 * Why the plain path must read this model's rows back after a write, or undefined when the entity
 * after flush holds what a fresh read gives. Decided once per model, at plan time.
 */
export function readBackReason(candidate: ReadBackCandidate): string | undefined {
  const { meta, dialect } = candidate;
  if (dialect === 'other') return 'the database is not SQLite, PostgreSQL or MySQL/MariaDB';
  // `hasTriggers: true` tells MikroORM of triggers it did not create; `@Trigger` declares them.
  const writeTriggers = (meta.triggers ?? []).some((trigger) =>
    trigger.events.some((event) => event === 'insert' || event === 'update'),
  );
  if (writeTriggers || (meta.hasTriggers === true && (meta.triggers ?? []).length === 0))
    return `${meta.className} has database triggers, which may change a row after MikroORM wrote it`;
  for (const { prop } of candidate.fields) {
    const reason = propertyReason(meta, prop, candidate);
    if (reason !== undefined) return reason;
  }
  return undefined;
}

// Entity events after which the entity may hold what the row does not: a listener that changes
// it after the write, or one that a load runs and a flush does not (onInit runs again on the
// entity a fresh load builds, on top of the stored value).
const ENTITY_EVENTS = {
  create: [EventType.afterCreate, EventType.onLoad, EventType.onInit],
  update: [EventType.afterUpdate, EventType.onLoad, EventType.onInit],
} as const;
// Flush events that run after the writes, where a subscriber may write the row again.
const FLUSH_EVENTS = [
  EventType.afterFlush,
  EventType.beforeTransactionCommit,
  EventType.afterTransactionCommit,
] as const;

/**
 * Why this write must be read back because of the session's listeners (entity hooks and
 * subscribers, which may be registered at any time), or undefined. MikroORM caches the answer
 * for entity events; the subscribers are few.
 */
export function listenerReason(
  session: EntityManager,
  meta: EntityMetadata,
  kind: 'create' | 'update',
): string | undefined {
  const events = session.getEventManager();
  for (const event of ENTITY_EVENTS[kind])
    if (events.hasListeners(event, meta)) return `${meta.className} has ${event} listeners`;
  for (const subscriber of events.getSubscribers())
    for (const event of FLUSH_EVENTS)
      if (typeof (subscriber as Record<string, unknown>)[event] === 'function')
        return `a subscriber listens to ${event}`;
  return undefined;
}
