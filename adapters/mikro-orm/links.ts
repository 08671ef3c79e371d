/**
 * The links of a to-many relation for a page of owners, in one statement however many owners
 * there are: the rows of the table that holds them (the target's foreign key column for a
 * one-to-many, the pivot table for a many-to-many), numbered per owner with `row_number()` in the
 * order MikroORM's populate gives them (the relation's and the target's `orderBy`, a fixed order),
 * then by target key, so that each owner keeps the first `perOwner` of them. MikroORM's own populate
 * loads every link of every owner; an embedded collection is bounded, so the cap runs in the
 * database (SQLite ≥ 3.25, PostgreSQL, MariaDB ≥ 10.2, MySQL 8).
 *
 * Table, schema and column names come from MikroORM's metadata and are quoted by its platform. A
 * target with MikroORM filters (a soft-delete flag) keeps only the links to rows its filters show,
 * through a subquery MikroORM's query builder writes, so a hidden row takes no place in the cap.
 */
import type { EntityManager, Platform } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { RecordId, RelationLink } from '../../lib/types.js';
import type { CollectionPlan } from './collections.js';
import type { LinkOrderKey } from './default-order.js';
import type { AnyMikroORM } from './describe.js';
import { hasBuiltInType } from './field-types.js';
import type { FieldPlan, ModelPlan } from './plan.js';
import { readConnectionType } from './session-state.js';
import type { StatementRunner } from './statements.js';

type Row = Record<string, unknown>;
// biome-ignore lint/suspicious/noExplicitAny: internal bridge to MikroORM's generic signatures
type AnyEntity = any;

/** The fixed parts of one collection's statement; the owners' placeholders go between them. */
interface LinkStatement {
  readonly head: string;
  readonly tail: string;
  readonly decodeOwner: (value: unknown) => RecordId;
  readonly decodeTarget: (value: unknown) => RecordId;
  readonly encodeOwner: (value: RecordId) => unknown;
}

/** A key's record form as `get()` gives it, from the value the driver returned. */
function keyDecoder(field: FieldPlan, platform: Platform): (value: unknown) => RecordId {
  const custom = field.prop.customType;
  if (hasBuiltInType(field.prop) || custom === undefined) return (value) => field.decode(value) as RecordId;
  // A user's key type: as MikroORM's serializer shows it (`toObject()`).
  return (value) => custom.toJSON(custom.convertToJSValue(value, platform), platform) as RecordId;
}

/** A key's database form, from its record form. */
function keyEncoder(field: FieldPlan, platform: Platform): (value: RecordId) => unknown {
  const custom = field.prop.customType;
  return (value) => {
    const js = field.encode(value);
    return custom === undefined ? js : custom.convertToDatabaseValue(js, platform);
  };
}

/** Reads the links of collections, one statement per call. */
export class LinkReader {
  readonly #orm: AnyMikroORM;
  readonly #runner: StatementRunner | undefined;
  readonly #statements = new Map<CollectionPlan, LinkStatement>();

  /** `runner`: the fast path's statement runner, or undefined to run through `em.execute` only. */
  constructor(orm: AnyMikroORM, runner: StatementRunner | undefined) {
    this.#orm = orm;
    this.#runner = runner;
  }

  /** The links of the owners, per owner in the collection's order and at most `perOwner` of them. */
  async links(
    session: EntityManager,
    plan: ModelPlan,
    collection: CollectionPlan,
    owners: readonly RecordId[],
    perOwner: number,
  ): Promise<RelationLink[]> {
    if (owners.length === 0 || perOwner < 1) return [];
    const statement = this.#statementOf(plan, collection);
    const target = plan.planOf(collection.description.targetModel);
    let visible: { sql: string; params: readonly unknown[] } | undefined;
    if (target.filtered) {
      const qb = (session as unknown as SqlEntityManager)
        .createQueryBuilder(target.entity as AnyEntity, 'kma_visible')
        .select(target.primary.prop.name as AnyEntity);
      await qb.applyFilters();
      visible = qb.toQuery();
    }
    const unique = [...new Set(owners)];
    const placeholders = unique.map(() => '?').join(', ');
    const sql = `${statement.head}${placeholders})${visible === undefined ? '' : ` and l.${this.#targetColumn(collection)} in (${visible.sql})`}${statement.tail}`;
    const params = [...unique.map(statement.encodeOwner), ...(visible?.params ?? []), perOwner];
    const rows = await this.#run(session, sql, params);
    // A pivot without a unique pair (`fixedOrder`'s has a key of its own) may link a pair twice:
    // MikroORM's populate hydrates it once, at its first place.
    const seen = new Set<string>();
    const links: RelationLink[] = [];
    for (const row of rows) {
      const pair = `${String(row.owner_key)}\u0000${String(row.target_key)}`;
      if (seen.has(pair)) continue;
      seen.add(pair);
      links.push({
        owner: statement.decodeOwner(row.owner_key),
        target: statement.decodeTarget(row.target_key),
      });
    }
    return links;
  }

  async #run(session: EntityManager, sql: string, params: unknown[]): Promise<Row[]> {
    if (this.#runner !== undefined) return this.#runner.all(session, sql, params);
    // The plain path: MikroORM's public raw-query API, on the connection its own reads would use.
    const connectionType =
      readConnectionType(session) ?? (this.#orm.config.get('preferReadReplicas') ? 'read' : 'write');
    return (await (session as unknown as SqlEntityManager).execute(sql, params, {
      method: 'all',
      connectionType,
    })) as Row[];
  }

  #targetColumn(collection: CollectionPlan): string {
    return this.#orm.em.getPlatform().quoteIdentifier(collection.links.targetColumn);
  }

  #statementOf(plan: ModelPlan, collection: CollectionPlan): LinkStatement {
    let statement = this.#statements.get(collection);
    if (statement === undefined) {
      statement = this.#build(plan, collection);
      this.#statements.set(collection, statement);
    }
    return statement;
  }

  #build(plan: ModelPlan, collection: CollectionPlan): LinkStatement {
    const platform = this.#orm.em.getPlatform();
    const quote = (name: string) => platform.quoteIdentifier(name);
    const qualified = (table: string, schema: string | undefined) =>
      schema === undefined ? quote(table) : `${quote(schema)}.${quote(table)}`;
    const { links, targetTable } = collection;
    const target = plan.planOf(collection.description.targetModel).primary;
    const owner = `l.${quote(links.ownerColumn)}`;
    const targetKey = `l.${quote(links.targetColumn)}`;
    // better-sqlite3 hands INTEGER values over as JS numbers, which round beyond 2^53: read as text.
    const read = (column: string, field: FieldPlan) =>
      plan.dialect === 'sqlite' && field.field.type === 'bigint' ? `cast(${column} as text)` : column;
    // MikroORM's populate order, then the target key: it orders only what that order leaves tied.
    const order = [
      ...collection.order.flatMap((key) =>
        orderTerms(`${key.table === 'links' ? 'l' : 't'}.${quote(key.column)}`, key, plan.dialect),
      ),
      targetKey,
    ].join(', ');
    const join =
      targetTable === undefined
        ? ''
        : ` join ${qualified(targetTable.table, targetTable.schema)} t on t.${quote(targetTable.keyColumn)} = ${targetKey}`;
    const head =
      `select x.owner_key, x.target_key from (select ${read(owner, plan.primary)} as owner_key, ` +
      `${read(targetKey, target)} as target_key, ` +
      `row_number() over (partition by ${owner} order by ${order}) as link_rank ` +
      `from ${qualified(links.table, links.schema)} l${join} where ${owner} in (`;
    // By rank, not by the key read: a key read as text (above) would sort as text.
    const tail = ') x where x.link_rank <= ? order by x.owner_key, x.link_rank';
    return {
      head,
      tail,
      decodeOwner: keyDecoder(plan.primary, platform),
      decodeTarget: keyDecoder(target, platform),
      encodeOwner: keyEncoder(plan.primary, platform),
    };
  }
}

/**
 * The ORDER BY terms of one key, as MikroORM's platforms write them: MySQL and MariaDB have no
 * `NULLS FIRST/LAST`, so a placement is a leading `is null` / `is not null` term there.
 */
function orderTerms(column: string, key: LinkOrderKey, dialect: ModelPlan['dialect']): string[] {
  if (key.nulls === undefined) return [`${column} ${key.direction}`];
  if (dialect !== 'mysql') return [`${column} ${key.direction} nulls ${key.nulls}`];
  return [`${column} ${key.nulls === 'first' ? 'is not null' : 'is null'}`, `${column} ${key.direction}`];
}
