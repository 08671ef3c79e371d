/**
 * Counts the SQL statements a contender runs, at its database driver, so that every contender is
 * counted the same way whatever sits above the driver (MikroORM, knex, hand-written SQL). A MikroORM
 * logger or `onQuery` hook would not do: the framework's adapter steps aside from its own SQL path
 * while one is set (adapters/mikro-orm/statements.ts), so the count would change what it counts.
 * Counted: on better-sqlite3 each run of a prepared statement (`run`, `get`, `all`, `iterate`,
 * transaction control included) and each `exec`; on pg each `Client.query` (a pool's `query` runs
 * one on a pooled client). The wrappers are in place only while the runner counts (its probe of a
 * few requests after each measured run): a wrapped call costs the fastest contenders several per
 * cent of their throughput, so measured runs call the driver directly.
 */
import { createRequire } from 'node:module';
import { sqliteFile } from './env.js';

type Method = (this: unknown, ...args: unknown[]) => unknown;

let statements = 0;

/** Statements run by the process so far. */
export function statementCount(): number {
  return statements;
}

/** A driver method, unwrapped and wrapped. */
interface Counted {
  readonly target: Record<string, unknown>;
  readonly name: string;
  readonly original: Method;
  readonly wrapped: Method;
}

const counted: Counted[] = [];

/** Prepares the counting wrapper of `target[name]` (installed by `setCounting(true)`). */
function count(target: Record<string, unknown>, name: string): void {
  const original = target[name] as Method;
  const wrapped = function counted(this: unknown, ...args: unknown[]): unknown {
    statements++;
    return original.apply(this, args);
  };
  counted.push({ target, name, original, wrapped });
}

/** Puts the counting wrappers in place, or the driver's own methods back. */
export function setCounting(on: boolean): void {
  for (const { target, name, original, wrapped } of counted) target[name] = on ? wrapped : original;
}

/**
 * Prepares the wrappers of the driver of the database the URL names. Modules are shared by every
 * library of the process (one copy of each driver is installed), so the ORM's statements are
 * counted too.
 */
export function countStatements(databaseUrl: string): void {
  const require = createRequire(import.meta.url);
  if (sqliteFile(databaseUrl) !== undefined) {
    const Database = require('better-sqlite3') as typeof import('better-sqlite3');
    // Statements are instances of a native class the module does not export: reach its prototype through one.
    const scratch = new Database(':memory:');
    const statement = Object.getPrototypeOf(scratch.prepare('select 1')) as Record<string, unknown>;
    scratch.close();
    for (const name of ['run', 'get', 'all', 'iterate']) count(statement, name);
    count(Database.prototype as unknown as Record<string, unknown>, 'exec');
  } else {
    const pg = require('pg') as typeof import('pg');
    count(pg.Client.prototype as unknown as Record<string, unknown>, 'query');
  }
}
