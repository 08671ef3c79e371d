/**
 * The digits after the seconds' point a timestamp or time column keeps, per dialect. A timestamp
 * column without a precision keeps microseconds on PostgreSQL and whole seconds on MySQL/MariaDB;
 * `timestamp(n)`, `datetime(n)`, `time(n)` keep n (PostgreSQL rounds the rest, MariaDB cuts it);
 * a `time` keeps 6 on PostgreSQL and none on MySQL/MariaDB. SQLite keeps the value as given: a
 * time's text whole, a timestamp as the JS Date MikroORM holds it, to the millisecond — which also
 * bounds what any timestamp keeps through MikroORM (spec/adapters/mikro-orm/fidelity/exact-keys.test.ts).
 */
import type { EntityProperty } from '@mikro-orm/core';
import type { Dialect } from './dialect.js';

/** The digits of a second a JS Date holds. */
const DATE_DIGITS = 3;

/** The first column type of a property, lower-cased ('' when MikroORM has none). */
function columnOf(prop: EntityProperty): string {
  return String(prop.columnTypes?.[0] ?? '').toLowerCase();
}

/** The precision a column type names (`timestamptz(3)`, `time(0) with time zone`), if any. */
function precisionOf(column: string): number | undefined {
  const precision = /\((\d+)\)/.exec(column)?.[1];
  return precision === undefined ? undefined : Number(precision);
}

/**
 * The digits after the point a value of this `datetime` property keeps once stored and read back
 * through MikroORM: at most a JS Date's 3, and 0 in a column of another type (a `date` keeps none).
 */
export function timestampDigitsOf(prop: EntityProperty, dialect: Dialect): number {
  if (dialect === 'sqlite') return DATE_DIGITS;
  const column = columnOf(prop);
  if (!/^(timestamp|timestamptz|datetime)\b/.test(column)) return 0;
  return Math.min(precisionOf(column) ?? (dialect === 'postgresql' ? 6 : 0), DATE_DIGITS);
}

/** The digits after the point a `time` property's column keeps, or undefined where it keeps the text given (SQLite). */
export function timeDigitsOf(prop: EntityProperty, dialect: Dialect): number | undefined {
  if (dialect === 'sqlite') return undefined;
  const column = columnOf(prop);
  if (!/^(time|timetz)\b/.test(column)) return undefined;
  return precisionOf(column) ?? (dialect === 'postgresql' ? 6 : 0);
}
