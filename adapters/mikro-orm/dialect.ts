/** The SQL family of a MikroORM platform, for the few places where dialects differ in meaning. */
import type { Platform } from '@mikro-orm/core';

/** The SQL family of a platform, for the few places where dialects differ in meaning. */
export type Dialect = 'sqlite' | 'mysql' | 'postgresql' | 'other';

/** The dialect of a MikroORM platform, judged by its class chain (`SqlitePlatform`, `MySqlPlatform`…). */
export function dialectOf(platform: Platform): Dialect {
  for (let proto = Object.getPrototypeOf(platform); proto !== null; proto = Object.getPrototypeOf(proto)) {
    const name = (proto as { constructor: { name: string } }).constructor.name;
    if (/sqlite/i.test(name)) return 'sqlite';
    if (/mysql|mariadb/i.test(name)) return 'mysql';
    if (/postgre/i.test(name)) return 'postgresql';
  }
  return 'other';
}

/** Whether a keyset position after a datetime key is read from the stored row: where columns keep finer than milliseconds. */
export function exactDatetimeKeyset(dialect: Dialect): boolean {
  return dialect === 'postgresql' || dialect === 'mysql';
}

/** A column or table name quoted for raw SQL: the dialect's quote character, doubled inside the name. */
export function quoteName(dialect: Dialect, name: string): string {
  const quote = dialect === 'mysql' ? '`' : '"';
  return `${quote}${name.replaceAll(quote, quote + quote)}${quote}`;
}
