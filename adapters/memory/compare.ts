/**
 * Ordering and equality of stored values, per field type, and `$like` / `$ilike` matching. Strings
 * compare by code point (PostgreSQL's "C" collation): deterministic and locale-independent.
 */
import { parseLikePattern } from '../../lib/query/like-pattern.js';
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

const ONE = Symbol('one character');
const ANY = Symbol('any run');
type Unit = string | typeof ONE | typeof ANY;

/** A code point folded for `$ilike`: Unicode lower case, as PostgreSQL's ILIKE compares. */
function fold(char: string): string {
  return char.toLowerCase();
}

/**
 * Compiles a `$like` / `$ilike` pattern (lib/query/like-pattern.ts) into a test of a text. It
 * walks text and pattern by code point, going back only to the last `%` on a mismatch: time is
 * at most their lengths multiplied, never the exponential backtracking a regular expression
 * like `^.*a.*a.*b$` can take.
 */
export function likeMatcher(pattern: string, ignoreCase: boolean): (text: string) => boolean {
  const units: Unit[] = [];
  for (const token of parseLikePattern(pattern)) {
    if (token.kind === 'any') units.push(ANY);
    else if (token.kind === 'one') units.push(ONE);
    else for (const char of token.text) units.push(ignoreCase ? fold(char) : char);
  }
  return (text) => {
    const chars = ignoreCase ? Array.from(text, fold) : [...text];
    let i = 0;
    let j = 0;
    let star = -1;
    let resume = 0;
    while (i < chars.length) {
      const unit = units[j];
      if (unit === ANY) {
        star = j++;
        resume = i;
      } else if (unit !== undefined && (unit === ONE || unit === chars[i])) {
        i++;
        j++;
      } else if (star >= 0) {
        j = star + 1;
        i = ++resume;
      } else return false;
    }
    while (units[j] === ANY) j++;
    return j === units.length;
  };
}
