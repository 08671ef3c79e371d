/**
 * Ordering and equality of stored values, per field type, and SQL `LIKE` matching. Strings
 * compare by code point (PostgreSQL's "C" collation): deterministic and locale-independent.
 */
import type { FieldType } from '../../lib/types.js';

function sign(n: number | bigint): number {
  return n > 0 ? 1 : n < 0 ? -1 : 0;
}

function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Exact comparison of two decimal strings (`'-12.5'` < `'3'`), without going through floats. */
export function compareDecimal(a: string, b: string): number {
  const parse = (text: string): [bigint, number] => {
    const negative = text.startsWith('-');
    const [whole = '', fraction = ''] = text.replace(/^[-+]/, '').split('.');
    const digits = BigInt(`${whole || '0'}${fraction}`);
    return [negative ? -digits : digits, fraction.length];
  };
  const [da, sa] = parse(a);
  const [db, sb] = parse(b);
  const scale = Math.max(sa, sb);
  return sign(da * 10n ** BigInt(scale - sa) - db * 10n ** BigInt(scale - sb));
}

/** A canonical text of a JSON value (object keys sorted), so that equal values compare equal. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort(([x], [y]) => byCodePoint(x, y)))
      : item,
  );
}

/** Orders two non-null stored values of the same field: negative, zero or positive. */
export function compareStored(type: FieldType, a: unknown, b: unknown): number {
  switch (type) {
    case 'integer':
    case 'number':
      return sign((a as number) - (b as number));
    case 'bigint':
      return sign(BigInt(a as string) - BigInt(b as string));
    case 'decimal':
      return compareDecimal(a as string, b as string);
    case 'boolean':
      return sign(Number(a) - Number(b));
    case 'datetime':
      return sign((a as Date).getTime() - (b as Date).getTime());
    case 'json':
      return byCodePoint(canonicalJson(a), canonicalJson(b));
    case 'enum':
      return typeof a === 'number' && typeof b === 'number' ? sign(a - b) : byCodePoint(String(a), String(b));
    default:
      return byCodePoint(a as string, b as string);
  }
}

/** The text a `LIKE` is applied to: the value itself for strings, its usual text form otherwise. */
export function likeText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return canonicalJson(value);
  return String(value);
}

/**
 * Compiles a SQL `LIKE` pattern: `%` any run of characters, `_` exactly one character, a
 * backslash escapes the next character (PostgreSQL's and MySQL's default). Case-sensitive.
 */
export function likePattern(pattern: string): RegExp {
  let source = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string;
    if (char === '\\' && i + 1 < chars.length) {
      source += (chars[++i] as string).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    } else if (char === '%') source += '.*';
    else if (char === '_') source += '.';
    else source += char.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'su');
}
