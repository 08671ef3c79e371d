/**
 * `MikroOrmAdapter`: the core's `OrmAdapter` over MikroORM 7 (SQLite, PostgreSQL, MySQL/MariaDB).
 * Reads go through the query builder and come back as plain rows (no entity hydration, no
 * serializer). Writes go through the unit of work, so MikroORM's hooks, `onCreate`/`onUpdate`
 * and cascades behave as in any MikroORM application — except for models where the unit of work
 * would only run the statement itself: those write with one statement (direct-writes.ts).
 */
import { DriverException, type EntityManager, ValidationError, wrap } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { ApiError, ConfigurationError } from '../../lib/errors.js';
import type {
  ListQuery,
  ListResult,
  ModelClass,
  ModelDescription,
  OrmAdapter,
  RawRecord,
  RecordId,
  RecordLookup,
} from '../../lib/types.js';
import { type MikroOrmConnectOptions, ormFromUrl } from './connect.js';
import type { AnyMikroORM } from './describe.js';
import {
  type DirectWrites,
  directDelete,
  directInsert,
  directUpdate,
  planDirectWrites,
  quietEvents,
} from './direct-writes.js';
import { isConnectionError, toApiError } from './errors.js';
import { type JointLookup, prepareJointLookup } from './joint-lookup.js';
import { type ListStatement, ListStatements } from './list-statements.js';
import { type Lookup, prepareLookup } from './lookup.js';
import { type CombinedCache, TOTAL_COLUMN, withTotalColumn } from './page-total.js';
import {
  buildPlan,
  type Dialect,
  decodeRow,
  dialectOf,
  encodeData,
  type FieldPlan,
  type ModelPlan,
  ROOT_ALIAS,
} from './plan.js';
import { listWhereOf, orderByOf, whereOf } from './query.js';
import { updateSchemaSafely } from './schema.js';
import { StatementRunner } from './statements.js';

/** Options of `new MikroOrmAdapter(orm, options)`. */
export interface MikroOrmAdapterOptions {
  /** The adapter's name in logs and reports; defaults to `mikro-orm:<platform>`. */
  readonly name?: string;
  /**
   * Let writes to models with nothing for the unit of work to do (no hooks, subscribers, cascades…)
   * run as one `INSERT/UPDATE … RETURNING` or `DELETE` statement (default true; see direct-writes.ts).
   */
  readonly directWrites?: boolean;
}

type Row = Record<string, unknown>;
// The adapter works on any entity; MikroORM's generic entity types do not help here.
// biome-ignore lint/suspicious/noExplicitAny: internal bridge to MikroORM's generic signatures
type AnyEntity = any;

function platformName(orm: AnyMikroORM): string {
  const name = orm.em
    .getPlatform()
    .constructor.name.replace(/Platform$/, '')
    .toLowerCase();
  return `mikro-orm:${name}`;
}

// Most keys read in one statement: routes read two (the caller and the record); more are read one by one.
const MAX_JOINT_LOOKUPS = 4;

/** One level of the joint lookups' tree: the lookup of the plans so far, and the plans that may follow. */
interface JointLevel {
  lookup?: JointLookup | null;
  readonly next: Map<ModelPlan, JointLevel>;
}

// A key the column cannot hold (a malformed UUID on PostgreSQL) identifies no row.
function isMalformedKey(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return code === '22P02' || code === '22003' || code === '22007' || code === '22008';
}

/** The `OrmAdapter` over MikroORM; the session is a forked `EntityManager`. */
export class MikroOrmAdapter implements OrmAdapter<EntityManager> {
  readonly name: string;
  /** The MikroORM instance (for `orm.em.fork()`, migrations, or anything the adapter does not cover). */
  readonly orm: AnyMikroORM;
  readonly #plans = new Map<ModelClass, ModelPlan>();
  readonly #direct = new Map<ModelPlan, DirectWrites>();
  readonly #directWrites: boolean;
  readonly #statements: StatementRunner;
  readonly #lists = new ListStatements();
  readonly #combined: CombinedCache = new Map();
  readonly #dialect: Dialect;
  readonly #lookups = new Map<FieldPlan, Lookup | null>();
  // Joint lookups by their plans, first to last; null where the models cannot be read jointly.
  readonly #joints: JointLevel = { next: new Map() };

  /**
   * Wraps a MikroORM instance you built yourself; build it with `mikroOrmOptions()` so table names
   * and mixin columns follow koa-model-api's conventions (`describe` refuses models where it matters).
   */
  constructor(orm: AnyMikroORM, options: MikroOrmAdapterOptions = {}) {
    if (
      typeof (orm?.em as unknown as Partial<SqlEntityManager> | undefined)?.createQueryBuilder !== 'function'
    ) {
      throw new ConfigurationError(
        'MikroOrmAdapter needs a MikroORM instance with an SQL driver (SQLite, PostgreSQL, MySQL or MariaDB).',
      );
    }
    this.orm = orm;
    this.name = options.name ?? platformName(orm);
    this.#directWrites = options.directWrites ?? true;
    this.#dialect = dialectOf(orm.em.getPlatform());
    this.#statements = new StatementRunner(orm, this.#dialect);
  }

  /**
   * Builds MikroORM from a database URL and wraps it.
   * @example
   * const adapter = await MikroOrmAdapter.connect({ url: 'sqlite:data/app.db', entities: [User, Post], schema: 'update' });
   */
  static async connect(options: MikroOrmConnectOptions): Promise<MikroOrmAdapter> {
    const orm = await ormFromUrl(options);
    const scheme = options.url.startsWith('sqlite:')
      ? 'sqlite'
      : (/^([a-z]+):/i.exec(options.url)?.[1] ?? '').toLowerCase();
    return new MikroOrmAdapter(orm, { name: `mikro-orm:${scheme === 'postgres' ? 'postgresql' : scheme}` });
  }

  /** The model's description, read once from MikroORM's metadata. */
  describe(model: ModelClass): ModelDescription {
    return this.#plan(model).description;
  }

  /** A fresh unit of work: `orm.em.fork()`. */
  openSession(): EntityManager {
    return this.orm.em.fork();
  }

  async list(session: EntityManager, model: ModelClass, query: ListQuery): Promise<ListResult> {
    const plan = this.#plan(model);
    try {
      if (this.#dialect === 'postgresql' && query.withTotal && query.limit > 0) {
        const combined = await this.#pageWithTotal(session, plan, query);
        if (combined !== undefined) {
          const total = combined.total ?? (await this.#count(session, plan, query.filters));
          return { rows: combined.rows.map((row) => decodeRow(plan, row)), total };
        }
      }
      const rowsQuery = query.limit > 0 ? this.#select(session, plan, query) : Promise.resolve([] as Row[]);
      const totalQuery = query.withTotal
        ? this.#count(session, plan, query.filters)
        : Promise.resolve(undefined);
      const [rows, total] = await Promise.all([rowsQuery, totalQuery]);
      return { rows: rows.map((row) => decodeRow(plan, row)), ...(total === undefined ? {} : { total }) };
    } catch (error) {
      throw toApiError(this.#driverError(error), { meta: plan.meta, operation: 'read' });
    }
  }

  async get(session: EntityManager, model: ModelClass, id: RecordId): Promise<RawRecord | undefined> {
    const plan = this.#plan(model);
    return this.#lookup(session, plan, plan.primary, plan.primary.encode(id));
  }

  /** The rows with these keys, read in one statement on SQLite and PostgreSQL (see joint-lookup.ts). */
  async getEach(
    session: EntityManager,
    lookups: readonly RecordLookup[],
  ): Promise<(RawRecord | undefined)[]> {
    const plans = lookups.map((lookup) => this.#plan(lookup.model));
    let joint: JointLookup | null | undefined;
    if (lookups.length > 1 && lookups.length <= MAX_JOINT_LOOKUPS) {
      const level = this.#jointLevel(plans);
      // Prepared once; every later call finds it without waiting.
      joint = level.lookup !== undefined ? level.lookup : await this.#prepareJoint(level, session, plans);
    }
    if (joint != null) {
      try {
        const rows = await joint(
          session,
          lookups.map((lookup, i) => (plans[i] as ModelPlan).primary.encode(lookup.id)),
        );
        return rows.map((row, i) => (row === undefined ? undefined : decodeRow(plans[i] as ModelPlan, row)));
      } catch (error) {
        // A key the column cannot hold fails the whole statement: each lookup then answers for itself.
        if (!isMalformedKey(error))
          throw toApiError(this.#driverError(error), {
            meta: (plans[0] as ModelPlan).meta,
            operation: 'read',
          });
      }
    }
    const rows: (RawRecord | undefined)[] = [];
    for (const lookup of lookups) rows.push(await this.get(session, lookup.model, lookup.id));
    return rows;
  }

  async findBy(
    session: EntityManager,
    model: ModelClass,
    field: string,
    value: unknown,
  ): Promise<RawRecord | undefined> {
    const plan = this.#plan(model);
    const target = plan.byName.get(field);
    if (target === undefined) throw new ConfigurationError(`${plan.description.name} has no field ${field}.`);
    if (value === null || value === undefined) return this.#first(session, plan, { [field]: null });
    return this.#lookup(session, plan, target, target.encode(value));
  }

  async create(session: EntityManager, model: ModelClass, data: Readonly<RawRecord>): Promise<RawRecord> {
    const plan = this.#plan(model);
    const values = encodeData(plan, data);
    const direct = this.#directFor(plan, session, 'insert');
    if (direct !== undefined) {
      let inserted: Awaited<ReturnType<typeof directInsert>>;
      try {
        inserted = await directInsert(session, plan, direct, values, this.#statements);
      } catch (error) {
        throw this.#writeError(error, plan, values);
      }
      if ('row' in inserted) return decodeRow(plan, inserted.row);
      return this.#readBack(session, plan, inserted.id);
    }
    let id: unknown;
    try {
      const entity = session.create(plan.entity as AnyEntity, values as AnyEntity) as object;
      await session.persist(entity).flush();
      id = wrap(entity, true).getPrimaryKey();
    } catch (error) {
      session.clear();
      throw this.#writeError(error, plan, values);
    }
    return this.#readBack(session, plan, id);
  }

  /** The row just inserted with this key. */
  async #readBack(session: EntityManager, plan: ModelPlan, id: unknown): Promise<RawRecord> {
    const stored = await this.#first(session, plan, { [plan.primary.field.name]: id });
    if (stored === undefined)
      throw ApiError.internal(new Error(`${plan.description.name} ${String(id)} vanished after insert.`));
    return stored;
  }

  async update(
    session: EntityManager,
    model: ModelClass,
    id: RecordId,
    data: Readonly<RawRecord>,
  ): Promise<RawRecord | undefined> {
    const plan = this.#plan(model);
    const key = { [plan.primary.field.name]: plan.primary.encode(id) };
    // A row keeps its key: the contract never lets a route change a primary key.
    const { [plan.primary.field.name]: _key, ...changes } = data;
    const values = encodeData(plan, changes);
    const direct = this.#directFor(plan, session, 'update');
    if (direct !== undefined) {
      if (Object.keys(values).length === 0) return this.#first(session, plan, key);
      let updated: Row | undefined | true;
      try {
        updated = await directUpdate(session, plan, direct, key, values, this.#statements);
      } catch (error) {
        if (isMalformedKey(error)) return undefined;
        throw this.#writeError(error, plan, values);
      }
      if (updated === true) return this.#first(session, plan, key);
      return updated === undefined ? undefined : decodeRow(plan, updated);
    }
    const entity = await this.#load(session, plan, key);
    if (entity === undefined) return undefined;
    try {
      session.assign(entity as AnyEntity, values as AnyEntity, { updateNestedEntities: false });
      await session.flush();
    } catch (error) {
      session.clear();
      throw this.#writeError(error, plan, values);
    }
    return this.#first(session, plan, key);
  }

  async delete(session: EntityManager, model: ModelClass, id: RecordId): Promise<boolean> {
    const plan = this.#plan(model);
    const key = { [plan.primary.field.name]: plan.primary.encode(id) };
    if (this.#directFor(plan, session, 'delete') !== undefined) {
      try {
        return await directDelete(session, plan, key, this.#statements);
      } catch (error) {
        if (isMalformedKey(error)) return false;
        throw toApiError(this.#driverError(error), { meta: plan.meta, operation: 'delete' });
      }
    }
    const entity = await this.#load(session, plan, key);
    if (entity === undefined) return false;
    try {
      await session.remove(entity).flush();
      return true;
    } catch (error) {
      session.clear();
      throw toApiError(this.#driverError(error), { meta: plan.meta, operation: 'delete' });
    }
  }

  /** Resolves when the database answers `select 1`; rejects with `ApiError.unavailable` otherwise. */
  async ping(): Promise<void> {
    try {
      await this.orm.em.getConnection().execute('select 1');
    } catch (error) {
      throw ApiError.unavailable(error);
    }
  }

  /** Closes MikroORM's connections. */
  async close(): Promise<void> {
    await this.orm.close();
  }

  /** Development helper: creates the tables of every entity (MikroORM `orm.schema.create()`). */
  async createSchema(): Promise<void> {
    await this.orm.schema.create();
  }

  /** Development helper: adds what the entities need and is missing (MikroORM `orm.schema.update({ safe: true })`: never drops a table or column). */
  async updateSchema(): Promise<void> {
    await updateSchemaSafely(this.orm);
  }

  /** Development helper: drops the tables of every entity (MikroORM `orm.schema.drop()`). */
  async dropSchema(): Promise<void> {
    await this.orm.schema.drop();
  }

  #plan(model: ModelClass): ModelPlan {
    let plan = this.#plans.get(model);
    if (plan === undefined) {
      plan = buildPlan(this.orm, model);
      this.#plans.set(model, plan);
    }
    return plan;
  }

  /** How this write may skip the unit of work, or undefined when it must not (see direct-writes.ts). */
  #directFor(
    plan: ModelPlan,
    session: EntityManager,
    kind: 'insert' | 'update' | 'delete',
  ): DirectWrites | undefined {
    if (!this.#directWrites) return undefined;
    let direct = this.#direct.get(plan);
    if (direct === undefined) {
      direct = planDirectWrites(plan, this.orm.em.getPlatform().usesReturningStatement());
      this.#direct.set(plan, direct);
    }
    return direct[kind] && quietEvents(session) ? direct : undefined;
  }

  #queryBuilder(session: EntityManager, plan: ModelPlan) {
    return (session as unknown as SqlEntityManager).createQueryBuilder(plan.entity as AnyEntity, ROOT_ALIAS);
  }

  /** The SQL of a page; the where covers the filters and, when paging by keyset, the position. */
  async #selectStatement(session: EntityManager, plan: ModelPlan, query: ListQuery): Promise<ListStatement> {
    const builder = (q: ListQuery) =>
      this.#queryBuilder(session, plan)
        .select(plan.select as AnyEntity)
        .where(listWhereOf(plan, q))
        .orderBy(orderByOf(plan, q.sort) as AnyEntity)
        .limit(q.limit, q.offset);
    if (!plan.filtered) return this.#lists.statement(plan, query, true, (q) => builder(q).toQuery());
    const qb = builder(query);
    await qb.applyFilters();
    return qb.toQuery();
  }

  /** The SQL counting the rows the filters match, wherever a keyset page starts. */
  async #countStatement(
    session: EntityManager,
    plan: ModelPlan,
    filters: ListQuery['filters'],
  ): Promise<ListStatement> {
    const builder = (q: ListQuery) =>
      this.#queryBuilder(session, plan).count().where(whereOf(plan, q.filters));
    const query: ListQuery = { filters, sort: [], limit: 0, offset: 0, withTotal: true };
    if (!plan.filtered) return this.#lists.statement(plan, query, false, (q) => builder(q).toQuery());
    const qb = builder(query);
    await qb.applyFilters();
    return qb.toQuery();
  }

  async #select(session: EntityManager, plan: ModelPlan, query: ListQuery): Promise<Row[]> {
    const statement = await this.#selectStatement(session, plan, query);
    const rows = await this.#statements.all(session, statement.sql, statement.params);
    return rows.map((row) => this.#mapped(plan, row));
  }

  async #count(session: EntityManager, plan: ModelPlan, filters: ListQuery['filters']): Promise<number> {
    const statement = await this.#countStatement(session, plan, filters);
    const row = await this.#statements.get(session, statement.sql, statement.params);
    // PostgreSQL's count(*) is a bigint, which pg hands over as a string.
    return row === undefined ? 0 : Number(row.count);
  }

  /**
   * A page and its total in one PostgreSQL statement: the count runs once as an uncorrelated
   * subquery in the select list. Two statements cost two round trips and hold two pooled
   * connections at once; the count still does the same work. Undefined when the page's SQL does
   * not have the expected form; no total when the page is empty.
   */
  async #pageWithTotal(
    session: EntityManager,
    plan: ModelPlan,
    query: ListQuery,
  ): Promise<{ rows: Row[]; total: number | undefined } | undefined> {
    const page = await this.#selectStatement(session, plan, query);
    const count = await this.#countStatement(session, plan, query.filters);
    const sql = withTotalColumn(page.sql, count.sql, this.#combined);
    if (sql === undefined) return undefined;
    const rows = await this.#statements.all(session, sql, [...count.params, ...page.params]);
    const first = rows[0];
    // An empty page carries no total: it is counted on its own.
    const total = first === undefined ? undefined : Number(first[TOTAL_COLUMN]);
    return {
      rows: rows.map((row) => {
        delete row[TOTAL_COLUMN];
        return this.#mapped(plan, row);
      }),
      total,
    };
  }

  #mapped(plan: ModelPlan, row: Row): Row {
    return this.orm.em.getDriver().mapResult(row as AnyEntity, plan.meta) as Row;
  }

  /** The node of the joint lookups' tree for these models, first to last: no key to build per request. */
  #jointLevel(plans: readonly ModelPlan[]): JointLevel {
    let level: JointLevel = this.#joints;
    for (const plan of plans) {
      let next = level.next.get(plan);
      if (next === undefined) {
        next = { next: new Map() };
        level.next.set(plan, next);
      }
      level = next;
    }
    return level;
  }

  /** Prepares the joint lookup of a tree node; null when these models cannot be read jointly (for now). */
  async #prepareJoint(
    level: JointLevel,
    session: EntityManager,
    plans: readonly ModelPlan[],
  ): Promise<JointLookup | null> {
    if (this.#dialect !== 'sqlite' && this.#dialect !== 'postgresql') {
      level.lookup = null;
      return null;
    }
    const lookup = await prepareJointLookup(this.orm, plans, this.#statements, session);
    // null: the column names could not be read in this session (a transaction…); try again later.
    if (lookup !== null) level.lookup = lookup ?? null;
    return lookup ?? null;
  }

  /** The row whose `field` equals `value`, through a lookup prepared once per field when possible. */
  async #lookup(
    session: EntityManager,
    plan: ModelPlan,
    field: FieldPlan,
    value: unknown,
  ): Promise<RawRecord | undefined> {
    let lookup = this.#lookups.get(field);
    if (lookup === undefined) {
      lookup = prepareLookup(this.orm, plan, field, this.#statements) ?? null;
      this.#lookups.set(field, lookup);
    }
    if (lookup === null) return this.#first(session, plan, { [field.field.name]: value });
    try {
      const row = await lookup(session, value);
      return row === undefined ? undefined : decodeRow(plan, row);
    } catch (error) {
      if (isMalformedKey(error)) return undefined;
      throw toApiError(this.#driverError(error), { meta: plan.meta, operation: 'read' });
    }
  }

  /** The managed entity with that key (hooks and cascades need one), or undefined. */
  async #load(session: EntityManager, plan: ModelPlan, key: Row): Promise<object | undefined> {
    try {
      const entity = (await session.findOne(plan.entity as AnyEntity, key as AnyEntity)) as object | null;
      return entity ?? undefined;
    } catch (error) {
      if (isMalformedKey(error)) return undefined;
      throw toApiError(this.#driverError(error), { meta: plan.meta, operation: 'read' });
    }
  }

  async #first(session: EntityManager, plan: ModelPlan, where: Row): Promise<RawRecord | undefined> {
    try {
      const qb = this.#queryBuilder(session, plan)
        .select(plan.select as AnyEntity)
        .where(where)
        .limit(1);
      if (plan.filtered) await qb.applyFilters();
      const { sql, params } = qb.toQuery();
      const row = await this.#statements.get(session, sql, params);
      return row == null ? undefined : decodeRow(plan, this.#mapped(plan, row));
    } catch (error) {
      if (isMalformedKey(error)) return undefined;
      throw toApiError(this.#driverError(error), { meta: plan.meta, operation: 'read' });
    }
  }

  #writeError(error: unknown, plan: ModelPlan, values: Row): unknown {
    // MikroORM checks required properties and value types itself, before any SQL runs.
    if (error instanceof ValidationError) {
      const required = /^Value for \w+\.(\w+) is required/.exec(error.message);
      if (required?.[1]) return ApiError.validation([{ path: required[1], message: 'A value is required.' }]);
      return ApiError.validation([], 'A value cannot be stored in its column.');
    }
    return toApiError(this.#driverError(error), { meta: plan.meta, operation: 'write', values });
  }

  // Query builder executions hand back the driver's own errors (SqliteError, pg's DatabaseError…);
  // MikroORM's converter turns them into its typed exceptions, as its EntityManager paths do.
  #driverError(error: unknown): unknown {
    if (
      error instanceof ApiError ||
      error instanceof DriverException ||
      error instanceof ValidationError ||
      !(error instanceof Error)
    )
      return error;
    if (isConnectionError(error)) return error;
    const { code, errno, sqlState } = error as { code?: unknown; errno?: unknown; sqlState?: unknown };
    if (code === undefined && errno === undefined && sqlState === undefined) return error;
    return this.orm.em.getDriver().convertException(error);
  }
}
