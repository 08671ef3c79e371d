/**
 * Which models the adapter's own SQL path may serve. MikroORM's behaviour is the reference: reads
 * through `em.find` and its serializer, writes through the unit of work (plain-mode.ts). The fast
 * path (plain rows through prepared statements, single-statement writes) is an optimisation that
 * the differential suite (spec/adapters/mikro-orm/fidelity) proves equal to the plain path for
 * exactly the shapes accepted here; every other model is served plainly.
 *
 * It also checks once, at start, the MikroORM internals the fast path leans on (none of them is
 * documented API): when one is missing or has changed shape, the adapter warns once and serves
 * everything plainly, so an upgrade of MikroORM may cost speed, never correctness.
 */
import {
  BigIntType,
  DecimalType,
  type EntityManager,
  type EntityMetadata,
  type EntityProperty,
  EventType,
  JsonType,
  ReferenceKind,
} from '@mikro-orm/core';
import type { ListQuery, ModelClass, ModelDescription } from '../../lib/types.js';
import { type AnyMikroORM, isComputed } from './describe.js';
import { type Dialect, exactDatetimeKeyset } from './dialect.js';
import { hasBuiltInType } from './field-types.js';
import type { RuntimeFilters } from './runtime-filters.js';

/** What the obstacle check reads of a plan under construction. */
export interface FastPathCandidate {
  readonly description: ModelDescription;
  readonly meta: EntityMetadata;
  readonly dialect: Dialect;
  readonly filtered: boolean;
}

/** Why one property keeps its model off the fast path, or undefined when the fast path reads it as MikroORM does. */
function propertyObstacle(meta: EntityMetadata, prop: EntityProperty): string | undefined {
  const name = `${meta.className}.${prop.name}`;
  if (prop.kind === ReferenceKind.EMBEDDED || prop.embedded !== undefined) return `${name} is embedded`;
  if (isComputed(meta, prop)) return `${name} is computed (formula, getter or discriminator)`;
  if (prop.serializedName !== undefined) return `${name} has a serializedName`;
  if (prop.serializer !== undefined) return `${name} has a serializer`;
  if (prop.lazy === true) return `${name} is lazy`;
  if (prop.returning === true) return `${name} is set by the database (returning: true)`;
  if (prop.array === true) return `${name} is an array`;
  if (prop.kind !== ReferenceKind.SCALAR) {
    // A relation is read as its key: the key's own type decides.
    const key = prop.targetMeta?.getPrimaryProps()[0];
    return key === undefined ? `${name} has no single key` : keyObstacle(name, key);
  }
  if (!hasBuiltInType(prop)) return `${name} has a custom type`;
  const custom = prop.customType;
  if (custom instanceof BigIntType && custom.mode === 'number') return `${name} is a bigint in number mode`;
  if (custom instanceof DecimalType && custom.mode === 'number') return `${name} is a decimal in number mode`;
  if (custom !== undefined && custom.constructor.name === 'ArrayType') return `${name} is an array`;
  if (prop.runtimeType === 'number' && (custom instanceof DecimalType || custom instanceof BigIntType))
    return `${name} is read as a number`;
  return undefined;
}

function keyObstacle(name: string, key: EntityProperty): string | undefined {
  if (!hasBuiltInType(key)) return `${name} references a key of a custom type`;
  if (key.customType instanceof JsonType) return `${name} references a JSON key`;
  return undefined;
}

/** Why the model must be served plainly, or undefined when the fast path is proved for its shape. */
export function fastPathObstacle(
  orm: AnyMikroORM,
  plan: FastPathCandidate,
  runtime: RuntimeFilters,
): string | undefined {
  const { meta } = plan;
  if (plan.dialect === 'other') return 'the database is not SQLite, PostgreSQL or MySQL/MariaDB';
  if (plan.filtered) return 'MikroORM filters apply';
  if (meta.root !== meta || meta.discriminatorColumn !== undefined || meta.discriminatorValue !== undefined)
    return 'inheritance';
  if ((meta.inheritanceType ?? undefined) !== undefined && meta.inheritanceType !== 'sti')
    return 'inheritance';
  if (meta.serializedPrimaryKey !== undefined) return 'a serialized primary key';
  const hooks = LOAD_EVENTS.filter((event) => (meta.hooks[event]?.length ?? 0) > 0);
  if (hooks.length > 0)
    return `${meta.className} has ${hooks.join(' and ')} hooks, which MikroORM runs on every load`;
  // SQLite fills RETURNING before AFTER triggers run: the fast path's answer would miss their work.
  if (meta.hasTriggers === true || (meta.triggers ?? []).length > 0) return 'database triggers';
  const serialization = orm.config.get('serialization') as { forceObject?: boolean } | undefined;
  if (serialization?.forceObject === true) return 'serialization.forceObject';
  // MySQL/MariaDB hand a FLOAT over at 6 significant digits (123456.75 as 123457): MikroORM's unit
  // of work takes that value sent back as no change, and compares filters with the stored float,
  // where the fast path would store the rounded number and compare its own way.
  const single = plan.description.fields.find((field) => field.singlePrecision === true);
  if (plan.dialect === 'mysql' && single !== undefined)
    return `${meta.className}.${single.name} is a single-precision float on MySQL/MariaDB`;
  for (const prop of meta.props) {
    if (prop.kind === ReferenceKind.ONE_TO_MANY || prop.kind === ReferenceKind.MANY_TO_MANY) continue;
    // Its key is in the owner's table: MikroORM joins it on every load, the fast path does not.
    if (prop.kind === ReferenceKind.ONE_TO_ONE && !prop.owner)
      return `${meta.className}.${prop.name} is an inverse one-to-one`;
    // MikroORM joins a to-one relation whose target has filters on every load and applies them:
    // a row whose target they hide is left out (a NOT NULL key) or shows the relation as null.
    if (filteredTarget(orm, prop, runtime))
      return `${meta.className}.${prop.name} has a target with MikroORM filters`;
    const obstacle = propertyObstacle(meta, prop);
    if (obstacle !== undefined) return obstacle;
  }
  return undefined;
}

// Events MikroORM dispatches on every entity it loads (onInit also on every entity it creates).
const LOAD_EVENTS = [EventType.onInit, EventType.onLoad] as const;

/**
 * Why this session's MikroORM runs code of the application on every load of the entity, which the
 * fast path's plain rows would skip, or undefined. Entity hooks are fixed, but a subscriber may be
 * registered at any time (`em.getEventManager().registerSubscriber`), so this is asked per request;
 * MikroORM caches the answer until a subscriber is added.
 */
export function loadListenerObstacle(session: EntityManager, meta: EntityMetadata): string | undefined {
  const events = session.getEventManager();
  for (const event of LOAD_EVENTS)
    if (events.hasListeners(event, meta)) return `${meta.className} has ${event} listeners`;
  return undefined;
}

/** Whether MikroORM applies the filters of a to-one relation's target to every load of its owner. */
function filteredTarget(orm: AnyMikroORM, prop: EntityProperty, runtime: RuntimeFilters): boolean {
  if (prop.kind !== ReferenceKind.MANY_TO_ONE && prop.kind !== ReferenceKind.ONE_TO_ONE) return false;
  if (orm.config.get('autoJoinRefsForFilters') === false || prop.filters === false) return false;
  const target = prop.targetMeta;
  if (target === undefined) return false;
  return Object.keys(target.filters ?? {}).length > 0 || runtime.reaches(target);
}

/** What the per-query check reads of a plan: its fields by JSON name, and other models' plans. */
export interface QueryCandidate {
  readonly byName: ReadonlyMap<string, { readonly field: ModelDescription['fields'][number] }>;
  readonly dialect: Dialect;
  planOf(model: ModelClass): {
    readonly filtered: boolean;
    readonly byName: ReadonlyMap<string, { readonly field: ModelDescription['fields'][number] }>;
  };
}

/** The field a filter or sort path names, on this model or through a many-to-one (`author.name`). */
function fieldAt(plan: QueryCandidate, path: string): ModelDescription['fields'][number] | undefined {
  const own = plan.byName.get(path)?.field;
  if (own !== undefined) return own;
  const target = relationTarget(plan, path);
  return target === undefined
    ? undefined
    : plan.planOf(target).byName.get(path.slice(path.indexOf('.') + 1))?.field;
}

/** The target of the many-to-one a field path starts with (`author.name`), or undefined. */
function relationTarget(plan: QueryCandidate, path: string): ModelClass | undefined {
  const dot = path.indexOf('.');
  return dot > 0 ? plan.byName.get(path.slice(0, dot))?.field.relation?.targetModel : undefined;
}

/**
 * Why this list query takes the plain path although its model takes the fast one, or undefined.
 * A filter or sort through a many-to-one (`author.name`) is the same `where` and `orderBy` on both
 * paths, and MikroORM's query builder joins the target as `em.find` does (inner, or left for a
 * nullable relation); `em.find` also applies the target's MikroORM filters to the join, which the
 * fast path's statements do not, so a target with filters is served plainly. The differential
 * case in spec/adapters/mikro-orm/relations.test.ts checks both paths against `em.find`.
 */
export function queryObstacle(plan: QueryCandidate, query: ListQuery): string | undefined {
  // The keyset position after a datetime key is read from the stored row (query.ts, keysetOf):
  // a subquery the fast path's cached statements do not build.
  if (query.after !== undefined && exactDatetimeKeyset(plan.dialect)) {
    const datetime = query.sort.find((key) => plan.byName.get(key.field)?.field.type === 'datetime');
    if (datetime !== undefined) return `the keyset position after the datetime ${datetime.field}`;
  }
  // PostgreSQL infers a bound parameter's type from the column: the fast path's prepared statement
  // compares a single-precision column with 0.1 cast to real, where em.find compares it with the
  // double 0.1 (`filter[value]=0.1` finds the rows holding 0.1 on one path and none on the other).
  if (plan.dialect === 'postgresql') {
    const single = query.filters.find(
      (condition) => fieldAt(plan, condition.field)?.singlePrecision === true,
    );
    if (single !== undefined) return `a filter on the single-precision ${single.field}`;
  }
  const paths = [...query.filters.map((condition) => condition.field), ...query.sort.map((key) => key.field)];
  for (const path of paths) {
    const target = relationTarget(plan, path);
    if (target !== undefined && plan.planOf(target).filtered)
      return `${path} goes through a relation to a model with MikroORM filters`;
  }
  return undefined;
}

type Check = readonly [string, (orm: AnyMikroORM) => boolean];

function isFunction(value: unknown): boolean {
  return typeof value === 'function';
}

// Every MikroORM internal the fast path calls (statements.ts, lookup.ts, direct-writes.ts…).
const INTERNALS: readonly Check[] = [
  // Present before the connection opens; what they return is checked where they are used (statements.ts).
  [
    'Connection.getClient',
    (orm) => isFunction((orm.em.getConnection() as unknown as { getClient?: unknown }).getClient),
  ],
  [
    'Connection.getNativeClient',
    (orm) => isFunction((orm.em.getConnection() as unknown as { getNativeClient?: unknown }).getNativeClient),
  ],
  ['Connection.execute', (orm) => isFunction(orm.em.getConnection().execute)],
  ['Driver.mapResult', (orm) => isFunction(orm.em.getDriver().mapResult)],
  ['Driver.convertException', (orm) => isFunction(orm.em.getDriver().convertException)],
  [
    'EntityManager.createQueryBuilder',
    (orm) => isFunction((orm.em as unknown as { createQueryBuilder?: unknown }).createQueryBuilder),
  ],
  ['Platform.usesReturningStatement', (orm) => isFunction(orm.em.getPlatform().usesReturningStatement)],
  [
    'EntityManager.getEventManager().getSubscribers',
    (orm) => isFunction(orm.em.getEventManager().getSubscribers),
  ],
  // Load listeners send a model to the plain path (loadListenerObstacle).
  [
    'EntityManager.getEventManager().hasListeners',
    (orm) => isFunction(orm.em.getEventManager().hasListeners),
  ],
];

/**
 * The first MikroORM internal the fast path needs that this MikroORM lacks, or undefined when all
 * are there. Checked once per adapter.
 */
export function missingInternal(orm: AnyMikroORM): string | undefined {
  for (const [name, present] of INTERNALS) {
    let ok = false;
    try {
      ok = present(orm);
    } catch {
      ok = false;
    }
    if (!ok) return name;
  }
  return undefined;
}
