/**
 * Single-row lookups by one field (`get` by key, `findBy`) with the SQL built once per field:
 * these run on every request that carries an id or a token, so they skip the query builder and
 * run as statements prepared once (statements.ts).
 */
import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { AnyMikroORM } from './describe.js';
import { type FieldPlan, type ModelPlan, ROOT_ALIAS } from './plan.js';
import type { StatementRunner } from './statements.js';

type Row = Record<string, unknown>;

/** Runs the lookup for one value in a session; resolves to the mapped row or undefined. */
export type Lookup = (session: EntityManager, value: unknown) => Promise<Row | undefined>;

// A value no caller passes: its position among the parameters is where the real value goes.
const SENTINEL = '\u0000koa-model-api:lookup\u0000';

/**
 * The lookup of `field`, or undefined when it cannot be prepared: MikroORM filters apply (they
 * depend on the session), or the value is converted for the database (the sentinel is not found).
 */
export function prepareLookup(
  orm: AnyMikroORM,
  plan: ModelPlan,
  field: FieldPlan,
  runner: StatementRunner,
): Lookup | undefined {
  if (plan.filtered) return undefined;
  const em = orm.em.fork() as unknown as SqlEntityManager;
  const { sql, params } = em
    .createQueryBuilder(plan.entity as never, ROOT_ALIAS)
    .select(plan.select as never)
    .where({ [field.field.name]: SENTINEL } as never)
    .limit(1)
    .toQuery();
  const slots = params.flatMap((param, index) => (param === SENTINEL ? [index] : []));
  if (slots.length !== 1) return undefined;
  const slot = slots[0] as number;
  const driver = orm.em.getDriver();
  return async (session, value) => {
    const values = [...params];
    values[slot] = value;
    // The runner picks the connection as MikroORM would: a replica under `preferReadReplicas`,
    // the primary inside a transaction or once the session wrote, so a request reads its own writes.
    const row = await runner.get(session, sql, values);
    return row == null ? undefined : (driver.mapResult(row, plan.meta) as Row);
  };
}
