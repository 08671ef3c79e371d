/**
 * The digits a decimal column holds where the database refuses more, so that the API states and
 * checks them instead of passing on a database error. Measured on PostgreSQL 15 and MariaDB 10.11
 * (spec/adapters/mikro-orm/fidelity/writes.test.ts): both round a value to the column's scale,
 * half away from zero, then refuse it with more than `precision - scale` digits before the point
 * (`9999.995` does not fit `numeric(6,2)`); PostgreSQL also refuses more than 16383 digits after
 * the point, and 131072 before it in an unconstrained `numeric`. SQLite keeps any number.
 */
import type { EntityProperty, Platform } from '@mikro-orm/core';
import type { DecimalDigits } from '../../lib/types.js';
import { columnTypeOf } from './column-type.js';
import { dialectOf } from './dialect.js';

/** PostgreSQL's limits of any `numeric` input (`NUMERIC_WEIGHT_MAX`, `NUMERIC_DSCALE_MAX`). */
const POSTGRESQL_NUMERIC = { integer: 131072, fraction: 16383 } as const;

/** The precision of a MySQL/MariaDB `decimal` that names none. */
const MYSQL_DEFAULT_PRECISION = 10;

/** Column type names of an exact decimal. */
const DECIMAL_TYPES: ReadonlySet<string> = new Set(['numeric', 'decimal', 'dec', 'fixed']);

/**
 * The digits of the property's decimal column on this platform, or undefined where the database
 * does not bound them (SQLite) or the column is not a plain `numeric`/`decimal`.
 */
export function decimalDigitsOf(prop: EntityProperty, platform: Platform): DecimalDigits | undefined {
  const column = columnTypeOf(prop);
  if (column === undefined || !DECIMAL_TYPES.has(column.base)) return undefined;
  const { size: precision, scale = 0 } = column;
  switch (dialectOf(platform)) {
    case 'postgresql':
      if (precision === undefined) return POSTGRESQL_NUMERIC;
      // PostgreSQL 15 takes a scale above the precision (`numeric(2,5)`): values below 10^-3 there.
      return scale > precision
        ? undefined
        : { integer: precision - scale, scale, fraction: POSTGRESQL_NUMERIC.fraction };
    case 'mysql': {
      const digits = precision ?? MYSQL_DEFAULT_PRECISION;
      return scale > digits ? undefined : { integer: digits - scale, scale };
    }
    default:
      return undefined;
  }
}
