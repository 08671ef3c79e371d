/** A property's column type as MikroORM holds it (`varchar(5)`, `float(7,2)`, `int(11) unsigned`), read in one place. */
import type { EntityProperty } from '@mikro-orm/core';

/** The parts of a column type the adapter reads. */
export interface ColumnType {
  /** The type's name, lower-cased: `varchar`, `double precision`. */
  readonly base: string;
  /** Its first argument: a length, a precision, a display width. */
  readonly size?: number;
  /** Its second argument, when it has one (`float(7,2)`, `numeric(10,2)`). */
  readonly scale?: number;
  /** The MySQL/MariaDB modifiers after it, lower-cased (`unsigned`, `zerofill`), space-separated. */
  readonly modifiers: string;
}

const COLUMN =
  /^\s*([a-z][a-z0-9 ]*?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?((?:\s+(?:unsigned|signed|zerofill))*)\s*$/i;

/** The property's (first) column type, or undefined when it has none or it reads as none of these forms. */
export function columnTypeOf(prop: EntityProperty): ColumnType | undefined {
  const parts = COLUMN.exec(prop.columnTypes?.[0] ?? '');
  if (parts === null) return undefined;
  return {
    base: (parts[1] as string).toLowerCase(),
    ...(parts[2] === undefined ? {} : { size: Number(parts[2]) }),
    ...(parts[3] === undefined ? {} : { scale: Number(parts[3]) }),
    modifiers: (parts[4] ?? '').trim().toLowerCase(),
  };
}
