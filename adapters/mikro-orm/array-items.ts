/**
 * Array values MikroORM would store in a form that reads back changed, refused before the write.
 * MikroORM's `ArrayType` (and `EnumArrayType`) stores an array as text made by the platform's
 * `marshallArray`, and reads it back with `unmarshallArray` (PostgreSQL: the server parses the
 * text as an array literal, and the driver parses its output):
 *
 * - SQLite, MariaDB/MySQL: items joined by commas, an item with a comma, quote or backslash written
 *   as a JSON string. A list of one empty string is the empty text, read back as no item; an empty
 *   string at the end of a list with such a quoted item is lost.
 * - PostgreSQL: `{…}` with an item quoted as a JSON string when it is empty or has a quote, brace,
 *   comma or backslash, else bare. PostgreSQL reads a bare `NULL` (any case, blanks around it
 *   included) as null and drops the blanks around a bare item; in a quoted item it reads `\n`,
 *   `\t`, `\u0001`… (JSON's escapes of control characters) as the letter after the backslash.
 *
 * The check runs MikroORM's own conversion and reading (PostgreSQL's literal parsed as the server
 * parses it), so it follows what MikroORM does rather than a list of characters.
 */
import { ArrayType, type EntityProperty, type Platform } from '@mikro-orm/core';
import { ApiError, type FieldError } from '../../lib/errors.js';
import type { Dialect } from './dialect.js';

/** The item of a written array that would read back changed, and why (a sentence). */
export interface ArrayFault {
  readonly index: number;
  readonly reason: string;
}

// The blanks PostgreSQL's array input skips around a bare item (its array_isspace).
const PG_BLANKS = new Set([' ', '\t', '\n', '\r', '\v', '\f']);

/**
 * A one-dimensional PostgreSQL array literal as the server reads it (array_in): the items, null for
 * a bare NULL; undefined when the server would refuse it as malformed.
 */
export function parsePostgresArray(text: string): (string | null)[] | undefined {
  let i = 0;
  const skipBlanks = () => {
    while (i < text.length && PG_BLANKS.has(text[i] as string)) i++;
  };
  skipBlanks();
  if (text[i] !== '{') return undefined;
  i++;
  const items: (string | null)[] = [];
  skipBlanks();
  if (text[i] === '}') {
    i++;
    skipBlanks();
    return i === text.length ? items : undefined;
  }
  for (;;) {
    skipBlanks();
    let value = '';
    // Escaped or quoted characters are the item's own; a bare item's trailing blanks are dropped.
    let literal = false;
    let blanks = '';
    if (text[i] === '"') {
      literal = true;
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') i++;
        value += text[i] ?? '';
        i++;
      }
      if (i >= text.length) return undefined;
      i++;
      skipBlanks();
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '}') {
        const char = text[i] as string;
        if (char === '"' || char === '{') return undefined;
        if (char === '\\') {
          literal = true;
          value += blanks + (text[i + 1] ?? '');
          blanks = '';
          i += 2;
        } else if (PG_BLANKS.has(char)) {
          blanks += char;
          i++;
        } else {
          value += blanks + char;
          blanks = '';
          i++;
        }
      }
      if (value === '' && !literal) return undefined;
    }
    items.push(!literal && /^null$/i.test(value) ? null : value);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] !== '}') return undefined;
    i++;
    skipBlanks();
    return i === text.length ? items : undefined;
  }
}

/** What MikroORM reads back of the array it stores for this value; undefined when the database refuses the text. */
function readBack(
  custom: ArrayType,
  platform: Platform,
  dialect: Dialect,
  value: unknown[],
): unknown[] | undefined {
  const stored = custom.convertToDatabaseValue(value as string[], platform) as unknown;
  if (typeof stored !== 'string') return value;
  if (dialect !== 'postgresql') return custom.convertToJSValue(stored, platform) as unknown[];
  // The driver hands over the server's items already parsed (text[]), or MikroORM parses its text
  // (a native enum array) with a parser that reads the server's output exactly.
  const parsed = parsePostgresArray(stored);
  return parsed === undefined ? undefined : (custom.convertToJSValue(parsed as never, platform) as unknown[]);
}

/** Why the item at `index` of this value does not come back as written. */
function reasonFor(
  dialect: Dialect,
  value: readonly unknown[],
  back: readonly unknown[] | undefined,
  index: number,
): string {
  const item = value[index];
  if (dialect === 'postgresql') {
    if (back?.[index] === null)
      return 'PostgreSQL reads this item as null: MikroORM writes it bare in its array literal, and a bare NULL is the null item';
    if (
      typeof item === 'string' &&
      (PG_BLANKS.has(item.charAt(0)) || PG_BLANKS.has(item.charAt(item.length - 1)))
    )
      return 'PostgreSQL drops the blanks around this item, which MikroORM writes bare in its array literal';
    return 'MikroORM escapes the control characters of this item as JSON does, which PostgreSQL reads back as other characters';
  }
  if (value.length === 1 && item === '')
    return 'MikroORM stores a list of one empty string as empty text, which it reads back as an empty list';
  if (item === '' && index === value.length - 1)
    return 'MikroORM loses an empty string at the end of a list that has an item with a comma, quote or backslash';
  return 'MikroORM would read this list back with other items';
}

/**
 * The first item of an array value MikroORM would not read back as written, or undefined. A value
 * MikroORM refuses itself (an item outside an enum) is left to its own error.
 */
export function arrayFault(
  prop: EntityProperty,
  dialect: Dialect,
  platform: Platform,
  value: unknown,
): ArrayFault | undefined {
  const custom = prop.customType;
  if (!(custom instanceof ArrayType) || !Array.isArray(value) || value.length === 0) return undefined;
  let back: unknown[] | undefined;
  try {
    back = readBack(custom, platform, dialect, value);
  } catch {
    return undefined;
  }
  if (back !== undefined && back.length === value.length && back.every((item, i) => item === value[i]))
    return undefined;
  // The item to name. PostgreSQL writes each item on its own: the first that does not come back
  // alone (a blank item makes the whole literal malformed). Elsewhere an item is lost in its list
  // (a trailing ''): the first that differs.
  const alone =
    dialect !== 'postgresql'
      ? -1
      : value.findIndex((item) => {
          const single = readBack(custom, platform, dialect, [item]);
          return single === undefined || single.length !== 1 || single[0] !== item;
        });
  const differs = value.findIndex((item, i) => back?.[i] !== item);
  const index = alone >= 0 ? alone : differs >= 0 ? differs : value.length - 1;
  const single = alone >= 0 ? readBack(custom, platform, dialect, [value[index]]) : back;
  return {
    index,
    reason: reasonFor(dialect, alone >= 0 ? [value[index]] : value, single, alone >= 0 ? 0 : index),
  };
}

/** A served field as `checkArrayValues` reads it: its MikroORM property, JSON name and embedded fields. */
export interface ArrayField {
  readonly prop: EntityProperty;
  readonly field: { readonly name: string };
  readonly nested?: ReadonlyMap<string, ArrayField>;
}

/** The first array item among these (property-named) values that would read back changed, as a field error. */
function faultIn(
  fields: Iterable<ArrayField>,
  dialect: Dialect,
  platform: Platform,
  values: Readonly<Record<string, unknown>>,
  prefix: string,
): FieldError | undefined {
  for (const { prop, field, nested } of fields) {
    const value = values[prop.name];
    if (nested !== undefined) {
      // An inline embeddable's arrays have columns of their own; an `object: true` one is one
      // JSON value, whose arrays are JSON arrays.
      if (prop.object === true || value === null || typeof value !== 'object' || Array.isArray(value))
        continue;
      const inner = faultIn(
        nested.values(),
        dialect,
        platform,
        value as Record<string, unknown>,
        `${prefix}${field.name}.`,
      );
      if (inner !== undefined) return inner;
      continue;
    }
    const fault = arrayFault(prop, dialect, platform, value);
    if (fault !== undefined)
      return { path: `${prefix}${field.name}.${fault.index}`, message: `${fault.reason}.` };
  }
  return undefined;
}

/**
 * Refuses (422, naming the field and item) a written array MikroORM would read back changed: the
 * answer, later reads and MikroORM's own would not show what the client sent. Arrays of inline
 * embedded values too.
 */
export function checkArrayValues(
  fields: readonly ArrayField[],
  dialect: Dialect,
  platform: Platform,
  values: Readonly<Record<string, unknown>>,
): void {
  const fault = faultIn(fields, dialect, platform, values, '');
  if (fault !== undefined) throw ApiError.validation([fault], 'An array item would not be stored as sent.');
}
