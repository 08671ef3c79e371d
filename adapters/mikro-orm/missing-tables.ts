/**
 * Which served tables the database lacks: readiness fails while they are missing (migrations not
 * run yet, a database dropped and created again empty), since every route on them would be a 500.
 */
import type { AnyMikroORM } from './describe.js';
import { dialectOf } from './dialect.js';
import type { ModelPlan } from './plan.js';

/** The tables of the current database (schema-qualified on PostgreSQL), lower-cased on MySQL. */
const TABLES_SQL = {
  sqlite: "select name from sqlite_master where type in ('table', 'view')",
  postgresql:
    "select table_schema || '.' || table_name as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema')",
  mysql: 'select lower(table_name) as name from information_schema.tables where table_schema = database()',
} as const;

/** The served tables the database does not have, by name (none on a dialect it cannot list). */
export async function missingTables(orm: AnyMikroORM, plans: Iterable<ModelPlan>): Promise<string[]> {
  const dialect = dialectOf(orm.em.getPlatform());
  if (dialect === 'other') return [];
  const rows = (await orm.em.getConnection().execute(TABLES_SQL[dialect])) as { name: string }[];
  const present = new Set(rows.map((row) => row.name));
  const missing = new Set<string>();
  for (const plan of plans) {
    const { tableName, schema } = plan.meta;
    if (dialect === 'mysql') {
      if (!present.has(tableName.toLowerCase())) missing.add(tableName);
    } else if (dialect === 'postgresql') {
      const qualified = schema !== undefined && schema !== '*';
      const found = qualified
        ? present.has(`${schema}.${tableName}`)
        : [...present].some((name) => name.endsWith(`.${tableName}`));
      if (!found) missing.add(qualified ? `${schema}.${tableName}` : tableName);
    } else if (!present.has(tableName)) missing.add(tableName);
  }
  return [...missing];
}
