/**
 * `include=`: embeds related records into serialized records without a query per record. A
 * many-to-one costs one `list` of its targets by key for the whole page; a to-many relation one
 * `links` call (the keys, capped per record) and one `list` of the targets. Every embedded record
 * is read under its own router's rules: authentication, the read policy (without narrowing, and
 * for each record), hidden fields, field selection.
 */
import { ApiError } from '../errors.js';
import { sessionOf } from '../http/session.js';
import type { IncludeRequest } from '../query/include.js';
import { compileSerializer } from '../schema/serializer.js';
import type { AppContext, RawRecord, RecordId } from '../types.js';
import { admitRelationRead, enforce } from './access.js';
import type { CrudPlan, ServedRelation } from './crud-plan.js';
import { KeyIndex } from './key-index.js';
import { recordKey } from './record-key.js';

/** Most keys one `$in` list carries; larger sets are read in several statements. */
const KEYS_PER_STATEMENT = 5000;

/** The distinct non-null values, in first-seen order. */
function distinct(values: Iterable<unknown>): unknown[] {
  const seen = new Map<string, unknown>();
  for (const value of values) {
    if (value === null || value === undefined) continue;
    const key = recordKey(value);
    if (!seen.has(key)) seen.set(key, value);
  }
  return [...seen.values()];
}

/**
 * The fields of the target an embedded record needs from the adapter: the selection, the key, and
 * the key fields of the many-to-one relations embedded in it. `undefined`: all of them.
 */
export function fieldsToLoad(
  plan: CrudPlan,
  selection: readonly string[] | undefined,
  nested: readonly IncludeRequest[],
): readonly string[] | undefined {
  if (selection === undefined) return undefined;
  const fields = new Set(selection);
  fields.add(plan.model.primaryKey);
  for (const request of nested)
    if (plan.model.fieldsByName.get(request.name)?.relation !== undefined) fields.add(request.name);
  return [...fields];
}

/** The target records with these keys, read through the adapter as a list of the target model. */
async function targetsByKey(
  ctx: AppContext,
  target: CrudPlan,
  keys: readonly unknown[],
  request: IncludeRequest,
): Promise<RawRecord[]> {
  const rows: RawRecord[] = [];
  const fields = fieldsToLoad(target, request.fields, request.nested);
  const session = sessionOf(ctx, target.adapter);
  for (let start = 0; start < keys.length; start += KEYS_PER_STATEMENT) {
    const chunk = keys.slice(start, start + KEYS_PER_STATEMENT);
    const result = await target.adapter.list(session, target.options.model, {
      filters: [{ field: target.model.primaryKey, op: '$in', value: chunk }],
      sort: [{ field: target.model.primaryKey, direction: 'asc' }],
      limit: chunk.length,
      offset: 0,
      withTotal: false,
      ...(fields === undefined ? {} : { fields }),
    });
    rows.push(...result.rows);
  }
  return rows;
}

/** Checks each embedded record against the target's read policy (with the record, as `GET /{id}` does). */
async function admitEach(
  target: CrudPlan,
  ctx: AppContext,
  records: readonly RawRecord[],
  what: string,
): Promise<void> {
  if (target.options.policies.GET === undefined) return;
  const pending: Promise<void>[] = [];
  for (const record of records) {
    const deciding = enforce(target, ctx, 'GET', record, what);
    if (deciding !== undefined) pending.push(deciding);
  }
  await Promise.all(pending);
}

/** An index of a model's records by primary key, compared as the database compares it. */
function keyIndexOf<T>(plan: CrudPlan): KeyIndex<T> {
  return new KeyIndex<T>(plan.model.fieldsByName.get(plan.model.primaryKey)?.comparison);
}

/**
 * The target records of one relation, checked, serialized and with their own inclusions, by key
 * (a stored foreign key may differ from its target's key where the database compares loosely).
 */
async function embeddedByKey(
  ctx: AppContext,
  relation: ServedRelation,
  keys: readonly unknown[],
  request: IncludeRequest,
  path: string,
): Promise<KeyIndex<Record<string, unknown>>> {
  const what = `include=${path}`;
  const target = relation.plan;
  const records = keys.length === 0 ? [] : await targetsByKey(ctx, target, keys, request);
  await admitEach(target, ctx, records, what);
  const serialize =
    request.fields === undefined ? target.serialize : compileSerializer(target.model, request.fields);
  const out = records.map(serialize);
  if (request.nested.length > 0) await embed(ctx, target, records, out, request.nested, `${path}.`);
  const byKey = keyIndexOf<Record<string, unknown>>(target);
  records.forEach((record, index) => {
    byKey.set(record[target.model.primaryKey], out[index] as Record<string, unknown>);
  });
  return byKey;
}

/** Embeds one many-to-one relation: the key field's value becomes the record (or null). */
async function embedToOne(
  ctx: AppContext,
  relation: ServedRelation,
  rows: readonly RawRecord[],
  out: Record<string, unknown>[],
  request: IncludeRequest,
  path: string,
  omitsNull: boolean,
): Promise<void> {
  const name = relation.name;
  const byKey = await embeddedByKey(ctx, relation, distinct(rows.map((row) => row[name])), request, path);
  rows.forEach((row, index) => {
    const key = row[name];
    const record = out[index] as Record<string, unknown>;
    const embedded = key === null || key === undefined ? null : (byKey.get(key) ?? null);
    // A model whose records leave null values out leaves out a relation with no record too.
    if (embedded === null && omitsNull) delete record[name];
    else record[name] = embedded;
  });
}

/** Most records one response embeds through to-many relations, nested ones included. */
export const MAX_EMBEDDED_RECORDS = 10_000;

// What each request has embedded so far: a page of 1,000 records with `include=` of a collection
// capped at 1,000 per record would otherwise build a response of a million records.
const embeddedSoFar = new WeakMap<AppContext, number>();

/** Counts `count` more embedded records for the request; 400 past `MAX_EMBEDDED_RECORDS`, before they are read. */
function spendEmbedded(ctx: AppContext, count: number, path: string): void {
  const total = (embeddedSoFar.get(ctx) ?? 0) + count;
  embeddedSoFar.set(ctx, total);
  if (total > MAX_EMBEDDED_RECORDS)
    throw ApiError.invalidQuery(
      `include=${path} would embed more than ${MAX_EMBEDDED_RECORDS} records in one response; ask for a smaller page (limit) or fewer relations.`,
    );
}

/** Embeds one to-many relation: an array of the linked records under the collection's name. */
async function embedToMany(
  ctx: AppContext,
  plan: CrudPlan,
  relation: ServedRelation,
  rows: readonly RawRecord[],
  out: Record<string, unknown>[],
  request: IncludeRequest,
  path: string,
): Promise<void> {
  const primaryKey = plan.model.primaryKey;
  const owners = distinct(rows.map((row) => row[primaryKey])) as RecordId[];
  const links =
    owners.length === 0 || plan.adapter.links === undefined
      ? []
      : await plan.adapter.links(
          sessionOf(ctx, plan.adapter),
          plan.options.model,
          relation.name,
          owners,
          plan.options.includeLimit,
        );
  spendEmbedded(ctx, links.length, path);
  const byKey = await embeddedByKey(ctx, relation, distinct(links.map((link) => link.target)), request, path);
  // A link's owner is the stored foreign key, which the database matched to one of the owners.
  const ownerKeys = keyIndexOf<string>(plan);
  for (const owner of owners) ownerKeys.set(owner, recordKey(owner));
  const byOwner = new Map<string, Record<string, unknown>[]>();
  for (const link of links) {
    const record = byKey.get(link.target);
    if (record === undefined) continue;
    const owner = ownerKeys.get(link.owner) ?? recordKey(link.owner);
    const list = byOwner.get(owner);
    if (list === undefined) byOwner.set(owner, [record]);
    else list.push(record);
  }
  rows.forEach((row, index) => {
    (out[index] as Record<string, unknown>)[relation.name] = byOwner.get(recordKey(row[primaryKey])) ?? [];
  });
}

/**
 * Embeds the requested relations into the serialized records `out` (same order as `rows`). The
 * relations run side by side; each first checks that the caller may read its target at all.
 */
export async function embed(
  ctx: AppContext,
  plan: CrudPlan,
  rows: readonly RawRecord[],
  out: Record<string, unknown>[],
  requests: readonly IncludeRequest[],
  prefix = '',
): Promise<void> {
  const relations = plan.relations();
  await Promise.all(
    requests.map(async (request) => {
      const relation = relations.find((candidate) => candidate.name === request.name);
      if (relation === undefined)
        throw ApiError.invalidQuery(
          `include: ${plan.model.name} has no includable relation "${request.name}".`,
        );
      const path = `${prefix}${request.name}`;
      await admitRelationRead(relation.plan, ctx, `include=${path}`);
      if (relation.kind === 'many-to-one')
        await embedToOne(ctx, relation, rows, out, request, path, plan.model.omitsNull === true);
      else await embedToMany(ctx, plan, relation, rows, out, request, path);
    }),
  );
}
