/** Which number columns store single precision, whose values a driver hands back as nearby doubles. */
import { type EntityProperty, FloatType, type Platform } from '@mikro-orm/core';
import { columnTypeOf } from './column-type.js';
import { dialectOf } from './dialect.js';

/**
 * Whether the property's column stores single precision: PostgreSQL `real`/`float4`/`float(1..24)`,
 * MySQL/MariaDB `float`/`float4` (`float(25..53)` is a double there, `real` too). MikroORM's
 * `type: 'float'` makes such a column on both. SQLite keeps every REAL as a double, but a property that is single
 * elsewhere (`type: 'float'`, `real`) counts as single there too, so the API does not depend on the
 * database.
 */
export function isSinglePrecision(prop: EntityProperty, platform: Platform): boolean {
  const column = columnTypeOf(prop);
  if (column === undefined) return prop.customType instanceof FloatType;
  const { base, size: digits } = column;
  switch (dialectOf(platform)) {
    case 'postgresql':
      return (
        base === 'real' || base === 'float4' || (base === 'float' && digits !== undefined && digits <= 24)
      );
    case 'mysql':
      // `float(M,D)` is single whatever M; `float(p)` is single up to 24 bits.
      if (base === 'float4') return true;
      return base === 'float' && (digits === undefined || column.scale !== undefined || digits <= 24);
    default:
      return prop.customType instanceof FloatType || base === 'real' || base === 'float4';
  }
}
