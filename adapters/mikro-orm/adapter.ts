/**
 * `MikroOrmAdapter`: the core's `OrmAdapter` over MikroORM 7 (SQLite, PostgreSQL, MySQL/MariaDB).
 *
 * Two paths serve the same contract. The plain path (plain-mode.ts) uses only MikroORM's public
 * API and serializer: it is the reference. The fast path reads plain rows through the query
 * builder and prepared statements and writes with single statements where the unit of work would
 * do nothing else (direct-writes.ts); it serves only models whose shape it is proved equal on
 * (fast-path.ts, spec/adapters/mikro-orm/fidelity) and only when the MikroORM internals it needs
 * are there. `mode: 'plain'` turns it off.
 *
 * Relations: the links of a to-many relation come from one statement of the adapter's own
 * (links.ts) on both paths; a write that sets a collection always goes through the unit of work,
 * which writes the record and its links in the transaction of one flush.
 */
import { setTimeout as wait } from 'node:timers/promises';
import type { EntityManager } from '@mikro-orm/core';
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
  RelationLink,
  SessionOptions,
} from '../../lib/types.js';
import { type MikroOrmConnectOptions, ormFromUrl } from './connect.js';
import { databaseGone } from './database-gone.js';
import type { AnyMikroORM } from './describe.js';
import {
  type DirectWrites,
  directDelete,
  directInsert,
  directUpdate,
  planDirectWrites,
  prepareInsert,
  quietEvents,
} from './direct-writes.js';
import { referencesNothing } from './errors.js';
import { AdapterFailures, isMalformedKey } from './failures.js';
import { loadListenerObstacle, missingInternal, queryObstacle } from './fast-path.js';
import { hiddenReferences } from './filtered-references.js';
import { LinkReader } from './links.js';
import { type ListStatement, ListStatements } from './list-statements.js';
import { type Lookup, prepareLookup } from './lookup.js';
import { missingTables } from './missing-tables.js';
import { type CombinedCache, TOTAL_COLUMN, withTotalColumn } from './page-total.js';
import { PlainPath } from './plain-mode.js';
import {
  buildPlan,
  type Dialect,
  decodeRow,
  dialectOf,
  encodeCollections,
  encodeData,
  type FieldPlan,
  keyOfNoRow,
  type ModelPlan,
  ROOT_ALIAS,
} from './plan.js';
import { carriesValues, listWhereOf, orderByOf, whereOf } from './query.js';
import { type RuntimeFilters, runtimeFiltersOf } from './runtime-filters.js';
import { updateSchemaSafely } from './schema.js';
import { markWritten, readFromPrimary } from './session-state.js';
import { type NamedStatements, StatementRunner } from './statements.js';
import { unloadableReferences } from './subclass-references.js';
import { readCollationsOrWarn } from './unread-collations.js';

/** Options of `new MikroOrmAdapter(orm, options)`. */
export interface MikroOrmAdapterOptions {
  /** The adapter's name in logs and reports; defaults to `mikro-orm:<platform>`. */
  readonly name?: string;
  /**
   * Let writes to models with nothing for the unit of work to do (no hooks, subscribers, cascades…)
   * run as one `INSERT/UPDATE … RETURNING` or `DELETE` statement (default true; see direct-writes.ts).
   */
  readonly directWrites?: boolean;
  /**
   * `fast` (default): the adapter's own SQL path serves the models it is proved equal on, MikroORM's
   * public API the rest. `plain`: every model through `em.find`/`em.create`/… and MikroORM's serializer.
   */
  readonly mode?: 'fast' | 'plain';
  /**
   * PostgreSQL named (server-side prepared) statements, planned once per connection (bench/NOTES.md,
   * "Figures behind code comments": named statements). `'auto'` (default): named until a pooler in
   * transaction mode loses one (42P05/26000), then unnamed for good with one
   * `KMA_NAMED_STATEMENTS_OFF` warning, the failed statement run again unnamed. `true`: always
   * named, those errors reach the request (direct connections, PgBouncer 1.21+ with
   * `max_prepared_statements`). `false`: never (docs/deployment.md).
   */
  readonly namedStatements?: NamedStatements;
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

/** How long `connect()` waits for the check of filters added before the adapter existed. */
const FILTER_PROBE_WAIT_MS = 1_000;

/** Why the fast path cannot run on this MikroORM at all (warned once), or undefined when it can. */
function fastPathUnavailable(orm: AnyMikroORM): string | undefined {
  const missing = missingInternal(orm);
  if (missing === undefined) return undefined;
  process.emitWarning(
    `koa-model-api: this MikroORM lacks ${missing}, which the adapter's fast path uses; every model is served through MikroORM's public API instead (correct, slower).`,
    { code: 'KMA_FAST_PATH_OFF' },
  );
  return `MikroORM lacks ${missing}`;
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
  readonly #failures: AdapterFailures;
  readonly #plain: PlainPath;
  readonly #runtimeFilters: RuntimeFilters;
  readonly #links: LinkReader;
  // Why the fast path is off for every model (plain mode, or a MikroORM internal it needs is missing).
  readonly #fastOff: string | undefined;

  /**
   * Wraps a MikroORM instance you built yourself; build it with `mikroOrmOptions()` so table names
   * and mixin columns follow koa-model-api's conventions (`describe` refuses models where it matters).
   * It reads no collations (`connect`, `createSchema` and `updateSchema` do): until then only a
   * collation declared on a MySQL/MariaDB key pairs keys loosely (`include=`).
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
    this.#statements = new StatementRunner(orm, this.#dialect, {
      ...(options.namedStatements === undefined ? {} : { namedStatements: options.namedStatements }),
    });
    this.#failures = new AdapterFailures(orm);
    // Starts finding the filters added with `em.addFilter()` before now; later ones are recorded.
    this.#runtimeFilters = runtimeFiltersOf(orm);
    this.#plain = new PlainPath(orm, this.#failures);
    this.#fastOff = options.mode === 'plain' ? 'plain mode' : fastPathUnavailable(orm);
    // Links are read with the adapter's own SQL either way; the fast path only prepares it.
    this.#links = new LinkReader(orm, this.#fastOff === undefined ? this.#statements : undefined);
  }

  /** Why this model is served by the plain path, or undefined when the fast path serves it. */
  plainReason(model: ModelClass): string | undefined {
    const plan = this.#plan(model);
    // Sessions are forks of the global EntityManager and share its subscribers.
    return this.#fastOff ?? plan.fastObstacle ?? loadListenerObstacle(this.orm.em, plan.meta);
  }

  /**
   * Builds MikroORM from a database URL and wraps it.
   * @example
   * const adapter = await MikroOrmAdapter.connect({ url: 'sqlite:data/app.db', entities: [User, Post], schema: 'update' });
   */
  static async connect(
    options: MikroOrmConnectOptions &
      Pick<MikroOrmAdapterOptions, 'mode' | 'directWrites' | 'namedStatements'>,
  ): Promise<MikroOrmAdapter> {
    const { mode, directWrites, namedStatements, ...connect } = options;
    const orm = await ormFromUrl(connect);
    // After `schema` made the tables: their collations decide which keys `include=` pairs loosely.
    // A database down at start is answered 503 later; its keys are then paired as declared only.
    await readCollationsOrWarn(orm);
    const scheme = options.url.startsWith('sqlite:')
      ? 'sqlite'
      : (/^([a-z]+):/i.exec(options.url)?.[1] ?? '').toLowerCase();
    const adapter = new MikroOrmAdapter(orm, {
      name: `mikro-orm:${scheme === 'postgres' ? 'postgresql' : scheme}`,
      ...(mode === undefined ? {} : { mode }),
      ...(directWrites === undefined ? {} : { directWrites }),
      ...(namedStatements === undefined ? {} : { namedStatements }),
    });
    // Filters found before any request, so that models no filter reaches start on the fast path.
    // Bounded: a filter's condition may query a database that is down; until the answer comes,
    // every model is served plainly (correct, slower).
    await Promise.race([
      adapter.#runtimeFilters.settled,
      wait(FILTER_PROBE_WAIT_MS, undefined, { ref: false }),
    ]);
    return adapter;
  }

  /** The model's description, read once from MikroORM's metadata. */
  describe(model: ModelClass): ModelDescription {
    return this.#plan(model).description;
  }

  /** A fresh unit of work: `orm.em.fork()`; with `primary`, one whose reads all go to the primary. */
  openSession(options?: SessionOptions): EntityManager {
    const session = this.orm.em.fork();
    if (options?.primary === true) readFromPrimary(session);
    return session;
  }

  async list(session: EntityManager, model: ModelClass, query: ListQuery): Promise<ListResult> {
    const plan = this.#plan(model);
    if (this.#isPlain(plan, session) || queryObstacle(plan, query) !== undefined)
      return this.#plain.list(session, plan, query);
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
      throw await this.#failures.read(error, plan, carriesValues(query));
    }
  }

  // Not async: it hands on the promise of the path that reads, one microtask sooner; a failure
  // before that is still a rejection.
  get(session: EntityManager, model: ModelClass, id: RecordId): Promise<RawRecord | undefined> {
    try {
      const plan = this.#plan(model);
      const key = plan.primary.encode(id);
      if (keyOfNoRow(plan.primary, key)) return Promise.resolve(undefined);
      if (this.#isPlain(plan, session)) return this.#plain.findOne(session, plan, plan.primary, key);
      return this.#lookup(session, plan, plan.primary, key);
    } catch (error) {
      return Promise.reject(error);
    }
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
    const encoded = value === null || value === undefined ? null : target.encode(value);
    if (keyOfNoRow(target, encoded)) return undefined;
    if (this.#isPlain(plan, session)) return this.#plain.findOne(session, plan, target, encoded);
    if (encoded === null) return this.#first(session, plan, { [target.prop.name]: null });
    return this.#lookup(session, plan, target, encoded);
  }

  /**
   * The links of a to-many relation for the given owners, in one statement (links.ts): per owner
   * in the order MikroORM's populate gives them, then by target key, at most `perOwner` of them.
   */
  async links(
    session: EntityManager,
    model: ModelClass,
    collection: string,
    owners: readonly RecordId[],
    perOwner: number,
  ): Promise<readonly RelationLink[]> {
    const plan = this.#plan(model);
    const found = plan.collections.get(collection);
    if (found === undefined)
      throw new ConfigurationError(`${plan.description.name} has no collection ${collection}.`);
    try {
      return await this.#links.links(session, plan, found, owners, perOwner);
    } catch (error) {
      if (isMalformedKey(error)) return [];
      throw await this.#failures.read(error, plan);
    }
  }

  async create(session: EntityManager, model: ModelClass, data: Readonly<RawRecord>): Promise<RawRecord> {
    const plan = this.#plan(model);
    // A new record has no links: an empty array has nothing to write.
    const links = Object.fromEntries(
      Object.entries(encodeCollections(plan, data)).filter(([, keys]) => keys.length > 0),
    );
    const values = { ...encodeData(plan, data), ...links };
    const unreachable = await this.#unreachableReferences(session, plan, values);
    if (unreachable.length > 0) throw referencesNothing(unreachable);
    if (this.#isPlain(plan, session)) return this.#plain.create(session, plan, values);
    // A row of defaults only: the query builder writes `insert … default values`, which MariaDB
    // and MySQL refuse; the unit of work writes the form each database takes. Links are the unit of
    // work's to write, with the row, in the transaction of its flush.
    const onlyDefaults = Object.keys(values).length === 0;
    const direct =
      onlyDefaults || Object.keys(links).length > 0 ? undefined : this.#directFor(plan, session, 'insert');
    const stored = direct === undefined ? undefined : prepareInsert(plan, direct, values);
    if (direct?.returning === true && stored !== undefined) {
      // One statement writes and answers: nothing to read back, nothing left behind by a failure.
      let inserted: Awaited<ReturnType<typeof directInsert>>;
      try {
        inserted = await directInsert(session, plan, direct, stored, this.#statements);
        markWritten(session);
      } catch (error) {
        throw await this.#failures.write(error, plan, values, session);
      }
      if ('row' in inserted) return decodeRow(plan, inserted.row);
      return this.#readBack(session, plan, inserted.id);
    }
    // The write and the read of its answer in one transaction, as the plain path's: a create
    // answered with an error (its row unreadable, the connection lost before the read) leaves no
    // row behind. MySQL and MariaDB return no row from an insert; hooks, subscribers or cascades
    // need the unit of work, which writes, and the row is read back.
    return this.#plain.answered(session, plan, values, async () => {
      if (direct === undefined || stored === undefined)
        return this.#readBack(session, plan, await this.#plain.insert(session, plan, values, false));
      const inserted = await directInsert(session, plan, direct, stored, this.#statements);
      markWritten(session);
      return 'row' in inserted ? decodeRow(plan, inserted.row) : this.#readBack(session, plan, inserted.id);
    }) as Promise<RawRecord>;
  }

  /** The row just inserted with this key. */
  async #readBack(session: EntityManager, plan: ModelPlan, id: unknown): Promise<RawRecord> {
    const stored = await this.#first(session, plan, { [plan.primary.prop.name]: id });
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
    const encoded = plan.primary.encode(id);
    if (keyOfNoRow(plan.primary, encoded)) return undefined;
    const key = { [plan.primary.prop.name]: encoded };
    // A row keeps its key: the contract never lets a route change a primary key.
    const { [plan.primary.field.name]: _key, ...changes } = data;
    const links = encodeCollections(plan, changes);
    const values = { ...encodeData(plan, changes), ...links };
    const unreachable = await this.#unreachableReferences(session, plan, values);
    if (unreachable.length > 0) {
      // A row whose own relation's target a filter hides is hidden too: the update of a row no
      // read finds is a 404, as without the check, whatever it would write.
      if ((await this.get(session, model, id)) === undefined) return undefined;
      throw referencesNothing(unreachable);
    }
    if (this.#isPlain(plan, session)) return this.#plain.update(session, plan, key, values);
    const direct = Object.keys(links).length > 0 ? undefined : this.#directFor(plan, session, 'update');
    if (direct !== undefined) {
      if (Object.keys(values).length === 0) return this.#first(session, plan, key);
      let updated: Row | undefined | true;
      try {
        updated = await directUpdate(session, plan, direct, key, values, this.#statements);
        markWritten(session);
      } catch (error) {
        if (isMalformedKey(error)) return undefined;
        throw await this.#failures.write(error, plan, values, session);
      }
      if (updated === true) return this.#first(session, plan, key);
      return updated === undefined ? undefined : decodeRow(plan, updated);
    }
    const changed = await this.#plain.change(session, plan, key, values);
    return changed === undefined ? undefined : this.#first(session, plan, key);
  }

  async delete(session: EntityManager, model: ModelClass, id: RecordId): Promise<boolean> {
    const plan = this.#plan(model);
    const encoded = plan.primary.encode(id);
    if (keyOfNoRow(plan.primary, encoded)) return false;
    const key = { [plan.primary.prop.name]: encoded };
    if (this.#isPlain(plan, session)) return this.#plain.delete(session, plan, key);
    if (this.#directFor(plan, session, 'delete') !== undefined) {
      try {
        const deleted = await directDelete(session, plan, key, this.#statements);
        markWritten(session);
        return deleted;
      } catch (error) {
        if (isMalformedKey(error)) return false;
        throw await this.#failures.remove(error, plan);
      }
    }
    // Cascades, hooks or subscribers to run: the unit of work removes the entity.
    return this.#plain.delete(session, plan, key);
  }

  /** Resolves when the database answers `select 1` and still exists; rejects with `ApiError.unavailable` otherwise. */
  async ping(): Promise<void> {
    try {
      await this.orm.em.getConnection().execute('select 1');
    } catch (error) {
      throw ApiError.unavailable(error);
    }
    // A MariaDB/MySQL connection that outlived a dropped database still answers `select 1`.
    if (await databaseGone(this.orm))
      throw ApiError.unavailable(new Error('The database no longer exists on its server.'));
    let missing: string[];
    try {
      missing = await missingTables(this.orm, this.#plans.values());
    } catch (error) {
      throw ApiError.unavailable(error);
    }
    if (missing.length > 0)
      throw ApiError.unavailable(new Error(`The database has no table ${missing.join(', ')} yet.`));
  }

  /** Closes MikroORM's connections. */
  async close(): Promise<void> {
    await this.orm.close();
  }

  /** Development helper: creates the tables of every entity (MikroORM `orm.schema.create()`). */
  async createSchema(): Promise<void> {
    await this.orm.schema.create();
    // The new tables' collations, for the models described from now on.
    await readCollationsOrWarn(this.orm);
  }

  /** Development helper: adds what the entities need and is missing (MikroORM `orm.schema.update({ safe: true })`: never drops a table or column). */
  async updateSchema(): Promise<void> {
    await updateSchemaSafely(this.orm);
    await readCollationsOrWarn(this.orm);
  }

  /** Development helper: drops the tables of every entity (MikroORM `orm.schema.drop()`). */
  async dropSchema(): Promise<void> {
    await this.orm.schema.drop();
  }

  #plan(model: ModelClass): ModelPlan {
    let plan = this.#plans.get(model);
    if (plan === undefined) {
      plan = buildPlan(this.orm, model, (target) => this.#plan(target));
      this.#plans.set(model, plan);
    }
    return plan;
  }

  /** Whether the plain path serves this model in this session. */
  #isPlain(plan: ModelPlan, session: EntityManager): boolean {
    return (
      this.#fastOff !== undefined ||
      plan.fastObstacle !== undefined ||
      loadListenerObstacle(session, plan.meta) !== undefined
    );
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
      direct = planDirectWrites(plan, {
        returning: this.orm.em.getPlatform().usesReturningStatement(),
        mergeObjectProperties: this.orm.config.get('assign')?.mergeObjectProperties === true,
      });
      this.#direct.set(plan, direct);
    }
    return direct[kind] && quietEvents(session) ? direct : undefined;
  }

  /**
   * The written relations whose key names no row a read of the target finds: a single-table
   * subclass's relation given another class's row (subclass-references.ts), a filtered target's
   * relation given a row its filter hides (filtered-references.ts). Nothing to ask for models
   * without such relations.
   */
  async #unreachableReferences(session: EntityManager, plan: ModelPlan, values: Row): Promise<string[]> {
    const filtered = plan.filteredReferences;
    if (plan.subclassReferences.length === 0 && filtered.length === 0) return [];
    // A filtered read of a subclass applies its discriminator too: one question per relation.
    const subclass = plan.subclassReferences.filter((field) => !filtered.includes(field));
    let wrong: FieldPlan[];
    try {
      wrong = [
        ...(await unloadableReferences(session, subclass, values)),
        ...(await hiddenReferences(session, filtered, values)),
      ];
    } catch (error) {
      // A key the column cannot hold: the write itself answers for it.
      if (isMalformedKey(error)) return [];
      throw await this.#failures.read(error, plan);
    }
    return plan.fields.filter((field) => wrong.includes(field)).map((field) => field.field.name);
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
      // The total column stays on each row: decodeRow reads the model's fields only, and deleting a
      // property turns each row into a dictionary-mode object, slower to build and to read.
      rows: rows.map((row) => this.#mapped(plan, row)),
      total,
    };
  }

  #mapped(plan: ModelPlan, row: Row): Row {
    return this.orm.em.getDriver().mapResult(row as AnyEntity, plan.meta) as Row;
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
    if (lookup === null) return this.#first(session, plan, { [field.prop.name]: value });
    try {
      const row = await lookup(session, value);
      return row === undefined ? undefined : decodeRow(plan, row);
    } catch (error) {
      if (isMalformedKey(error)) return undefined;
      throw await this.#failures.read(error, plan);
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
      throw await this.#failures.read(error, plan);
    }
  }
}
