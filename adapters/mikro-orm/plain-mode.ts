/**
 * The plain path: every operation through MikroORM's public API — `em.find`, `em.findOne` and
 * `em.count` for reads, `em.create`/`em.assign`/`flush`/`em.remove` for writes, and the entity's
 * `toObject()` for the JSON form. Whatever MikroORM does with an entity (custom types, embedded
 * values, inheritance, filters, formulas, getters, `serializedName`, `lazy`, hooks, subscribers)
 * happens here as in any MikroORM application. A write answers with the entity after flush, as a
 * MikroORM application does, unless that entity may not hold what its row does (read-back.ts): then
 * the row is read again. It is complete on its own; the fast path is an optimisation that must give
 * the same answers (fast-path.ts).
 */
import {
  type EntityManager,
  type EntityProperty,
  LockMode,
  OptimisticLockError,
  type Platform,
  Reference,
  ReferenceKind,
  ScalarReference,
  TransactionEventBroadcaster,
  type Type,
  Utils,
  wrap,
} from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { ApiError } from '../../lib/errors.js';
import type { ListQuery, ListResult, RawRecord } from '../../lib/types.js';
import { checkArrayValues } from './array-items.js';
import { type AnyMikroORM, isBehindAccessor, isInverseOneToOne, isNeverLoaded } from './describe.js';
import { type AdapterFailures, isMalformedKey } from './failures.js';
import { hasBuiltInType } from './field-types.js';
import type { FieldPlan, ModelPlan } from './plan.js';
import { carriesValues, listWhereOf, orderByOf } from './query.js';
import { listenerReason } from './read-back.js';
import { markWritten, readConnectionType } from './session-state.js';

type Row = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: internal bridge to MikroORM's generic signatures
type AnyEntity = any;

/** The operations of the plain path, for one adapter's MikroORM instance. */
export class PlainPath {
  readonly #orm: AnyMikroORM;
  readonly #failures: AdapterFailures;

  constructor(orm: AnyMikroORM, failures: AdapterFailures) {
    this.#orm = orm;
    this.#failures = failures;
  }

  /** A page of records and, when asked, the number of rows the filters match. */
  async list(session: EntityManager, plan: ModelPlan, query: ListQuery): Promise<ListResult> {
    const connectionType = readConnectionType(session);
    try {
      const where = listWhereOf(plan, query);
      const populate = lazyNamed(plan, query.fields);
      const rows =
        query.limit > 0
          ? session.find(plan.entity as AnyEntity, where as AnyEntity, {
              orderBy: orderByOf(plan, query.sort) as AnyEntity,
              limit: query.limit,
              offset: query.offset,
              ...(populate.length > 0 ? { populate: populate as AnyEntity } : {}),
              ...(connectionType === undefined ? {} : { connectionType }),
            })
          : Promise.resolve([]);
      const total = query.withTotal
        ? session.count(
            plan.entity as AnyEntity,
            listWhereOf(plan, { ...query, after: undefined } as ListQuery) as AnyEntity,
            connectionType === undefined ? {} : { connectionType },
          )
        : Promise.resolve(undefined);
      const [entities, count] = await Promise.all([rows, total]);
      const records = await this.#exact(
        session,
        plan,
        (entities as object[]).map((entity) => this.record(plan, entity)),
      );
      return count === undefined ? { rows: records } : { rows: records, total: count };
    } catch (error) {
      throw await this.#failures.read(error, plan, carriesValues(query));
    }
  }

  /** The record whose property (by JSON field) equals the value, as MikroORM finds it, or undefined. */
  async findOne(
    session: EntityManager,
    plan: ModelPlan,
    field: FieldPlan,
    value: unknown,
  ): Promise<RawRecord | undefined> {
    // A key alone, as applications call `em.findOne(Post, 1)`: MikroORM builds the same condition
    // from it with less work than from `{ id: 1 }`.
    const where = field === plan.primary && isBareKey(plan, value) ? value : { [field.prop.name]: value };
    const entity = await this.#load(session, plan, where, readConnectionType(session));
    if (entity === undefined) return undefined;
    return this.#exactOne(session, plan, this.record(plan, entity));
  }

  /**
   * Inserts through the unit of work; the stored record: the entity after flush, as a MikroORM
   * application answers, or read back from the primary where that entity may not hold what the
   * row does (read-back.ts), in the insert's transaction (`answered`).
   */
  async create(session: EntityManager, plan: ModelPlan, values: Row): Promise<RawRecord> {
    if ((plan.readBack ?? listenerReason(session, plan.meta, 'create')) === undefined)
      return this.#flushed(session, plan, await this.#insert(session, plan, values));
    this.#checkValues(plan, values);
    return this.answered(session, plan, values, async () => {
      const entity = await this.#persistNew(session, plan, values);
      return this.#readBack(session, plan, wrap(entity, true).getPrimaryKey());
    }) as Promise<RawRecord>;
  }

  /**
   * Changes the given properties through the unit of work; undefined when no row has the key. The
   * stored record, as `create` gives it.
   */
  async update(
    session: EntityManager,
    plan: ModelPlan,
    key: Row,
    values: Row,
  ): Promise<RawRecord | undefined> {
    const readBack = (plan.readBack ?? listenerReason(session, plan.meta, 'update')) !== undefined;
    if (!readBack && !locksRow(plan, values)) {
      const entity = await this.#change(session, plan, key, values);
      return entity === undefined ? undefined : this.#flushed(session, plan, entity);
    }
    return this.answered(session, plan, values, async () => {
      // Unmapped: `answered` maps a failure after its rollback, outside the aborted transaction.
      const entity = await this.#change(session, plan, key, values, false);
      if (entity === undefined) return undefined;
      return readBack
        ? this.#readBack(session, plan, wrap(entity, true).getPrimaryKey())
        : this.#flushed(session, plan, entity);
    });
  }

  /**
   * A write and the read of its answer in one transaction (the session's own, when it is in one
   * already): a row whose answer cannot be read — a formula that overflows on it — is not left
   * behind, nor changed, by a request answered with an error. The read adds no statement: the
   * flush would open and commit a transaction of its own (it runs in this one). A failure is mapped after the rollback,
   * so that the mapping may ask the database (which reference dangles) outside an aborted one.
   * The fast path runs its writes that must be read back in it too (adapter.ts).
   */
  async answered(
    session: EntityManager,
    plan: ModelPlan,
    values: Row,
    work: () => Promise<RawRecord | undefined>,
  ): Promise<RawRecord | undefined> {
    let begun = false;
    try {
      if (!session.isInTransaction()) {
        await session.begin();
        begun = true;
      }
      const record = await work();
      if (begun) {
        // What `em.commit()` does but its flush first, which would write the changes an after-create
        // or after-update hook made to the entity: a MikroORM application's flush leaves them unwritten.
        const transaction = session.getTransactionContext();
        if (transaction !== undefined)
          await session.getConnection('write').commit(transaction, new TransactionEventBroadcaster(session));
        session.resetTransactionContext();
      }
      return record;
    } catch (error) {
      // As MikroORM's own transactional(): a failed rollback (a dead connection) must not hide why.
      if (begun) await session.rollback().catch(() => undefined);
      session.clear();
      throw await this.#failures.write(error, plan, values, session);
    }
  }

  /**
   * `em.create` and a flush: hooks, subscribers, `onCreate` and cascades run as in any MikroORM
   * application. The new row's key (the fast path reads the row back its own way). Unmapped
   * failures with `mapFailures: false`, for `answered` to map after its rollback.
   */
  async insert(session: EntityManager, plan: ModelPlan, values: Row, mapFailures = true): Promise<unknown> {
    if (!mapFailures) {
      this.#checkValues(plan, values);
      return wrap(await this.#persistNew(session, plan, values), true).getPrimaryKey();
    }
    return wrap(await this.#insert(session, plan, values), true).getPrimaryKey();
  }

  async #insert(session: EntityManager, plan: ModelPlan, values: Row): Promise<object> {
    this.#checkValues(plan, values);
    try {
      return await this.#persistNew(session, plan, values);
    } catch (error) {
      session.clear();
      throw await this.#failures.write(error, plan, values, session);
    }
  }

  /** `em.create`, `persist` and `flush`; what they throw, unmapped. */
  async #persistNew(session: EntityManager, plan: ModelPlan, values: Row): Promise<object> {
    if (setsFixedOrder(plan, values)) session.clear();
    const { created, later } = splitCreateValues(plan, values);
    const entity = session.create(plan.entity as AnyEntity, created as AnyEntity) as object;
    if (later !== undefined) session.assign(entity as AnyEntity, later as AnyEntity);
    await session.persist(entity).flush();
    markWritten(session);
    return entity;
  }

  /** The checks of written values MikroORM makes only at flush, where a failure would be a 500. */
  #checkValues(plan: ModelPlan, values: Row): void {
    this.#checkCustomValues(plan, values);
    checkArrayValues(plan.fields, plan.dialect, this.#orm.em.getPlatform(), values);
  }

  /**
   * Loads the entity from the primary (`em.findOne`: the one the session holds, if it holds it),
   * assigns and flushes; its key, or undefined when there is none. A collection the values replace
   * is loaded with the entity: MikroORM's `set()` on a collection it never loaded ignores an empty
   * array, and with it loaded the flush writes only the links that changed. On PostgreSQL and
   * MySQL/MariaDB the row is locked before the links are read, in one transaction with the flush
   * (`#change`), so that concurrent replacements take turns.
   */
  async change(session: EntityManager, plan: ModelPlan, key: Row, values: Row): Promise<unknown> {
    if (!locksRow(plan, values)) {
      const entity = await this.#change(session, plan, key, values);
      return entity === undefined ? undefined : wrap(entity, true).getPrimaryKey();
    }
    // The row lock needs a transaction: the write's own, with failures mapped after its rollback.
    let changed: unknown;
    await this.answered(session, plan, values, async () => {
      const entity = await this.#change(session, plan, key, values, false);
      changed = entity === undefined ? undefined : wrap(entity, true).getPrimaryKey();
      return undefined;
    });
    return changed;
  }

  async #change(
    session: EntityManager,
    plan: ModelPlan,
    key: Row,
    values: Row,
    mapFailures = true,
  ): Promise<object | undefined> {
    this.#checkValues(plan, values);
    const populate = [...plan.collections.values()]
      .map((collection) => collection.prop.name)
      .filter((name) => values[name] !== undefined);
    if (setsFixedOrder(plan, values)) session.clear();
    // The flush writes a replaced collection as the difference from the links loaded with the
    // entity: two requests replacing it at once would each write theirs from the same links, and
    // leave links of both. With the row locked first, in the write's transaction and before any
    // other read there (MariaDB's snapshot is taken at the first one), they take turns, and each
    // loads the links the one before left.
    // Only in a transaction (`change` and `update` begin one; none with MikroORM's
    // `disableTransactions`, where the write goes on unlocked as before). The lock queries even
    // for an entity the session holds: a row deleted meanwhile is a 404.
    const locking = locksRow(plan, values) && session.isInTransaction();
    if (
      locking &&
      plan.dialect === 'postgresql' &&
      !(await this.#lockForNoKeyUpdate(session, plan, key, values, mapFailures))
    )
      return undefined;
    const entity =
      locking && plan.dialect !== 'postgresql'
        ? await this.#load(session, plan, key, 'write', [], LockMode.PESSIMISTIC_WRITE)
        : await this.#load(session, plan, key, 'write', locking ? [] : populate);
    if (entity === undefined) return undefined;
    if (Object.keys(values).length > 0) {
      try {
        // The links, read after the lock (the request loaded none before: a policy's read
        // populates no collection). No `refresh`: it would hydrate the targets again too, and
        // MikroORM then sees a jsonb value PostgreSQL reordered as a change, and writes (and
        // versions) targets the request never touched.
        if (locking) await session.populate(entity as AnyEntity, populate as AnyEntity);
        holdNeverLoaded(plan, entity, values, this.#orm.em.getPlatform());
        assignValues(session, plan, entity, values);
        await session.flush();
        markWritten(session);
      } catch (error) {
        session.clear();
        if (await this.#deletedMeanwhile(session, plan, key, error)) return undefined;
        throw mapFailures ? await this.#failures.write(error, plan, values, session) : error;
      }
    }
    return entity;
  }

  /**
   * Locks the row on PostgreSQL with `FOR NO KEY UPDATE`, the lock its own update takes: unlike
   * `FOR UPDATE` (MikroORM's pessimistic write lock) it does not block the foreign-key checks of
   * other writes that link to this row, so two requests linking each other's rows do not deadlock.
   * False when no row has the key. Failures mapped as the write's, unless `answered` maps them.
   */
  async #lockForNoKeyUpdate(
    session: EntityManager,
    plan: ModelPlan,
    key: Row,
    values: Row,
    mapFailures: boolean,
  ): Promise<boolean> {
    try {
      const { sql, params } = (session as unknown as SqlEntityManager)
        .createQueryBuilder(plan.entity as AnyEntity)
        .select(plan.primary.prop.name as AnyEntity)
        .where(key as AnyEntity)
        .toQuery();
      const rows = (await session
        .getConnection('write')
        .execute(
          `${sql} for no key update`,
          params as unknown[],
          'all',
          session.getTransactionContext(),
        )) as unknown[];
      return rows.length > 0;
    } catch (error) {
      if (isMalformedKey(error)) return false;
      throw mapFailures ? await this.#failures.write(error, plan, values, session) : error;
    }
  }

  /**
   * Whether a versioned write failed because another request deleted the row after this one loaded
   * it: then there is no record (404), not a stale one (MikroORM's OptimisticLockError says both).
   */
  async #deletedMeanwhile(
    session: EntityManager,
    plan: ModelPlan,
    key: Row,
    error: unknown,
  ): Promise<boolean> {
    if (!(error instanceof OptimisticLockError)) return false;
    const fresh = session.fork({ clear: true, keepTransactionContext: true });
    return (await this.#load(fresh, plan, key, 'write')) === undefined;
  }

  /** Removes through the unit of work; false when no row has the key. */
  async delete(session: EntityManager, plan: ModelPlan, key: Row): Promise<boolean> {
    const entity = await this.#load(session, plan, key, 'write');
    if (entity === undefined) return false;
    try {
      await session.remove(entity).flush();
      markWritten(session);
      return true;
    } catch (error) {
      session.clear();
      throw await this.#failures.remove(error, plan);
    }
  }

  /**
   * The record of an entity: MikroORM's own JSON form (`toObject()`: serialized names, custom
   * types' `toJSON`, embedded values, formulas, getters; relations as keys), plus the hidden fields,
   * which the core needs (a password hash for login) and never sends, less any collection.
   */
  record(plan: ModelPlan, entity: object): RawRecord {
    const wrapped = wrap(entity, true);
    const shape = recordShape(plan);
    // A collection (one loaded in this session: written, or populated for a write) is no part of a
    // record, and a to-one relation is its key, set below: `toObject` is told to skip both, so that
    // a related entity loaded in the same session (the caller, after `populateAfterFlush`) is not
    // serialized whole only to be replaced (`never[]`: its parameter is typed per entity).
    const record = wrapped.toObject(shape.skipped as never[]) as RawRecord;
    // On the root of an inheritance hierarchy, the instance is of one subclass: another's fields
    // are not its own, and stay out of its record.
    const owns = shape.variant
      ? (field: FieldPlan) =>
          field.field.variant !== true || wrapped.__meta.properties[field.prop.name as never] !== undefined
      : everyField;
    for (const field of shape.hidden)
      if (owns(field)) record[field.field.name] = hiddenValue(field.prop, entity, this.#orm);
    // An inverse one-to-one: the owner's key, or null (none, or MikroORM did not load it).
    for (const field of shape.inverse)
      if (owns(field)) record[field.field.name] = hiddenValue(field.prop, entity, this.#orm);
    // A many-to-one or owning one-to-one is always the target's key (null when it has none).
    for (const field of shape.references)
      if (owns(field)) record[field.field.name] = hiddenValue(field.prop, entity, this.#orm);
    return record;
  }

  /**
   * The record of an entity just flushed, shaped as a read of its row gives it: a value the
   * entity never had (a nullable column left out) is null, a lazy value is left out. A default
   * filter that hides the row changes nothing: the answer is what was stored.
   */
  async #flushed(session: EntityManager, plan: ModelPlan, entity: object): Promise<RawRecord> {
    const record = this.record(plan, entity);
    for (const field of plan.fields) {
      const name = field.field.name;
      if (field.field.lazy === true) delete record[name];
      else if (record[name] === undefined && field.prop.persist !== false && field.field.variant !== true)
        record[name] = null;
    }
    // An update's untouched bigint holds what the load read, rounded on SQLite beyond 2^53.
    return this.#exactOne(session, plan, record);
  }

  /**
   * The row just written, read again from the primary with filters off (a create or update whose
   * row a default filter hides, a soft-delete flag, still answers with what it stored), through a
   * fork with an empty identity map in the session's transaction: a fresh entity, as a later
   * request loads it (no constructor, so no transient value; lazy values not loaded; `onLoad` run),
   * where a refresh of the session's own entity would keep those. The session keeps its entity as
   * the flush left it, as a MikroORM application's does.
   */
  async #readBack(session: EntityManager, plan: ModelPlan, id: unknown): Promise<RawRecord> {
    let entity: object | null;
    try {
      const fresh = session.fork({ clear: true, keepTransactionContext: true });
      entity = (await fresh.findOne(plan.entity as AnyEntity, id as AnyEntity, {
        filters: false,
        connectionType: 'write',
      })) as object | null;
    } catch (error) {
      throw await this.#failures.read(error, plan);
    }
    if (entity === null)
      throw ApiError.internal(new Error(`${plan.description.name} ${String(id)} vanished after a write.`));
    return this.#exactOne(session, plan, this.record(plan, entity));
  }

  /** `#exact` for one record; the record itself, with no await, when the model has no wide bigint. */
  #exactOne(session: EntityManager, plan: ModelPlan, record: RawRecord): RawRecord | Promise<RawRecord> {
    if (recordShape(plan).wide.length === 0) return record;
    return this.#exact(session, plan, [record]).then(([exact]) => exact as RawRecord);
  }

  /**
   * better-sqlite3, as MikroORM's SQLite driver uses it, hands INTEGER values over as JS numbers,
   * which round beyond 2^53: a bigint that large is read again as text, so that no value the
   * database holds is served changed. Only SQLite, and only records holding such a value.
   */
  async #exact(session: EntityManager, plan: ModelPlan, records: RawRecord[]): Promise<RawRecord[]> {
    const { wide } = recordShape(plan);
    if (wide.length === 0) return records;
    const key = plan.primary.field.name;
    const rounded = records.filter((record) => wide.some((field) => beyondSafe(record[field.field.name])));
    if (rounded.length === 0) return records;
    const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
    const columns = wide.map(
      (field, i) => `cast(${quote(field.prop.fieldNames[0] as string)} as text) as v${i}`,
    );
    const keyColumn = quote(plan.primary.prop.fieldNames[0] as string);
    const ids = rounded.map((record) => record[key]);
    const sql = `select ${keyColumn} as k, ${columns.join(', ')} from ${quote(plan.meta.tableName)} where ${keyColumn} in (${ids.map(() => '?').join(', ')})`;
    let rows: Row[];
    try {
      // In the session's transaction, if any: a write's answer is read in it (`answered`), and
      // SQLite's one connection would wait for that transaction to end.
      rows = (await session
        .getConnection('write')
        .execute(sql, ids as unknown[], 'all', session.getTransactionContext())) as Row[];
    } catch (error) {
      throw await this.#failures.read(error, plan);
    }
    const byKey = new Map(rows.map((row) => [String(row.k), row]));
    for (const record of rounded) {
      const row = byKey.get(String(record[key]));
      if (row === undefined) continue;
      wide.forEach((field, i) => {
        const text = row[`v${i}`];
        if (typeof text === 'string' && typeof record[field.field.name] === 'string')
          record[field.field.name] = text;
      });
    }
    return records;
  }

  async #load(
    session: EntityManager,
    plan: ModelPlan,
    where: Row | string | number | bigint,
    connectionType: 'read' | 'write' | undefined,
    populate: readonly string[] = [],
    lockMode?: LockMode,
  ): Promise<object | undefined> {
    try {
      const entity = (await session.findOne(plan.entity as AnyEntity, where as AnyEntity, {
        ...(connectionType === undefined ? {} : { connectionType }),
        ...(populate.length === 0 ? {} : { populate: populate as AnyEntity }),
        ...(lockMode === undefined ? {} : { lockMode }),
      })) as object | null;
      return entity ?? undefined;
    } catch (error) {
      if (isMalformedKey(error)) return undefined;
      throw await this.#failures.read(error, plan);
    }
  }

  /**
   * A user's custom type converts the value only at flush, where a failure would be a 500: try
   * the conversion first, so a value the type cannot store is a 422 naming the field (inside an
   * embedded value too: MikroORM converts its fields at flush alike).
   */
  #checkCustomValues(plan: ModelPlan, values: Row): void {
    const platform = this.#orm.em.getPlatform();
    const check = (fields: Iterable<FieldPlan>, held: Row, path: string): void => {
      for (const field of fields) {
        const value = held[field.prop.name];
        if (value === undefined || value === null) continue;
        const name = `${path}${field.field.name}`;
        if (field.nested !== undefined) {
          if (typeof value === 'object' && !Array.isArray(value))
            check(field.nested.values(), value as Row, `${name}.`);
          continue;
        }
        const custom = field.prop.customType as Type<unknown, unknown> | undefined;
        if (custom === undefined || hasBuiltInType(field.prop)) continue;
        try {
          custom.convertToDatabaseValue(value, platform);
        } catch {
          throw ApiError.validation([{ path: name, message: 'The value cannot be stored in this field.' }]);
        }
      }
    };
    check(plan.fields, values, '');
  }
}

/**
 * The values `em.create` takes, and those set after it by `em.assign`: MikroORM 7's `em.create`
 * wraps the key of a `ref: true` + `mapToPk: true` relation in a `ScalarReference`, which the flush
 * then writes as no key at all, and drops a `hydrate: false` column's value (it hydrates only what
 * it loads); `em.assign` sets both as application code would. It also sets a property behind an
 * accessor (`_email` with `accessor: 'email'`): `em.create` reads such a value under the accessor's
 * name and drops it under the property's (`_email`), except an `object: true` embeddable's, which
 * it reads only under the property's; `em.assign` takes the property's name for every kind and sets
 * the backing field, as `em.create`'s hydrator does.
 */
function splitCreateValues(plan: ModelPlan, values: Row): { created: Row; later: Row | undefined } {
  let later: Row | undefined;
  const created: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const prop = plan.meta.properties[name as never] as EntityProperty | undefined;
    const keyOnly = prop?.ref === true && prop.mapToPk === true && value !== undefined && value !== null;
    if (keyOnly || (prop !== undefined && (isNeverLoaded(prop) || isBehindAccessor(prop)))) {
      later ??= {};
      later[name] = value;
    } else created[name] = value;
  }
  return { created, later };
}

/**
 * A `hydrate: false` column is never loaded into the entity, but the row MikroORM read holds it:
 * its unit of work would see the entity's missing value as a change and write NULL over the stored
 * one on the next flush. An update that does not set such a column gives the entity the stored
 * value first, so the flush leaves the column as it is (hidden fields are never sent by a client:
 * only server code, a write hook, sets one).
 */
function holdNeverLoaded(plan: ModelPlan, entity: object, values: Row, platform: Platform): void {
  const columns = recordShape(plan).neverLoaded;
  if (columns.length === 0) return;
  const stored = (wrap(entity, true) as { __originalEntityData?: Row }).__originalEntityData;
  if (stored === undefined) return;
  for (const prop of columns) {
    if (values[prop.name] !== undefined || !(prop.name in stored)) continue;
    const value = stored[prop.name];
    // The row's data holds the database's form: a custom type's JS value is made from it.
    (entity as Row)[prop.name] =
      prop.customType === undefined || value === null || value === undefined
        ? value
        : prop.customType.convertToJSValue(value, platform);
  }
}

/**
 * `em.assign`, except for properties of a user's custom type: assign judges a value by the type's
 * runtime type (a Point type reports 'string') and refuses an object, so those are set on the
 * entity as application code would (`thing.location = { x, y }`); the unit of work converts them.
 */
function assignValues(session: EntityManager, plan: ModelPlan, entity: object, values: Row): void {
  const assigned: Row = {};
  for (const [name, value] of Object.entries(values)) {
    const prop = plan.meta.properties[name as never] as EntityProperty | undefined;
    if (prop?.ref === true && prop.kind === ReferenceKind.SCALAR) setScalarReference(entity, prop, value);
    else if (prop !== undefined && !hasBuiltInType(prop)) (entity as Row)[name] = value;
    else assigned[name] = value;
  }
  if (Object.keys(assigned).length > 0)
    session.assign(entity as AnyEntity, assigned as AnyEntity, { updateNestedEntities: false });
}

/**
 * A scalar reference (`ref: true` on a scalar, `Ref<string>`) is set through its `ScalarReference`,
 * as application code does (`article.body.set('…')`): `em.assign` would put the bare value in its
 * place, which MikroORM's change tracking then fails on. A loaded entity always holds one, bound to
 * the property; one is made the way MikroORM's hydrator makes it otherwise.
 */
function setScalarReference(entity: object, prop: EntityProperty, value: unknown): void {
  const current = (entity as Row)[prop.name];
  if (ScalarReference.isScalarReference(current)) {
    (current as ScalarReference<unknown>).set(value);
    return;
  }
  const reference = new ScalarReference<unknown>();
  reference.bind(entity, prop.name as never);
  reference.set(value);
  (entity as Row)[prop.name] = reference;
}

/**
 * Whether the values set a `fixedOrder` many-to-many. Its pivot has a key of its own and no unique
 * pair, and MikroORM writes it from both sides when the targets are already in the identity map
 * (the core's check that the keys exist loaded them): every link twice. Cleared first, the session
 * flushes each link once, as an application that did not load the targets does.
 */
function setsFixedOrder(plan: ModelPlan, values: Row): boolean {
  for (const collection of plan.collections.values())
    if (collection.prop.fixedOrder === true && values[collection.prop.name] !== undefined) return true;
  return false;
}

/** Every field is the instance's own (a model outside an inheritance hierarchy's root). */
const everyField = (): boolean => true;

/** What `record` and `#exact` add to MikroORM's `toObject()`, per model: read once from its plan. */
interface RecordShape {
  /**
   * The MikroORM names of the to-many collections and visible to-one relations (but `mapToPk`
   * ones), which `toObject` is told to leave out: `record` sets the latter as keys.
   */
  readonly skipped: readonly string[];
  /** Hidden fields, which `toObject()` leaves out and the core needs. */
  readonly hidden: readonly FieldPlan[];
  /** Visible many-to-one and one-to-one fields, always sent as the target's key. */
  readonly references: readonly FieldPlan[];
  /** Visible inverse one-to-one fields: the owning record's key, or null. */
  readonly inverse: readonly FieldPlan[];
  /** Whether some fields are other subclasses' (the root of an inheritance hierarchy). */
  readonly variant: boolean;
  /** The bigint columns SQLite may hand over rounded, which `#exact` reads again (none elsewhere). */
  readonly wide: readonly FieldPlan[];
  /** The `hydrate: false` columns, which an update keeps (`holdNeverLoaded`). */
  readonly neverLoaded: readonly EntityProperty[];
}

const shapes = new WeakMap<ModelPlan, RecordShape>();

/** The record shape of a model, worked out on first use. */
function recordShape(plan: ModelPlan): RecordShape {
  let shape = shapes.get(plan);
  if (shape === undefined) {
    const collections = plan.meta.relations.filter(
      (prop) => prop.kind === ReferenceKind.ONE_TO_MANY || prop.kind === ReferenceKind.MANY_TO_MANY,
    );
    // A `mapToPk` relation holds the key itself, which `toObject()` serializes as MikroORM does
    // (a custom type's `toJSON`, a bigint as text): its value stays as `toObject()` gives it.
    const references = plan.fields.filter(
      (field) => !field.field.hidden && field.field.relation !== undefined && field.prop.mapToPk !== true,
    );
    shape = {
      skipped: [...collections.map((prop) => prop.name), ...references.map((field) => field.prop.name)],
      hidden: plan.fields.filter((field) => field.field.hidden === true),
      references,
      inverse: plan.fields.filter((field) => !field.field.hidden && isInverseOneToOne(field.prop)),
      variant: plan.fields.some((field) => field.field.variant === true),
      neverLoaded: plan.meta.props.filter((prop) => prop.embedded === undefined && isNeverLoaded(prop)),
      wide:
        plan.dialect !== 'sqlite'
          ? []
          : plan.fields.filter(
              (field) =>
                field.field.type === 'bigint' &&
                field.prop.fieldNames?.length === 1 &&
                field.prop.kind === ReferenceKind.SCALAR,
            ),
    };
    shapes.set(plan, shape);
  }
  return shape;
}

/**
 * Whether an update replaces a collection on PostgreSQL or MySQL/MariaDB, where concurrent requests
 * could interleave (SQLite's writers take turns): its row is locked first (`#change`).
 */
function locksRow(plan: ModelPlan, values: Row): boolean {
  if (plan.dialect !== 'postgresql' && plan.dialect !== 'mysql') return false;
  for (const collection of plan.collections.values())
    if (values[collection.prop.name] !== undefined) return true;
  return false;
}

/** Whether `em.findOne` may take the value as the model's one primary key, as it is. */
function isBareKey(plan: ModelPlan, value: unknown): value is string | number | bigint {
  return (
    plan.meta.primaryKeys.length === 1 &&
    (typeof value === 'number' || typeof value === 'string' || typeof value === 'bigint')
  );
}

/** Whether a bigint's JSON form (a string of digits) is a number JS cannot hold exactly. */
function beyondSafe(value: unknown): boolean {
  if (typeof value !== 'string' || !/^-?\d{16,}$/.test(value)) return false;
  const n = BigInt(value);
  return n > BigInt(Number.MAX_SAFE_INTEGER) || n < -BigInt(Number.MAX_SAFE_INTEGER);
}

/** The property names of the lazy fields a `fields=` selection names. */
function lazyNamed(plan: ModelPlan, fields: readonly string[] | undefined): string[] {
  if (fields === undefined) return [];
  const named = new Set(fields);
  return plan.fields
    .filter((field) => field.field.lazy === true && named.has(field.field.name))
    .map((field) => field.prop.name);
}

/** A property's value as `toObject()` gives it when visible and not populated (a relation: the key). */
function hiddenValue(prop: EntityProperty, entity: object, orm: AnyMikroORM): unknown {
  const value = (entity as Row)[prop.name];
  if (value === undefined || value === null) return null;
  if (prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE) {
    // `mapToPk: true`: the entity holds the key itself (in a ScalarReference with `ref: true`).
    const held = value instanceof ScalarReference ? value.unwrap() : value;
    if (held === undefined || held === null) return null;
    const key = Utils.isEntity(held, true)
      ? wrap(Reference.unwrapReference(held as object), true).getPrimaryKey()
      : held;
    return orm.em.getPlatform().normalizePrimaryKey(key as never);
  }
  const custom = prop.customType;
  return custom === undefined ? value : custom.toJSON(value, orm.em.getPlatform());
}
