/**
 * A test helper for "no N+1" checks on SQLite: counts the SQL statements better-sqlite3 runs while
 * a piece of work runs. It counts what reaches the database whichever way a query was built (the
 * adapter's prepared statements or MikroORM's query builder), so a page that loaded its relations
 * row by row would show it.
 */
import Database from 'better-sqlite3';

type Run = (this: unknown, ...args: unknown[]) => unknown;

/** The methods that run a prepared statement. */
const RUNS = ['run', 'get', 'all', 'iterate'] as const;

/** Runs `work` and resolves with its result and how many statements ran meanwhile (in this process). */
export async function countStatements<T>(work: () => Promise<T>): Promise<{ result: T; statements: number }> {
  const probe = new Database(':memory:');
  const prototype = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, Run>;
  probe.close();
  const originals = RUNS.map((name) => [name, prototype[name] as Run] as const);
  let statements = 0;
  for (const [name, original] of originals) {
    prototype[name] = function counted(this: unknown, ...args: unknown[]) {
      statements += 1;
      return original.apply(this, args);
    };
  }
  try {
    const result = await work();
    return { result, statements };
  } finally {
    for (const [name, original] of originals) prototype[name] = original;
  }
}
