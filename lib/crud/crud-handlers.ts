/**
 * The handlers of the generated routes. Order of checks on every route: authentication, then
 * the id, then the stored record, then the policy, then the query string, then the body (and the
 * related records it names, read under their own routers' rules) — so that
 * a caller who may not act learns nothing from validation messages. A delete, which takes no
 * query parameter at all, refuses one right after authentication.
 */
import { ApiError } from '../errors.js';
import { sessionOf } from '../http/session.js';
import { coerceId } from '../query/coerce.js';
import { encodeCursor } from '../query/cursor.js';
import type { IncludeRequest } from '../query/include.js';
import { parseReadQuery, refuseQuery } from '../query/item-query.js';
import { type ParsedListQuery, parseListQuery } from '../query/list-query.js';
import { compileSerializer } from '../schema/serializer.js';
import type { AppContext, CrudMethod, FilterCondition, RawRecord, RecordId } from '../types.js';
import { admitRelationRead, authenticate, enforce } from './access.js';
import { checkCollectionKeys } from './collection-writes.js';
import type { CrudPlan } from './crud-plan.js';
import { embed, fieldsToLoad as relatedFieldsToLoad } from './includes.js';
import { unreadableReferences } from './reference-reads.js';

/** Authentication, then the policy's decision: the checks of a route without a stored record. */
async function admit(plan: CrudPlan, ctx: AppContext, method: CrudMethod): Promise<void> {
  const authenticating = authenticate(plan, ctx, method);
  if (authenticating !== undefined) await authenticating;
  const deciding = enforce(plan, ctx, method);
  if (deciding !== undefined) await deciding;
}

function noId(plan: CrudPlan, raw: string | undefined): ApiError {
  return ApiError.recordNotFound(plan.model, raw);
}

/** The id of the path, or 404 when no record could have it. */
function idOf(plan: CrudPlan, raw: string | undefined): RecordId {
  const key = plan.model.fieldsByName.get(plan.model.primaryKey);
  const id = key === undefined || raw === undefined ? undefined : coerceId(key, raw);
  if (id === undefined) throw noId(plan, raw);
  return id;
}

/**
 * The caller, then the id, then the stored record, each answering before the next is looked at:
 * 401, then 404 for an id no record could have, then 404 for a missing record.
 */
async function authenticatedRecord(
  plan: CrudPlan,
  ctx: AppContext,
  method: CrudMethod,
  raw: string | undefined,
): Promise<{ id: RecordId; row: RawRecord }> {
  const authenticating = authenticate(plan, ctx, method);
  if (authenticating !== undefined) await authenticating;
  const id = idOf(plan, raw);
  return { id, row: await storedRecord(plan, ctx, id) };
}

/** The stored record with this id, or 404. */
async function storedRecord(plan: CrudPlan, ctx: AppContext, id: RecordId): Promise<RawRecord> {
  const row = await plan.adapter.get(sessionOf(ctx, plan.adapter), plan.options.model, id);
  if (row === undefined) throw noId(plan, String(id));
  return row;
}

function send(ctx: AppContext, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
}

/** A URL of the same list with some query parameters replaced (filters, sort, fields kept). */
function pageUrl(ctx: AppContext, changes: Readonly<Record<string, string>>): string {
  const params = new URLSearchParams(ctx.querystring);
  for (const [name, value] of Object.entries(changes)) params.set(name, value);
  return `<${ctx.path}?${params.toString()}>`;
}

/** The `Link` header of an offset page: next and prev with the same query, offset moved. */
function offsetLinks(ctx: AppContext, query: ParsedListQuery, hasNext: boolean): string {
  const { offset, limit } = query;
  const at = (newOffset: number) => pageUrl(ctx, { offset: String(newOffset), limit: String(limit) });
  const links: string[] = [];
  if (hasNext) links.push(`${at(offset + limit)}; rel="next"`);
  if (offset > 0) links.push(`${at(Math.max(0, offset - limit))}; rel="prev"`);
  return links.join(', ');
}

/**
 * The fields a list with `fields=` asks the adapter for: the selection, plus the sort keys when
 * the next page's cursor is built from the last row (the serializer still sends the selection only).
 */
function fieldsToLoad(plan: CrudPlan, query: ParsedListQuery): readonly string[] | undefined {
  const { cursorShape, sort, include } = query;
  let fields = query.fields;
  if (fields === undefined) return undefined;
  if (include !== undefined) fields = relatedFieldsToLoad(plan, fields, include) ?? fields;
  if (cursorShape === undefined) return fields;
  const loaded = fields;
  const missing = sort.filter((key) => !loaded.includes(key.field)).map((key) => key.field);
  return missing.length === 0 ? fields : [...fields, ...missing];
}

/** Checks that the caller may read the targets of the relations filters and sort keys go through. */
async function admitThroughRelations(
  plan: CrudPlan,
  ctx: AppContext,
  names: readonly string[],
): Promise<void> {
  const relations = plan.relations();
  for (const name of names) {
    const relation = relations.find((candidate) => candidate.name === name);
    if (relation !== undefined)
      await admitRelationRead(relation.plan, ctx, `Filtering or sorting through "${name}"`);
  }
}

/** The handler of one generated operation (declared in crud-routes.ts). */
export async function list(plan: CrudPlan, ctx: AppContext): Promise<void> {
  await admit(plan, ctx, 'GET');
  const query = parseListQuery(plan.model, ctx.querystring, plan.listOptions());
  if (query.throughRelations !== undefined) await admitThroughRelations(plan, ctx, query.throughRelations);
  const policy = plan.options.policies.GET;
  const scope: readonly FilterCondition[] =
    policy?.scope?.({ user: ctx.state.user, method: 'GET', model: plan.model }) ?? [];
  const keyset = query.cursorShape !== undefined;
  // Without a total, one row more than the page tells whether a next page exists; it is never sent.
  const probe = keyset || !query.withTotal;
  const result = await plan.adapter.list(sessionOf(ctx, plan.adapter), plan.options.model, {
    filters: scope.length === 0 ? query.filters : [...query.filters, ...scope],
    sort: query.sort,
    limit: probe ? query.limit + 1 : query.limit,
    offset: query.offset,
    withTotal: query.withTotal,
    ...(query.after === undefined ? {} : { after: query.after }),
    ...(query.fields === undefined ? {} : { fields: fieldsToLoad(plan, query) }),
  });
  const more = probe ? result.rows.length > query.limit : query.offset + query.limit < (result.total ?? 0);
  const rows = probe && more ? result.rows.slice(0, query.limit) : result.rows;
  const serialize = query.fields === undefined ? plan.serialize : compileSerializer(plan.model, query.fields);
  if (result.total !== undefined) ctx.set('X-Total-Count', String(result.total));
  const last = rows[rows.length - 1];
  const link =
    query.cursorShape === undefined
      ? offsetLinks(ctx, query, more)
      : more && last !== undefined
        ? `${pageUrl(ctx, { after: encodeCursor(plan.model, query.cursorShape, query.sort, last), limit: String(query.limit) })}; rel="next"`
        : '';
  const body = rows.map(serialize);
  if (query.include !== undefined) await embed(ctx, plan, rows, body, query.include);
  if (link !== '') ctx.set('Link', link);
  send(ctx, 200, body);
}

/** Validated, hook-prepared data of a write; the owner comes from the caller on create. */
async function writeData(
  plan: CrudPlan,
  ctx: AppContext,
  mode: 'create' | 'update',
  current?: RawRecord,
): Promise<RawRecord> {
  const body = await plan.readBody(ctx);
  let data = plan.validate(mode, body, current);
  // Keys the caller may not read are answered as keys of no record, in one list with those.
  await checkCollectionKeys(plan, ctx, data, await unreadableReferences(plan, ctx, data, current));
  const hooks = plan.hooks();
  if (hooks !== undefined) data = await hooks.prepare(data, mode, ctx, current);
  if (mode === 'create' && plan.ownerField !== undefined && ctx.state.user !== undefined) {
    data[plan.ownerField] = ctx.state.user.id;
  }
  return data;
}

/**
 * The path the collection was posted to, as the client sent it: the router's own path plus any
 * prefix of a router or app it is mounted in (`/api/bookmarks`), which `plan.basePath` cannot know.
 */
function collectionPath(ctx: AppContext): string {
  const url = ctx.originalUrl;
  // A raw request target may carry a fragment too (`/posts#x`): neither belongs in `Location`.
  const path = url.startsWith('/') ? (url.split(/[?#]/)[0] as string) : new URL(url, 'http://host').pathname;
  return path.replace(/\/+$/, '');
}

/** The handler of one generated operation (declared in crud-routes.ts). */
export async function create(plan: CrudPlan, ctx: AppContext): Promise<void> {
  await admit(plan, ctx, 'POST');
  refuseQuery(ctx.querystring, 'a create');
  const data = await writeData(plan, ctx, 'create');
  const row = await plan.adapter.create(sessionOf(ctx, plan.adapter), plan.options.model, data);
  const record = plan.serialize(row);
  // The key in its JSON form, as the `{id}` route reads it: a Date's String() is its long text.
  const id = record[plan.model.primaryKey];
  ctx.set('Location', `${collectionPath(ctx)}/${encodeURIComponent(String(id))}`);
  send(ctx, 201, record);
}

/**
 * The stored record again, with the lazy fields a read's `fields=` names: `get` reads a record as
 * a response without a selection shows it, and only a list query carries a selection the adapter
 * must load lazy fields for. One more read, only when a lazy field is asked for.
 */
async function withLazyFields(
  plan: CrudPlan,
  ctx: AppContext,
  row: RawRecord,
  fields: readonly string[],
  include: readonly IncludeRequest[],
): Promise<RawRecord> {
  if (!fields.some((name) => plan.model.fieldsByName.get(name)?.lazy === true)) return row;
  const primaryKey = plan.model.primaryKey;
  const key = row[primaryKey];
  const result = await plan.adapter.list(sessionOf(ctx, plan.adapter), plan.options.model, {
    filters: [{ field: primaryKey, op: '$eq', value: key }],
    sort: [{ field: primaryKey, direction: 'asc' }],
    limit: 1,
    offset: 0,
    withTotal: false,
    fields: relatedFieldsToLoad(plan, fields, include) ?? fields,
  });
  const found = result.rows[0];
  // Deleted between the two reads.
  if (found === undefined) throw noId(plan, String(key));
  return found;
}

/** The handler of one generated operation (declared in crud-routes.ts). */
export async function read(
  plan: CrudPlan,
  ctx: AppContext,
  params: Readonly<Record<string, string>>,
): Promise<void> {
  const { id, row } = await authenticatedRecord(plan, ctx, 'GET', params.id);
  // The policy decides on the whole stored record, whatever the selection.
  const pending = enforce(plan, ctx, 'GET', row, undefined, id);
  if (pending !== undefined) await pending;
  const { fields, include } = parseReadQuery(plan.model, ctx.querystring, plan.relations());
  const record = fields === undefined ? row : await withLazyFields(plan, ctx, row, fields, include ?? []);
  const body = fields === undefined ? plan.serialize(record) : compileSerializer(plan.model, fields)(record);
  if (include !== undefined) await embed(ctx, plan, [record], [body], include);
  send(ctx, 200, body);
}

/** The handler of one generated operation (declared in crud-routes.ts). */
export async function update(
  plan: CrudPlan,
  ctx: AppContext,
  params: Readonly<Record<string, string>>,
  method: 'PUT' | 'PATCH',
): Promise<void> {
  const { id, row: current } = await authenticatedRecord(plan, ctx, method, params.id);
  const deciding = enforce(plan, ctx, method, current, undefined, id);
  if (deciding !== undefined) await deciding;
  refuseQuery(ctx.querystring, 'an update');
  const data = await writeData(plan, ctx, 'update', current);
  const row =
    Object.keys(data).length === 0
      ? current
      : await plan.adapter.update(sessionOf(ctx, plan.adapter), plan.options.model, id, data);
  if (row === undefined) throw noId(plan, String(id));
  send(ctx, 200, plan.serialize(row));
}

/** The handler of one generated operation (declared in crud-routes.ts). */
export async function remove(
  plan: CrudPlan,
  ctx: AppContext,
  params: Readonly<Record<string, string>>,
): Promise<void> {
  const authenticating = authenticate(plan, ctx, 'DELETE');
  if (authenticating !== undefined) await authenticating;
  // A delete takes no parameter at all, so refusing one says nothing about the records; and it
  // comes first whether or not a policy reads the stored record.
  refuseQuery(ctx.querystring, 'a delete');
  const id = idOf(plan, params.id);
  const refusing = plan.hooks()?.prepareDelete;
  // Without a policy or a hook nothing decides on the stored row: the delete itself tells whether it existed.
  if (plan.options.policies.DELETE !== undefined || refusing !== undefined) {
    const stored = await storedRecord(plan, ctx, id);
    const deciding = enforce(plan, ctx, 'DELETE', stored, undefined, id);
    if (deciding !== undefined) await deciding;
    if (refusing !== undefined) await refusing.call(plan.hooks(), ctx, stored);
  }
  const deleted = await plan.adapter.delete(sessionOf(ctx, plan.adapter), plan.options.model, id);
  if (!deleted) throw noId(plan, String(id));
  ctx.status = 204;
}
