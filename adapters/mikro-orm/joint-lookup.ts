/**
 * Rows of several models read by primary key in one statement. Each model's lookup becomes a
 * derived table left-joined to a one-row table, so the statement always answers one row, with
 * NULLs where a key matches nothing:
 *
 *   select kma_t0.`id` as `kma_0_0`, … from (select 1 as kma_one) as kma
 *   left join (select … from users as e0 where e0.id = ?) as kma_t0 on 1 = 1
 *   left join (select … from posts as e0 where e0.id = ?) as kma_t1 on 1 = 1
 *
 * An authenticated route reads its caller and its record this way: one snapshot and one round trip
 * on PostgreSQL, and on SQLite the cost of one lookup instead of two (4.2 µs against 7.0 µs with
 * better-sqlite3 on the benchmark's tables; bench/NOTES.md).
 */
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { AnyMikroORM } from './describe.js';
import { type ModelPlan, ROOT_ALIAS } from './plan.js';
import type { StatementRunner } from './statements.js';

type Row = Record<string, unknown>;

/** Reads one row per model, given the encoded keys in the same order; undefined where none. */
export type JointLookup = (session: EntityManager, keys: readonly unknown[]) => Promise<(Row | undefined)[]>;

// A value no caller passes: its position among the parameters is where the key goes.
const SENTINEL = '\u0000koa-model-api:joint-lookup\u0000';

interface Part {
  readonly sql: string;
  readonly params: readonly unknown[];
  readonly slot: number;
}

/** One model's lookup by primary key, without its `limit` (a key matches one row at most). */
function partOf(orm: AnyMikroORM, plan: ModelPlan): Part | undefined {
  const em = orm.em.fork() as unknown as SqlEntityManager;
  const { sql, params } = em
    .createQueryBuilder(plan.entity as never, ROOT_ALIAS)
    .select(plan.select as never)
    .where({ [plan.primary.field.name]: SENTINEL } as never)
    .toQuery();
  const slots = params.flatMap((param, index) => (param === SENTINEL ? [index] : []));
  if (slots.length !== 1) return undefined;
  return { sql, params, slot: slots[0] as number };
}

/**
 * The joint lookup of these models; undefined when one cannot take part (MikroORM filters apply,
 * the key is converted for the database, or its column names cannot be aliased) and null when the
 * runner cannot tell the column names in this session (it would hand the query to MikroORM): ask
 * again in another session.
 */
export async function prepareJointLookup(
  orm: AnyMikroORM,
  plans: readonly ModelPlan[],
  runner: StatementRunner,
  session: EntityManager,
): Promise<JointLookup | undefined | null> {
  if (plans.some((plan) => plan.filtered)) return undefined;
  const parts: Part[] = [];
  const columns: string[][] = [];
  for (const plan of plans) {
    const part = partOf(orm, plan);
    if (part === undefined) return undefined;
    const probe = part.params.map((param, index) => (index === part.slot ? null : param));
    const names = await runner.columns(session, part.sql, probe);
    if (names === undefined) return null;
    // A name the outer select cannot address on its own (repeated, or with a dot) rules the model out.
    if (new Set(names).size !== names.length || names.some((name) => name.includes('.'))) return undefined;
    parts.push(part);
    columns.push(names);
  }
  const platform = orm.em.getPlatform();
  const quote = (name: string): string => platform.quoteIdentifier(name);
  const selected = columns.flatMap((names, i) =>
    names.map((name, j) => `kma_t${i}.${quote(name)} as ${quote(`kma_${i}_${j}`)}`),
  );
  const joins = parts.map((part, i) => `left join (${part.sql}) as kma_t${i} on 1 = 1`);
  const sql = `select ${selected.join(', ')} from (select 1 as kma_one) as kma ${joins.join(' ')}`;
  const template = parts.flatMap((part) => part.params);
  const offsets: number[] = [];
  let offset = 0;
  for (const part of parts) {
    offsets.push(offset + part.slot);
    offset += part.params.length;
  }
  const aliases = columns.map((names, i) => names.map((_, j) => `kma_${i}_${j}`));
  const driver = orm.em.getDriver();
  return async (session, keys) => {
    const values = template.slice();
    for (let i = 0; i < offsets.length; i++) values[offsets[i] as number] = keys[i];
    const row = await runner.get(session, sql, values);
    const rows: (Row | undefined)[] = [];
    for (let i = 0; i < plans.length; i++) {
      const plan = plans[i] as ModelPlan;
      const names = columns[i] as string[];
      const from = aliases[i] as string[];
      const own: Row = {};
      for (let j = 0; j < names.length; j++) own[names[j] as string] = row?.[from[j] as string];
      const mapped = driver.mapResult(own, plan.meta) as Row | null;
      // A primary key is never NULL: a NULL one is the left join finding nothing.
      rows.push(mapped == null || mapped[plan.primary.field.name] == null ? undefined : mapped);
    }
    return rows;
  };
}
