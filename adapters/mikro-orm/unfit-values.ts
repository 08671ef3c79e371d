/**
 * Which written values a "does not fit its column" error is about when the database names no
 * column, as PostgreSQL does: it says only the type. For a too-long string (`value too long for
 * type character varying(20)`) every written string longer than its column is blamed; for an
 * out-of-range number (`integer out of range`, `numeric field overflow`) only the one written
 * value of that type that cannot fit it, since with two the error does not say which it was.
 */
import type { DriverException, EntityMetadata } from '@mikro-orm/core';
import type { ErrorContext } from './error-context.js';

/** The written strings longer than their column (of `length` characters, when the database says). */
export function tooLong(
  meta: EntityMetadata,
  values: Readonly<Record<string, unknown>>,
  length?: number,
): string[] {
  return Object.entries(values)
    .filter(([name, value]) => {
      const limit = meta.properties[name as keyof typeof meta.properties]?.length;
      if (length !== undefined && limit !== length) return false;
      return typeof value === 'string' && limit !== undefined && limit > 0 && value.length > limit;
    })
    .map(([name]) => name);
}

/** A column type whose range PostgreSQL enforces without naming the column that broke it. */
type RangeType =
  | { readonly kind: 'int2' | 'int4' | 'int8' }
  | { readonly kind: 'numeric'; readonly precision?: number; readonly scale?: number };

const INTEGER_TYPES: Readonly<Record<string, 'int2' | 'int4' | 'int8'>> = {
  smallint: 'int2',
  int2: 'int2',
  smallserial: 'int2',
  integer: 'int4',
  int: 'int4',
  int4: 'int4',
  serial: 'int4',
  bigint: 'int8',
  int8: 'int8',
  bigserial: 'int8',
};
const INTEGER_LIMITS = { int2: 2n ** 15n, int4: 2n ** 31n, int8: 2n ** 63n } as const;

/**
 * The type PostgreSQL's out-of-range error (22003) names in place of a column: `smallint out of
 * range`, `value "…" is out of range for type bigint`, `numeric field overflow` (its detail gives
 * the precision and scale).
 */
function reportedRange(error: DriverException): RangeType | undefined {
  if (error.code !== '22003') return undefined;
  const message = String(error.message ?? '');
  const integer =
    /\b(smallint|integer|bigint) out of range|out of range for type (smallint|integer|bigint)\b/.exec(
      message,
    );
  const kind = INTEGER_TYPES[integer?.[1] ?? integer?.[2] ?? ''];
  if (kind !== undefined) return { kind };
  if (!/numeric field overflow/.test(message)) return undefined;
  const typmod = /precision (\d+), scale (-?\d+)/.exec(
    String((error as { detail?: unknown }).detail ?? message),
  );
  return typmod === null
    ? { kind: 'numeric' }
    : { kind: 'numeric', precision: Number(typmod[1]), scale: Number(typmod[2]) };
}

/** The range type of a property's column (its explicit column type included), if it has one. */
function columnRange(meta: EntityMetadata, name: string): RangeType | undefined {
  const prop = meta.properties[name as keyof typeof meta.properties];
  const column = (prop?.columnTypes?.[0] ?? '').toLowerCase().trim();
  const base = column.replace(/\(.*$/, '').trim();
  const kind = INTEGER_TYPES[base];
  if (kind !== undefined) return { kind };
  if (base !== 'numeric' && base !== 'decimal') return undefined;
  const typmod = /\((\d+)\s*(?:,\s*(-?\d+))?\)/.exec(column);
  const precision = typmod === null ? prop?.precision : Number(typmod[1]);
  const scale = typmod === null ? prop?.scale : Number(typmod[2] ?? 0);
  return {
    kind: 'numeric',
    ...(precision === undefined ? {} : { precision }),
    ...(scale === undefined ? {} : { scale }),
  };
}

function integerValue(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) return BigInt(value.trim());
  return undefined;
}

/** A decimal value times 10^scale, rounded half away from zero as PostgreSQL rounds; undefined when not a plain decimal. */
function scaledDecimal(value: unknown, scale: number): bigint | undefined {
  let text =
    typeof value === 'string'
      ? value.trim()
      : typeof value === 'number' || typeof value === 'bigint'
        ? String(value)
        : '';
  if (/e/i.test(text)) {
    const number = Number(text);
    if (!Number.isFinite(number) || Math.abs(number) >= 1e21) return undefined;
    text = number.toFixed(Math.min(Math.max(scale + 1, 0), 100));
  }
  const match = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (match === null || scale < 0 || `${match[2]}${match[3] ?? ''}` === '') return undefined;
  const fraction = (match[3] ?? '').padEnd(scale + 1, '0');
  const magnitude =
    BigInt(`${match[2] || '0'}${fraction.slice(0, scale)}`) + (Number(fraction[scale]) >= 5 ? 1n : 0n);
  return match[1] === '-' ? -magnitude : magnitude;
}

/** Whether a value could be out of this column type's range (true when it cannot tell). */
function mayOverflow(range: RangeType, value: unknown): boolean {
  if (range.kind === 'numeric') {
    if (range.precision === undefined) return true;
    const scaled = scaledDecimal(value, range.scale ?? 0);
    if (scaled === undefined) return true;
    return (scaled < 0n ? -scaled : scaled) >= 10n ** BigInt(range.precision);
  }
  const integer = integerValue(value);
  if (integer === undefined) return true;
  const limit = INTEGER_LIMITS[range.kind];
  return integer >= limit || integer < -limit;
}

/**
 * For an out-of-range error that names a type but no column: the one written value whose column
 * has that type and that does not fit it. Two or more such values, or none, name no field: the
 * error does not say which one it was.
 */
export function outOfRange(error: DriverException, context: ErrorContext): string[] {
  const reported = reportedRange(error);
  if (reported === undefined) return [];
  const culprits = Object.entries(context.values ?? {}).filter(([name, value]) => {
    if (value === null || value === undefined) return false;
    const range = columnRange(context.meta, name);
    if (range === undefined || range.kind !== reported.kind) return false;
    if (range.kind === 'numeric' && reported.kind === 'numeric' && reported.precision !== undefined) {
      const sameType =
        (range.precision ?? reported.precision) === reported.precision &&
        (range.scale ?? reported.scale) === reported.scale;
      if (!sameType) return false;
    }
    return mayOverflow(range, value);
  });
  return culprits.length === 1 ? culprits.map(([name]) => name) : [];
}
