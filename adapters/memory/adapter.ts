/**
 * `MemoryAdapter`: the reference `OrmAdapter`. It keeps rows in Maps and behaves as a SQL adapter
 * must (generated keys, defaults, NOT NULL, UNIQUE, foreign keys, SQL filter and sort semantics),
 * so the core can be tested without a database and adapter authors have a model to follow.
 */
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
} from '../../lib/types.js';
import { compileModels } from './compile-models.js';
import type { CompiledModel } from './compiled.js';
import type { MemoryModelDeclaration } from './declaration.js';
import { readLinks } from './link-reads.js';
import type { RelatedRows } from './paths.js';
import { runListQuery } from './query.js';
import { MemorySession } from './session.js';
import { MemoryStore } from './store.js';
import { copyRow, toStored, ValueProblem } from './values.js';

/** Options of `new MemoryAdapter()`. */
export interface MemoryAdapterOptions {
  /** Every model this adapter serves, with its fields (see `defineMemoryModel`). */
  readonly models: readonly MemoryModelDeclaration[];
  /** The adapter's name in logs and conformance reports (default `memory`). */
  readonly name?: string;
}

/**
 * An `OrmAdapter` over Maps. Rows returned are deep copies; values have the forms a SQL adapter
 * returns (`datetime` as `Date`, `date` as `'YYYY-MM-DD'`, `bigint`/`decimal` as strings).
 * Lists follow SQL: comparisons never match NULL, `$like` is case-sensitive (`$ilike` folds case), strings order by
 * code point, and NULLs sort like PostgreSQL (last ascending, first descending). Collections
 * (one-to-many, many-to-many) are read with `links()`; an owning many-to-many is written as an
 * array of target keys with its record.
 *
 * @example
 * const adapter = new MemoryAdapter({ models: [defineMemoryModel(Person, { id: { type: 'integer', primary: true, generated: true }, name: { type: 'string' } })] });
 * const app = new Application({ title: 'Test', adapter });
 */
export class MemoryAdapter implements OrmAdapter<MemorySession> {
  readonly name: string;
  readonly #models: ReadonlyMap<ModelClass, CompiledModel>;
  readonly #store: MemoryStore;
  readonly #sessions = new WeakSet<MemorySession>();
  readonly #related: RelatedRows;
  #available = true;
  #closed = false;

  constructor(options: MemoryAdapterOptions) {
    this.name = options.name ?? 'memory';
    this.#models = compileModels(options.models);
    this.#store = new MemoryStore(this.#models);
    const store = this.#store;
    this.#related = {
      describe: (model) => store.modelOf(model).description,
      find: (model, key) => store.find(model, key),
    };
  }

  /** Whether data methods currently answer (see `setAvailable`); false after `close()`. */
  get available(): boolean {
    return this.#available && !this.#closed;
  }

  /**
   * Simulates an outage: while false, every data method and `ping()` rejects with
   * `ApiError.unavailable` (503 + `Retry-After`), as a SQL adapter does when the database is gone.
   * `describe` and `openSession` keep working, as they need no connection.
   */
  setAvailable(available: boolean): void {
    this.#available = available;
  }

  /** Deletes every row and restarts every sequence (for tests that reuse one adapter). */
  clear(): void {
    this.#store.clear();
  }

  describe(model: ModelClass): ModelDescription {
    const compiled = this.#models.get(model);
    if (compiled === undefined) {
      throw new ConfigurationError(
        `Model ${model.name} is not declared to this MemoryAdapter; add it to the \`models\` option.`,
      );
    }
    return compiled.description;
  }

  openSession(): MemorySession {
    const session = new MemorySession();
    this.#sessions.add(session);
    return session;
  }

  async list(session: MemorySession, model: ModelClass, query: ListQuery): Promise<ListResult> {
    this.#enter(session);
    const description = this.#store.modelOf(model).description;
    const result = runListQuery(description, this.#store.rows(model), query, this.#related);
    return { ...result, rows: result.rows.map(copyRow) };
  }

  async get(session: MemorySession, model: ModelClass, id: RecordId): Promise<RawRecord | undefined> {
    this.#enter(session);
    const row = this.#store.find(model, id);
    return row === undefined ? undefined : copyRow(row);
  }

  async findBy(
    session: MemorySession,
    model: ModelClass,
    field: string,
    value: unknown,
  ): Promise<RawRecord | undefined> {
    this.#enter(session);
    const compiled = this.#store.modelOf(model).fieldsByName.get(field);
    if (compiled === undefined) throw new TypeError(`findBy: ${model.name} has no field "${field}".`);
    let wanted: unknown;
    try {
      wanted = toStored(compiled.field, value);
    } catch (error) {
      // A value the column cannot hold equals no row.
      if (error instanceof ValueProblem) return undefined;
      throw error;
    }
    const query: ListQuery = {
      filters: [{ field, op: '$eq', value: wanted }],
      sort: [],
      limit: 1,
      offset: 0,
      withTotal: false,
    };
    const description = this.#store.modelOf(model).description;
    const [row] = runListQuery(description, this.#store.rows(model), query, this.#related).rows;
    return row === undefined ? undefined : copyRow(row);
  }

  async links(
    session: MemorySession,
    model: ModelClass,
    collection: string,
    owners: readonly RecordId[],
    perOwner: number,
  ): Promise<readonly RelationLink[]> {
    this.#enter(session);
    return readLinks(this.#store, model, collection, owners, perOwner);
  }

  async create(session: MemorySession, model: ModelClass, data: Readonly<RawRecord>): Promise<RawRecord> {
    this.#enter(session);
    return copyRow(this.#store.insert(model, data));
  }

  async update(
    session: MemorySession,
    model: ModelClass,
    id: RecordId,
    data: Readonly<RawRecord>,
  ): Promise<RawRecord | undefined> {
    this.#enter(session);
    const row = this.#store.update(model, id, data);
    return row === undefined ? undefined : copyRow(row);
  }

  async delete(session: MemorySession, model: ModelClass, id: RecordId): Promise<boolean> {
    this.#enter(session);
    return this.#store.delete(model, id);
  }

  async ping(): Promise<void> {
    this.#checkAvailable();
  }

  /** Marks the adapter closed: later calls reject with `ApiError.unavailable`, as with a closed pool. */
  async close(): Promise<void> {
    this.#closed = true;
  }

  #checkAvailable(): void {
    if (this.#closed) throw ApiError.unavailable(new Error(`${this.name}: the adapter is closed`));
    if (!this.#available)
      throw ApiError.unavailable(new Error(`${this.name}: simulated outage (setAvailable(false))`));
  }

  /** Every data method starts here: availability first, then a session of this adapter. */
  #enter(session: MemorySession): void {
    this.#checkAvailable();
    if (!this.#sessions.has(session))
      throw new TypeError(`${this.name}: the session was not opened by this adapter.`);
  }
}
