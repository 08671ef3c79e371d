/**
 * Writes that skip MikroORM's unit of work where it would add nothing: one `INSERT … RETURNING`,
 * `UPDATE … RETURNING` or `DELETE` statement instead of load, change set, BEGIN, statement, COMMIT
 * and reload (bench/NOTES.md, "Figures behind code comments": direct writes).
 *
 * A model qualifies only when the unit of work would run nothing but that statement: no lifecycle
 * hooks, no `onCreate`/`onUpdate`, no version or concurrency-check column, no property accessors,
 * no constructor parameters, no inheritance, no embeddables, no MikroORM filters; updates also need
 * no one-to-one whose old target MikroORM removes as an orphan, and no JSON value `em.assign` would
 * merge into the stored one (`assign.mergeObjectProperties`); deletes no one-to-one sides, orphan
 * removal or cascaded removals to follow. Event subscribers are checked on
 * every write: with any subscriber registered, the unit of work runs. Everything else takes the
 * unit of work as before, so hooks, cascades and subscribers behave as in any MikroORM application.
 */

import type { EntityManager } from '@mikro-orm/core';
import { type EntityMetadata, type EntityProperty, JsonType, ReferenceKind } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { storedProperties } from './describe.js';
import type { ModelPlan } from './plan.js';
import { missingValues } from './server-values.js';
import type { StatementRunner } from './statements.js';

type Row = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: internal bridge to MikroORM's generic signatures
type AnyEntity = any;

/** Which writes of a model may skip the unit of work, and why not when they may not. */
export interface DirectWrites {
  readonly insert: boolean;
  readonly update: boolean;
  readonly delete: boolean;
  /** The database returns written rows (`RETURNING`): no reload after an insert or update. */
  readonly returning: boolean;
  /** The columns to return, in the plan's field order. */
  readonly columns: readonly string[];
  /** The class builds its own default values (field initialisers): an insert runs the constructor for them. */
  readonly initialisers: boolean;
  /** Fields an insert must have (not nullable, no default, not generated), checked as MikroORM's unit of work does. */
  readonly required: readonly string[];
  /** Why writes keep the unit of work, for debugging; undefined when every kind qualifies. */
  readonly reason: string | undefined;
}

function hasHooks(meta: EntityMetadata): boolean {
  return Object.values(meta.hooks ?? {}).some((list) => Array.isArray(list) && list.length > 0);
}

/**
 * Properties whose reads or writes run user code on the entity. MikroORM replaces any other
 * accessor of a mapped property with its own change-tracking setter, so its metadata tells them all.
 */
function hasAccessors(meta: EntityMetadata): boolean {
  return meta.props.some((prop) => prop.getter || prop.setter || prop.accessor !== undefined);
}

/** What the unit of work would do besides the statement itself, for every kind of write. */
function commonObstacle(plan: ModelPlan): string | undefined {
  const { meta } = plan;
  if (plan.filtered) return 'MikroORM filters apply';
  if (hasHooks(meta)) return 'lifecycle hooks';
  if (meta.versionProperty !== undefined || meta.props.some((prop) => prop.version || prop.concurrencyCheck))
    return 'optimistic locking';
  if (meta.root !== meta || meta.inheritanceType !== undefined || meta.discriminatorColumn !== undefined)
    return 'inheritance';
  if (meta.props.some((prop) => prop.kind === ReferenceKind.EMBEDDED || prop.embedded !== undefined))
    return 'embeddables';
  if (hasAccessors(meta)) return 'property accessors';
  // The SQLite bigint read casts in SQL; a RETURNING list cannot.
  if (plan.select.some((item) => typeof item !== 'string')) return 'computed select';
  if (plan.fields.some((field) => field.prop.fieldNames.length !== 1)) return 'composite columns';
  return undefined;
}

/**
 * Whether changing a one-to-one makes MikroORM remove the record it pointed to (`orphanRemoval` on
 * the owning side, or on the target's inverse side): `em.assign` schedules it, a flush deletes it.
 */
function removesOrphans(meta: EntityMetadata): boolean {
  return meta.props.some(
    (prop) =>
      prop.kind === ReferenceKind.ONE_TO_ONE &&
      prop.owner &&
      (prop.orphanRemoval === true ||
        (prop.inversedBy !== undefined &&
          prop.targetMeta?.properties[prop.inversedBy]?.orphanRemoval === true)),
  );
}

/**
 * Whether a written field may hold a plain object, which `em.assign` merges into the stored one
 * when MikroORM's `assign.mergeObjectProperties` is on: a JSON property, or a type whose JSON form
 * is its value.
 */
function holdsObjects(plan: ModelPlan): boolean {
  return plan.fields.some(
    (field) => field.field.type === 'json' || field.prop.customType instanceof JsonType,
  );
}

/** The mapped columns `new Class()` sets (field initialisers such as `age = 18`), or 'unsafe'. */
function initialisedColumns(meta: EntityMetadata): ReadonlySet<string> | 'unsafe' {
  if ((meta.constructorParams?.length ?? 0) > 0) return 'unsafe';
  let instance: object;
  try {
    instance = new (meta.class as new () => object)();
  } catch {
    return 'unsafe';
  }
  const columns = new Set(storedProperties(meta).map((prop) => prop.name as string));
  const found = new Set<string>();
  for (const [name, value] of Object.entries(instance)) {
    if (!columns.has(name) || value === undefined) continue;
    // A reference or a collection built by the constructor needs the unit of work to resolve it.
    if (value !== null && typeof value === 'object' && !(value instanceof Date)) return 'unsafe';
    found.add(name);
  }
  return found;
}

/** Without RETURNING, a new row is read back by its key: the key must be known before or from the insert. */
function keyUnknown(plan: ModelPlan, returning: boolean, initialised: ReadonlySet<string>): boolean {
  const key = plan.primary.prop;
  return (
    !returning && key.autoincrement !== true && !initialised.has(key.name) && plan.primary.field.generated
  );
}

/** What the ORM's options change about writes, read once per adapter. */
export interface WriteOptions {
  /** The database returns written rows (`RETURNING`). */
  readonly returning: boolean;
  /** MikroORM's `assign.mergeObjectProperties`: `em.assign` merges an object into the stored one. */
  readonly mergeObjectProperties: boolean;
}

/** Decides once per model which writes may skip the unit of work. */
export function planDirectWrites(plan: ModelPlan, options: WriteOptions): DirectWrites {
  const { returning } = options;
  const { meta } = plan;
  const columns = plan.fields.map((field) => field.prop.fieldNames[0] as string);
  const common = commonObstacle(plan);
  const initialised = common === undefined ? initialisedColumns(meta) : new Set<string>();
  const insertObstacle =
    common ??
    (meta.props.some((prop) => prop.onCreate !== undefined) ? 'onCreate' : undefined) ??
    (initialised === 'unsafe' ? 'constructor' : undefined) ??
    (keyUnknown(plan, returning, initialised as ReadonlySet<string>)
      ? 'key generated by the database'
      : undefined);
  const updateObstacle =
    common ??
    (meta.props.some((prop) => prop.onUpdate !== undefined) ? 'onUpdate' : undefined) ??
    (removesOrphans(meta) ? 'orphan removal' : undefined) ??
    (options.mergeObjectProperties && holdsObjects(plan) ? 'assign.mergeObjectProperties' : undefined);
  // A collection MikroORM does not cascade a removal to is not loaded on delete: the unit of work
  // sends no statement for its links (the pivot's or the children's foreign keys decide, as for a
  // direct delete; the conformance case many-to-many-delete-unlinks runs both paths).
  const followsRelations = meta.props.some(
    (prop: EntityProperty) =>
      prop.kind === ReferenceKind.ONE_TO_ONE ||
      prop.orphanRemoval === true ||
      (prop.cascade ?? []).some((cascade) => cascade === 'remove' || cascade === 'all'),
  );
  const deleteObstacle = common ?? (followsRelations ? 'relations to follow' : undefined);
  const reasons = [insertObstacle, updateObstacle, deleteObstacle].filter((r) => r !== undefined);
  return {
    insert: insertObstacle === undefined,
    update: updateObstacle === undefined,
    delete: deleteObstacle === undefined,
    returning,
    columns,
    initialisers: initialised !== 'unsafe' && initialised.size > 0,
    required: plan.fields.filter((field) => field.field.required).map((field) => field.field.name),
    reason: reasons.length === 0 ? undefined : [...new Set(reasons)].join(', '),
  };
}

/** False while an event subscriber is registered: subscribers expect the unit of work's events. */
export function quietEvents(session: EntityManager): boolean {
  return session.getEventManager().getSubscribers().size === 0;
}

// No table alias: MariaDB refuses one on INSERT.
function queryBuilder(session: EntityManager, plan: ModelPlan) {
  return (session as unknown as SqlEntityManager).createQueryBuilder(plan.entity as AnyEntity);
}

/** The values an insert stores: the class's own initial values, then the given ones (as `em.create` does). */
function insertValues(plan: ModelPlan, direct: DirectWrites, values: Row): Row {
  if (!direct.initialisers) return values;
  const instance = new (plan.meta.class as new () => Row)();
  const initial: Row = {};
  for (const prop of storedProperties(plan.meta)) {
    const value = instance[prop.name];
    if (value !== undefined) initial[prop.name] = value;
  }
  return { ...initial, ...values };
}

/**
 * The values an insert stores, or a 422 naming a missing required one. The unit of work refuses it
 * before any SQL, naming the first in metadata order (ChangeSetPersister.validateRequired); so does
 * this path, before its transaction too, so that both modes answer alike.
 */
export function prepareInsert(plan: ModelPlan, direct: DirectWrites, values: Row): Row {
  const stored = insertValues(plan, direct, values);
  const missing = direct.required.find((name) => stored[name] === undefined);
  if (missing !== undefined) {
    const prop = plan.byName.get(missing)?.prop.name ?? missing;
    throw missingValues(plan.meta, [{ prop, json: missing }]);
  }
  return stored;
}

/**
 * Inserts one row of `prepareInsert`'s values; resolves to the stored row (property names) when the
 * database returns it, or to the new primary key when it cannot (MySQL, MariaDB), for the caller
 * to read back.
 */
export async function directInsert(
  session: EntityManager,
  plan: ModelPlan,
  direct: DirectWrites,
  stored: Row,
  runner: StatementRunner,
): Promise<{ row: Row } | { id: unknown }> {
  const qb = queryBuilder(session, plan).insert(stored as AnyEntity);
  if (direct.returning) {
    const { sql, params } = qb.returning(direct.columns as AnyEntity).toQuery();
    const row = await runner.get(session, sql, params);
    if (row == null) throw new Error(`${plan.description.name}: the insert returned no row.`);
    return { row: mapped(session, plan, row) };
  }
  // Without RETURNING the new key comes from the driver's insert id, which only MikroORM's path reports.
  const result = (await qb.execute('run')) as { insertId?: unknown };
  const key = plan.primary.field.name;
  return { id: stored[key] !== undefined ? stored[key] : result.insertId };
}

/** Updates one row by key: the stored row, `undefined` when no row has the key, or `true` when the caller must read it back. */
export async function directUpdate(
  session: EntityManager,
  plan: ModelPlan,
  direct: DirectWrites,
  key: Row,
  values: Row,
  runner: StatementRunner,
): Promise<Row | undefined | true> {
  const qb = queryBuilder(session, plan)
    .update(values as AnyEntity)
    .where(key as AnyEntity);
  if (direct.returning) {
    const { sql, params } = qb.returning(direct.columns as AnyEntity).toQuery();
    const row = await runner.get(session, sql, params);
    return row == null ? undefined : mapped(session, plan, row);
  }
  // MySQL counts changed rows, not matched ones: whether the row exists is told by reading it back.
  const { sql, params } = qb.toQuery();
  await runner.run(session, sql, params);
  return true;
}

/** Deletes one row by key; false when there was none. */
export async function directDelete(
  session: EntityManager,
  plan: ModelPlan,
  key: Row,
  runner: StatementRunner,
): Promise<boolean> {
  const { sql, params } = queryBuilder(session, plan)
    .delete()
    .where(key as AnyEntity)
    .toQuery();
  return (await runner.run(session, sql, params)).affectedRows > 0;
}

/** A returned row (column names) as MikroORM maps it (property names). */
function mapped(session: EntityManager, plan: ModelPlan, row: Row): Row {
  return session.getDriver().mapResult(row as AnyEntity, plan.meta) as Row;
}
