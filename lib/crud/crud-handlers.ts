/**
 * The handlers of the generated routes. Order of checks on every route: authentication, then
 * the id, then the stored record, then the policy, then the body — so that a caller who may not
 * act learns nothing from validation messages.
 */
import type { Middleware } from 'koa';
import { ApiError } from '../errors.js';
import type { RouteSpec } from '../http/route-group.js';
import { sessionOf } from '../http/session.js';
import { coerceId } from '../query/coerce.js';
import { encodeCursor } from '../query/cursor.js';
import { type ParsedListQuery, parseListQuery } from '../query/list-query.js';
import { compileSerializer } from '../schema/serializer.js';
import type {
  AppContext,
  AppState,
  CrudMethod,
  FilterCondition,
  Policy,
  PolicyInput,
  RawRecord,
  RecordId,
} from '../types.js';
import type { CrudPlan } from './crud-plan.js';

const noop = async (): Promise<void> => {};

/** Runs one authentication middleware to its end (any thenable a custom one returns is awaited). */
async function run(dependency: Middleware<AppState>, ctx: AppContext): Promise<void> {
  await dependency(ctx, noop);
}

/**
 * Authenticates the caller, the one way every route does: a secured router's dependency first;
 * then, while there is still no user, the method policy's own `authenticate` (so that an unsecured
 * router can guard some methods, and an anonymous caller gets its 401 before learning whether a
 * record exists). Returns a promise only when a dependency runs.
 */
function authenticate(plan: CrudPlan, ctx: AppContext, method: CrudMethod): undefined | Promise<void> {
  if (ctx.state.user !== undefined) return undefined;
  const { secure, authDependency, policies } = plan.options;
  const router = secure ? authDependency : undefined;
  const policy = policies[method]?.authenticate;
  if (router === undefined) return policy === undefined ? undefined : run(policy, ctx);
  if (policy === undefined || policy === router) return run(router, ctx);
  return run(router, ctx).then(() => (ctx.state.user === undefined ? run(policy, ctx) : undefined));
}

/**
 * The method's policy decides on the authenticated caller: 401 without a user when one is needed,
 * 403 when refused. Returns a promise only when `allows` answers with one, so that the usual
 * synchronous policy costs the request no promise.
 */
function enforce(
  plan: CrudPlan,
  ctx: AppContext,
  method: CrudMethod,
  record?: RawRecord,
): undefined | Promise<void> {
  const policy: Policy | undefined = plan.options.policies[method];
  if (policy === undefined) return undefined;
  const user = ctx.state.user;
  if (policy.requiresUser && user === undefined) throw ApiError.unauthorized();
  const input: PolicyInput =
    record === undefined ? { user, method, model: plan.model } : { user, method, model: plan.model, record };
  const allowed = policy.allows(input);
  if (typeof allowed === 'boolean') {
    if (!allowed) throw ApiError.forbidden();
    return undefined;
  }
  return Promise.resolve(allowed).then((yes) => {
    if (!yes) throw ApiError.forbidden();
  });
}

/** Authentication, then the policy's decision: the checks of a route without a stored record. */
async function admit(plan: CrudPlan, ctx: AppContext, method: CrudMethod): Promise<void> {
  const authenticating = authenticate(plan, ctx, method);
  if (authenticating !== undefined) await authenticating;
  const deciding = enforce(plan, ctx, method);
  if (deciding !== undefined) await deciding;
}

function noId(plan: CrudPlan, raw: string | undefined): ApiError {
  return ApiError.notFound(`No ${plan.model.name} with id "${String(raw).slice(0, 100)}".`);
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
  const row = await plan.adapter.get(sessionOf(ctx, plan.adapter), plan.options.model, id);
  if (row === undefined) throw noId(plan, String(id));
  return { id, row };
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
function fieldsToLoad(query: ParsedListQuery): readonly string[] | undefined {
  const { fields, cursorShape, sort } = query;
  if (fields === undefined || cursorShape === undefined) return fields;
  const missing = sort.filter((key) => !fields.includes(key.field)).map((key) => key.field);
  return missing.length === 0 ? fields : [...fields, ...missing];
}

async function list(plan: CrudPlan, ctx: AppContext): Promise<void> {
  await admit(plan, ctx, 'GET');
  const query = parseListQuery(plan.model, ctx.querystring, plan.listOptions);
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
    ...(query.fields === undefined ? {} : { fields: fieldsToLoad(query) }),
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
  if (link !== '') ctx.set('Link', link);
  send(ctx, 200, rows.map(serialize));
}

/** Validated, hook-prepared data of a write; the owner comes from the caller on create. */
async function writeData(
  plan: CrudPlan,
  ctx: AppContext,
  mode: 'create' | 'update',
  current?: RawRecord,
): Promise<RawRecord> {
  const body = await plan.readBody(ctx);
  let data = plan.validate(mode, body);
  const hooks = plan.hooks();
  if (hooks !== undefined) data = await hooks.prepare(data, mode, ctx, current);
  if (mode === 'create' && plan.ownerField !== undefined && ctx.state.user !== undefined) {
    data[plan.ownerField] = ctx.state.user.id;
  }
  return data;
}

async function create(plan: CrudPlan, ctx: AppContext): Promise<void> {
  await admit(plan, ctx, 'POST');
  const data = await writeData(plan, ctx, 'create');
  const row = await plan.adapter.create(sessionOf(ctx, plan.adapter), plan.options.model, data);
  const id = row[plan.model.primaryKey];
  ctx.set('Location', `${plan.basePath}/${encodeURIComponent(String(id))}`);
  send(ctx, 201, plan.serialize(row));
}

async function read(
  plan: CrudPlan,
  ctx: AppContext,
  params: Readonly<Record<string, string>>,
): Promise<void> {
  const { row } = await authenticatedRecord(plan, ctx, 'GET', params.id);
  const pending = enforce(plan, ctx, 'GET', row);
  if (pending !== undefined) await pending;
  send(ctx, 200, plan.serialize(row));
}

async function update(
  plan: CrudPlan,
  ctx: AppContext,
  params: Readonly<Record<string, string>>,
  method: 'PUT' | 'PATCH',
): Promise<void> {
  const { id, row: current } = await authenticatedRecord(plan, ctx, method, params.id);
  const deciding = enforce(plan, ctx, method, current);
  if (deciding !== undefined) await deciding;
  const data = await writeData(plan, ctx, 'update', current);
  const row =
    Object.keys(data).length === 0
      ? current
      : await plan.adapter.update(sessionOf(ctx, plan.adapter), plan.options.model, id, data);
  if (row === undefined) throw ApiError.notFound(`No ${plan.model.name} with id "${String(id)}".`);
  send(ctx, 200, plan.serialize(row));
}

async function remove(
  plan: CrudPlan,
  ctx: AppContext,
  params: Readonly<Record<string, string>>,
): Promise<void> {
  let id: RecordId;
  if (plan.options.policies.DELETE === undefined) {
    // Nothing decides on the stored row: the delete itself tells whether it existed.
    const authenticating = authenticate(plan, ctx, 'DELETE');
    if (authenticating !== undefined) await authenticating;
    id = idOf(plan, params.id);
  } else {
    const loaded = await authenticatedRecord(plan, ctx, 'DELETE', params.id);
    id = loaded.id;
    const deciding = enforce(plan, ctx, 'DELETE', loaded.row);
    if (deciding !== undefined) await deciding;
  }
  const deleted = await plan.adapter.delete(sessionOf(ctx, plan.adapter), plan.options.model, id);
  if (!deleted) throw ApiError.notFound(`No ${plan.model.name} with id "${String(id)}".`);
  ctx.status = 204;
}

/** The six generated routes of a plan, relative to `{prefix}/{resource}`. */
export function crudRoutes(plan: CrudPlan): RouteSpec[] {
  return [
    { method: 'GET', path: '/', handler: (ctx) => list(plan, ctx) },
    { method: 'POST', path: '/', handler: (ctx) => create(plan, ctx) },
    { method: 'GET', path: '/:id', handler: (ctx, params) => read(plan, ctx, params) },
    { method: 'PUT', path: '/:id', handler: (ctx, params) => update(plan, ctx, params, 'PUT') },
    { method: 'PATCH', path: '/:id', handler: (ctx, params) => update(plan, ctx, params, 'PATCH') },
    { method: 'DELETE', path: '/:id', handler: (ctx, params) => remove(plan, ctx, params) },
  ];
}
