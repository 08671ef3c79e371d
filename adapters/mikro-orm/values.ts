/**
 * The JSON value forms of the core, in both directions: what a database row becomes in a record
 * (`decoderFor`), and what a validated JSON value becomes for MikroORM (`encoderFor`).
 *
 * Record forms: datetime → Date (the core writes ISO strings), date 'YYYY-MM-DD', time 'HH:MM:SS[.fff]',
 * bigint and decimal → strings, boolean → boolean on every database, json → parsed value,
 * many-to-one → the referenced primary key.
 */
import { BigIntType, DecimalType, type EntityProperty, type Platform } from '@mikro-orm/core';
import type { FieldType } from '../../lib/types.js';
import { hasBuiltInType } from './field-types.js';

/** Turns one column value (after MikroORM's column→property mapping) into its record form. */
export type Decoder = (value: unknown) => unknown;
/** Turns one validated JSON value into what MikroORM expects for the property. */
export type Encoder = (value: unknown) => unknown;

function toBoolean(value: unknown): boolean {
  // MariaDB and SQLite store booleans as 0/1; a driver may hand them over as strings.
  if (typeof value === 'string') return value !== '0' && value !== '' && value.toLowerCase() !== 'false';
  return Boolean(value);
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

function toDateString(value: unknown): string {
  if (value instanceof Date)
    return `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}`;
  return String(value).slice(0, 10);
}

function toTimeString(value: unknown): string {
  // As the driver hands it over, which is what MikroORM serializes: MariaDB pads a fraction to the
  // column's precision (`07:30:00.000`), PostgreSQL drops trailing zeros, SQLite keeps the text.
  return String(value);
}

/**
 * As MikroORM's DecimalType reads it: the driver's text (PostgreSQL, MariaDB: `12.50`), or on SQLite,
 * which keeps NUMERIC as REAL, the number's own digits (`12.5`).
 */
function toDecimalString(value: unknown): string {
  return String(value);
}

function toJson(value: unknown, prop: EntityProperty, platform: Platform): unknown {
  // MikroORM knows whether the driver already parsed the column (pg, MySQL) or not (SQLite).
  if (prop.customType !== undefined) return prop.customType.convertToJSValue(value, platform);
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

/** The record form of a column value of the given field type. */
export function decoderFor(type: FieldType, prop: EntityProperty, platform: Platform): Decoder {
  const decode = ((): Decoder => {
    switch (type) {
      case 'boolean':
        return toBoolean;
      case 'integer':
      case 'number':
        return (value) => (typeof value === 'number' ? value : Number(value));
      case 'bigint':
        return (value) => String(value);
      case 'decimal':
        return toDecimalString;
      case 'date':
        return toDateString;
      case 'time':
        return toTimeString;
      case 'datetime':
        return (value) => (value instanceof Date ? value : new Date(value as string | number));
      case 'json':
        return (value) => toJson(value, prop, platform);
      default:
        return (value) => value;
    }
  })();
  return (value) => (value === null || value === undefined ? null : decode(value));
}

/**
 * `HH:MM` as `HH:MM:00`, the time every database but SQLite stores for it (SQLite keeps the text,
 * so lists filter and sort one form); seconds and their fraction as sent, which MikroORM writes
 * as they are (the database keeps the fraction to the column's precision).
 */
function toTimeValue(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return /^\d{2}:\d{2}$/.test(value) ? `${value}:00` : value;
}

/** A user's custom type that reads its JSON form back (`fromJSON`), as MikroORM's own BigIntType does. */
interface JsonReadingType {
  fromJSON(value: unknown): unknown;
}

function readsJson(custom: unknown): custom is JsonReadingType {
  return typeof (custom as Partial<JsonReadingType> | undefined)?.fromJSON === 'function';
}

/** The MikroORM value for a validated JSON value of the given field type. */
export function encoderFor(type: FieldType, prop: EntityProperty): Encoder {
  const custom = prop.customType;
  if (!hasBuiltInType(prop) && readsJson(custom))
    return (value) => (value === null || value === undefined ? value : custom.fromJSON(value));
  const encode = ((): Encoder => {
    switch (type) {
      case 'datetime':
        return (value) => (value instanceof Date ? value : new Date(value as string | number));
      case 'time':
        return toTimeValue;
      case 'bigint': {
        const custom = prop.customType;
        // The entity holds a bigint, number or string depending on the type's mode.
        return custom instanceof BigIntType
          ? (value) => custom.fromJSON(typeof value === 'bigint' ? String(value) : value)
          : (value) => value;
      }
      case 'decimal': {
        const custom = prop.customType;
        const asNumber =
          (custom instanceof DecimalType ? custom.mode : undefined) === 'number' ||
          prop.runtimeType === 'number';
        return asNumber ? (value) => Number(value) : (value) => String(value);
      }
      default:
        return (value) => value;
    }
  })();
  return (value) => (value === null || value === undefined ? value : encode(value));
}
