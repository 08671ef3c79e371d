/**
 * The rows of every declared model, in Maps keyed by primary key, with the constraints a SQL
 * database enforces: types, NOT NULL, UNIQUE, foreign keys (a required reference restricts the
 * delete of its target, a nullable one is set to NULL, as MikroORM's defaults do), sequences
 * that never reuse a value; the link tables of many-to-many collections (links.ts), whose rows
 * go with either side's row. Every write, links included, is checked in full before anything
 * changes, so a refused write leaves the store as it was.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, type FieldError } from '../../lib/errors.js';
import type { ModelClass, RawRecord, RecordId } from '../../lib/types.js';
import type { CompiledField, CompiledModel } from './compiled.js';
import { type KeyExists, type LinkWrite, planLinkWrites } from './link-writes.js';
import { type Key, LinkTable } from './links.js';
import { storedEquals } from './query.js';
import { keyFromId, toStored, ValueProblem } from './values.js';

/** Rows that refer to one key through one many-to-one field. */
interface Reference {
  readonly table: Table;
  readonly field: CompiledField;
  readonly rows: RawRecord[];
}

interface Table {
  readonly model: CompiledModel;
  readonly rows: Map<Key, RawRecord>;
  /** The last value handed out per sequence field (number for integer, bigint for bigint). */
  readonly sequences: Map<string, number | bigint>;
  /** The links of each owning many-to-many collection of the model, by collection name. */
  readonly linkTables: Map<string, LinkTable>;
}

/** The storage of a `MemoryAdapter`. Rows it returns are its own: callers copy them. */
export class MemoryStore {
  readonly #tables = new Map<ModelClass, Table>();

  constructor(models: ReadonlyMap<ModelClass, CompiledModel>) {
    for (const [model, compiled] of models) {
      const linkTables = new Map<string, LinkTable>();
      for (const { description, source } of compiled.collections.values()) {
        if (source.kind === 'link-table' && !source.inverse)
          linkTables.set(description.name, new LinkTable());
      }
      this.#tables.set(model, { model: compiled, rows: new Map(), sequences: new Map(), linkTables });
    }
  }

  /** Empties every table and restarts every sequence. */
  clear(): void {
    for (const table of this.#tables.values()) {
      table.rows.clear();
      table.sequences.clear();
      for (const links of table.linkTables.values()) links.clear();
    }
  }

  /** The link table of an owning many-to-many collection. */
  linkTable(owner: ModelClass, collection: string): LinkTable {
    const links = this.#table(owner).linkTables.get(collection);
    if (links === undefined)
      throw new TypeError(`${owner.name}.${collection} is not an owning many-to-many collection.`);
    return links;
  }

  /** The declared model, or an error naming the undeclared class. */
  modelOf(model: ModelClass): CompiledModel {
    return this.#table(model).model;
  }

  /** The stored rows of a model, in insertion order. */
  rows(model: ModelClass): Iterable<RawRecord> {
    return this.#table(model).rows.values();
  }

  /** The stored row with that primary key. */
  find(model: ModelClass, id: RecordId): RawRecord | undefined {
    const table = this.#table(model);
    const key = keyFromId(table.model.primary.field.type, id);
    return key === undefined ? undefined : table.rows.get(key);
  }

  /** Inserts a row: given values, then generated values and defaults, then NULL. */
  insert(model: ModelClass, data: Readonly<RawRecord>): RawRecord {
    const table = this.#table(model);
    const problems = this.#unknownFields(table, data);
    const row: RawRecord = {};
    for (const compiled of table.model.fields) {
      const { field } = compiled;
      if (data[field.name] !== undefined) {
        row[field.name] = this.#convert(compiled, data[field.name], problems);
      } else if (compiled.generator === 'uuid') {
        row[field.name] = randomUUID();
      } else if (compiled.generator === 'sequence') {
        const next = this.#nextInSequence(table, compiled);
        row[field.name] = typeof next === 'bigint' ? next.toString() : next;
      } else if (compiled.makeDefault !== undefined) {
        row[field.name] = compiled.makeDefault();
      } else {
        row[field.name] = null;
      }
    }
    this.#checkRow(table, row, table.model.fields, problems);
    const key = row[table.model.primary.field.name] as Key;
    const links = planLinkWrites(table.model, data, this.#keyExists(table, key), problems);
    if (problems.length > 0) throw ApiError.validation(problems);
    this.#checkUnique(table, row, undefined);
    this.#advanceSequences(table, row);
    table.rows.set(key, row);
    this.#writeLinks(key, links);
    return row;
  }

  /** Changes the given fields of a row; `undefined` when there is no such row. */
  update(model: ModelClass, id: RecordId, data: Readonly<RawRecord>): RawRecord | undefined {
    const table = this.#table(model);
    const pkName = table.model.primary.field.name;
    const oldKey = keyFromId(table.model.primary.field.type, id);
    const current = oldKey === undefined ? undefined : table.rows.get(oldKey);
    if (current === undefined || oldKey === undefined) return undefined;
    const problems = this.#unknownFields(table, data);
    const next: RawRecord = { ...current };
    const changed: CompiledField[] = [];
    for (const compiled of table.model.fields) {
      const value = data[compiled.field.name];
      if (value === undefined) continue;
      next[compiled.field.name] = this.#convert(compiled, value, problems);
      changed.push(compiled);
    }
    this.#checkRow(table, next, changed, problems);
    const newKey = next[pkName] as Key;
    const links = planLinkWrites(table.model, data, this.#keyExists(table, newKey, oldKey), problems);
    if (problems.length > 0) throw ApiError.validation(problems);
    this.#checkUnique(table, next, oldKey);
    if (newKey !== oldKey) {
      // Foreign keys have no ON UPDATE rule here: a referenced key cannot change.
      this.#restrictIfReferenced(table, oldKey, 'change the key of', true);
      table.rows.delete(oldKey);
      // Link tables cascade, like MikroORM's pivot tables.
      this.#eachLinkTableOf(table, (links, side) =>
        side === 'owner' ? links.renameOwner(oldKey, newKey) : links.renameTarget(oldKey, newKey),
      );
    }
    this.#advanceSequences(table, next);
    table.rows.set(newKey, next);
    this.#writeLinks(newKey, links);
    return next;
  }

  /** Deletes a row; false when there was none. Required references to it refuse the delete. */
  delete(model: ModelClass, id: RecordId): boolean {
    const table = this.#table(model);
    const key = keyFromId(table.model.primary.field.type, id);
    if (key === undefined || !table.rows.has(key)) return false;
    this.#restrictIfReferenced(table, key, 'delete', false);
    for (const { field, rows } of this.#referencesTo(table, key)) {
      for (const row of rows) row[field.field.name] = null;
    }
    this.#eachLinkTableOf(table, (links, side) =>
      side === 'owner' ? links.removeOwner(key) : links.removeTarget(key),
    );
    table.rows.delete(key);
    return true;
  }

  #table(model: ModelClass): Table {
    const table = this.#tables.get(model);
    if (table === undefined)
      throw new TypeError(`Model ${model.name} is not declared to this MemoryAdapter.`);
    return table;
  }

  #unknownFields(table: Table, data: Readonly<RawRecord>): FieldError[] {
    return Object.keys(data)
      .filter((name) => !table.model.fieldsByName.has(name) && !table.model.collections.has(name))
      .map((name) => ({ path: name, message: `is not a field of ${table.model.description.name}` }));
  }

  #convert(compiled: CompiledField, value: unknown, problems: FieldError[]): unknown {
    try {
      return toStored(compiled.field, value);
    } catch (error) {
      if (!(error instanceof ValueProblem)) throw error;
      problems.push({ path: compiled.field.name, message: error.message });
      return null;
    }
  }

  /** NOT NULL and foreign key checks of the given fields (type problems are already listed). */
  #checkRow(table: Table, row: RawRecord, fields: readonly CompiledField[], problems: FieldError[]): void {
    const listed = new Set(problems.map((problem) => problem.path));
    for (const { field, target } of fields) {
      if (listed.has(field.name)) continue;
      const value = row[field.name];
      if (value === null) {
        if (!field.nullable) problems.push({ path: field.name, message: 'must not be null' });
      } else if (target !== undefined && !this.#referenceExists(table, row, target, value)) {
        problems.push({
          path: field.name,
          message: `refers to a ${field.relation?.target ?? target.name} that does not exist`,
        });
      }
    }
  }

  /**
   * For link checks: a row of `target` with that key exists, or is the row being written (under
   * `ownKey`, no longer under `oldKey` when its key changes).
   */
  #keyExists(table: Table, ownKey: Key, oldKey?: Key): KeyExists {
    return (target, key) => {
      if (this.#table(target) !== table) return this.#table(target).rows.has(key);
      return key === ownKey || (key !== oldKey && table.rows.has(key));
    };
  }

  /** Applies checked collection writes: each replaces the owner's whole set of links. */
  #writeLinks(owner: Key, writes: readonly LinkWrite[]): void {
    for (const { collection, targets } of writes) {
      const { source } = collection;
      if (source.kind === 'link-table') this.linkTable(source.owner, source.name).replace(owner, targets);
    }
  }

  /** Every link table in which rows of `table` take part, with the side they are on. */
  #eachLinkTableOf(table: Table, visit: (links: LinkTable, side: 'owner' | 'target') => void): void {
    const model = table.model.description.model;
    for (const other of this.#tables.values()) {
      for (const [name, links] of other.linkTables) {
        if (other === table) visit(links, 'owner');
        const collection = other.model.collections.get(name);
        if (collection?.description.targetModel === model) visit(links, 'target');
      }
    }
  }

  #referenceExists(table: Table, row: RawRecord, target: ModelClass, value: unknown): boolean {
    const targetTable = this.#table(target);
    // A row may refer to itself (self-referencing models), as in SQL where the check runs after the insert.
    if (targetTable === table && value === row[table.model.primary.field.name]) return true;
    return targetTable.rows.has(value as Key);
  }

  #checkUnique(table: Table, row: RawRecord, ownKey: Key | undefined): void {
    const pkName = table.model.primary.field.name;
    const conflicts: FieldError[] = [];
    const key = row[pkName] as Key;
    if (key !== ownKey && table.rows.has(key)) conflicts.push({ path: pkName, message: 'already exists' });
    for (const { field } of table.model.fields) {
      if (!field.unique || field.primary || row[field.name] === null) continue;
      for (const [otherKey, other] of table.rows) {
        if (otherKey === ownKey || other[field.name] === null) continue;
        if (storedEquals(field, other[field.name], row[field.name])) {
          conflicts.push({ path: field.name, message: 'already exists' });
          break;
        }
      }
    }
    if (conflicts.length > 0) {
      const names = conflicts.map((conflict) => conflict.path).join(', ');
      throw ApiError.conflict(
        `A ${table.model.description.name} with the same ${names} already exists.`,
        conflicts,
      );
    }
  }

  #nextInSequence(table: Table, compiled: CompiledField): number | bigint {
    const last = table.sequences.get(compiled.field.name);
    if (compiled.field.type === 'bigint') return (typeof last === 'bigint' ? last : 0n) + 1n;
    return (typeof last === 'number' ? last : 0) + 1;
  }

  /** After an explicit value in a sequence field, later generated values go past it (like MySQL/SQLite). */
  #advanceSequences(table: Table, row: RawRecord): void {
    for (const compiled of table.model.fields) {
      if (compiled.generator !== 'sequence' || row[compiled.field.name] === null) continue;
      const name = compiled.field.name;
      const last = table.sequences.get(name);
      if (compiled.field.type === 'bigint') {
        const value = BigInt(row[name] as string);
        if (typeof last !== 'bigint' || value > last) table.sequences.set(name, value);
      } else {
        const value = row[name] as number;
        if (typeof last !== 'number' || value > last) table.sequences.set(name, value);
      }
    }
  }

  /** Rows of every table whose many-to-one field points at `key` of `table`, per field. */
  #referencesTo(table: Table, key: Key): Reference[] {
    const found: Reference[] = [];
    for (const other of this.#tables.values()) {
      for (const field of other.model.fields) {
        if (field.target !== table.model.description.model) continue;
        const rows = [...other.rows.entries()]
          .filter(
            ([otherKey, row]) => row[field.field.name] === key && !(other === table && otherKey === key),
          )
          .map(([, row]) => row);
        if (rows.length > 0) found.push({ table: other, field, rows });
      }
    }
    return found;
  }

  /** A 409 when rows still refer to `key` (only through required fields unless `all`). */
  #restrictIfReferenced(table: Table, key: Key, action: string, all: boolean): void {
    const blocking = this.#referencesTo(table, key).filter((ref) => all || !ref.field.field.nullable);
    if (blocking.length === 0) return;
    const where = blocking
      .map((ref) => `${ref.table.model.description.name}.${ref.field.field.name}`)
      .join(', ');
    throw ApiError.conflict(
      `Cannot ${action} this ${table.model.description.name}: it is still referenced by ${where}.`,
    );
  }
}
