/**
 * Which served tables the database lacks: readiness fails while they are missing (migrations not
 * run yet, a database dropped and created again empty), since every route on them would be a 500.
 * One statement per probe, asking only for the served names.
 */
import type { AnyMikroORM } from './describe.js';
import { dialectOf, quoteName } from './dialect.js';
import type { ModelPlan } from './plan.js';

/** A served table: its schema when the entity names one, and its name. */
interface Served {
  readonly schema: string | undefined;
  readonly table: string;
}

function servedTables(plans: Iterable<ModelPlan>): Served[] {
  const tables = new Map<string, Served>();
  for (const { meta } of plans) {
    const schema = meta.schema !== undefined && meta.schema !== '*' ? meta.schema : undefined;
    tables.set(`${schema ?? ''}.${meta.tableName}`, { schema, table: meta.tableName });
  }
  return [...tables.values()];
}

/** The served tables the database does not have, by name (none on a dialect it cannot ask). */
export async function missingTables(orm: AnyMikroORM, plans: Iterable<ModelPlan>): Promise<string[]> {
  const dialect = dialectOf(orm.em.getPlatform());
  const served = servedTables(plans);
  if (served.length === 0 || dialect === 'other') return [];
  const connection = orm.em.getConnection();
  const label = ({ schema, table }: Served) => (schema === undefined ? table : `${schema}.${table}`);
  if (dialect === 'postgresql') {
    // to_regclass resolves a name as queries do (search_path, views, materialized views, foreign tables).
    const names = served.map(
      (one) =>
        (one.schema === undefined ? '' : `${quoteName(dialect, one.schema)}.`) +
        quoteName(dialect, one.table),
    );
    const columns = names.map((_, index) => `to_regclass(?) is null as m${index}`).join(', ');
    const row = (await connection.execute(`select ${columns}`, names, 'get')) as Record<string, unknown>;
    return served.filter((_, index) => row[`m${index}`] === true).map(label);
  }
  if (dialect === 'mysql') {
    const rows = (await connection.execute(
      'select lower(table_schema) as s, lower(table_name) as t, table_schema = database() as current from information_schema.tables where table_schema = database() or table_schema in (?)',
      [[...new Set(served.map((one) => one.schema ?? ''))]],
    )) as { s: string; t: string; current: number | string }[];
    const present = new Set(rows.map((row) => `${row.s}.${row.t}`));
    const current = new Set(rows.filter((row) => Number(row.current) === 1).map((row) => row.t));
    return served
      .filter(({ schema, table }) =>
        schema === undefined
          ? !current.has(table.toLowerCase())
          : !present.has(`${schema}.${table}`.toLowerCase()),
      )
      .map(label);
  }
  // SQLite: names compare without case; an attached database's tables (an entity `schema`) are not listed.
  const rows = (await connection.execute(
    "select lower(name) as name from sqlite_master where type in ('table', 'view')",
  )) as {
    name: string;
  }[];
  const present = new Set(rows.map((row) => row.name));
  return served
    .filter(({ schema, table }) => schema === undefined && !present.has(table.toLowerCase()))
    .map(label);
}
