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
  AuthDependency,
  CrudMethod,
  FilterCondition,
  PendingUser,
  Policy,
  PolicyInput,
  RawRecord,
  RecordId,
} from '../types.js';
import type { CrudPlan } from './crud-plan.js';

const noop = async (): Promise<void> => {};

/** Runs the router's authentication dependency when the router is secured. */
async function authenticate(plan: CrudPlan, ctx: AppContext): Promise<void> {
  const dependency = plan.options.authDependency;
  if (plan.options.secure && dependency !== undefined && ctx.state.user === undefined)
    await dependency(ctx, noop);
}

/**
 * Enforces the method's policy: 401 without a user when one is needed, 403 when refused. Returns a
 * promise only when something is pending (a policy's own authentication, an asynchronous `allows`),
 * so that the usual synchronous policy costs the request no promise.
 */
function enforce(
  plan: CrudPlan,
  ctx: AppContext,
  method: CrudMethod,
  record?: RawRecord,
): undefined | Promise<void> {
  const policy = plan.options.policies[method];
  if (policy === undefined) return undefined;
  if (ctx.state.user === undefined && policy.authenticate !== undefined) {
    return Promise.resolve(policy.authenticate(ctx, noop)).then(() =>
      decide(plan, ctx, policy, method, record),
    );
  }
  return decide(plan, ctx, policy, method, record);
}

function decide(
  plan: CrudPlan,
  ctx: AppContext,
  policy: Policy,
  method: CrudMethod,
  record: RawRecord | undefined,
): undefined | Promise<void> {
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

function parseId(plan: CrudPlan, raw: string | undefined): RecordId | undefined {
  const key = plan.model.fieldsByName.get(plan.model.primaryKey);
  return key === undefined || raw === undefined ? undefined : coerceId(key, raw);
}

function noId(plan: CrudPlan, raw: string | undefined): ApiError {
  return ApiError.notFound(`No ${plan.model.name} with id "${String(raw).slice(0, 100)}".`);
}

/** The id of the path, or 404 when no record could have it. */
function idOf(plan: CrudPlan, raw: string | undefined): RecordId {
  const id = parseId(plan, raw);
  if (id === undefined) throw noId(plan, raw);
  return id;
}

async function load(plan: CrudPlan, ctx: AppContext, id: RecordId): Promise<RawRecord> {
  const row = await plan.adapter.get(sessionOf(ctx, plan.adapter), plan.options.model, id);
  if (row === undefined) throw noId(plan, String(id));
  return row;
}

/** Whether an answer is still pending: a promise, or any other thenable a custom dependency returns. */
function isPending<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

/**
 * The caller of a route that authenticates: by the secured router's dependency, else by the
 * method policy's own `authenticate` (so that on an unsecured router too an anonymous caller gets
 * its 401 before learning whether a record exists). A dependency that can identify the caller
 * without reading the user yet leaves the user pending; one that cannot is run here. Nothing to
 * await when nothing is pending.
 */
function pendingCaller(
  plan: CrudPlan,
  ctx: AppContext,
  method: CrudMethod,
): PendingUser | undefined | PromiseLike<PendingUser | undefined> {
  if (ctx.state.user !== undefined) return undefined;
  const { secure, authDependency } = plan.options;
  const dependency: AuthDependency | Middleware<AppState> | undefined =
    secure && authDependency !== undefined ? authDependency : plan.options.policies[method]?.authenticate;
  if (dependency === undefined) return undefined;
  const identify = (dependency as AuthDependency).identify;
  if (identify === undefined) return Promise.resolve(dependency(ctx, noop)).then(() => undefined);
  return identify(ctx);
}

/**
 * Authentication, then the id, then the stored record (404 for either), as `authenticate`, `idOf`
 * and `load` do in turn; but a caller identified by the token is read in the same adapter call as
 * the record when the adapter can (`getEach`): one statement and one round trip instead of two.
 */
async function authenticatedRecord(
  plan: CrudPlan,
  ctx: AppContext,
  method: CrudMethod,
  raw: string | undefined,
): Promise<{ id: RecordId; row: RawRecord }> {
  const caller = pendingCaller(plan, ctx, method);
  const pending = isPending(caller) ? await caller : caller;
  if (pending === undefined) {
    const id = idOf(plan, raw);
    return { id, row: await load(plan, ctx, id) };
  }
  const { adapter } = plan;
  const session = sessionOf(ctx, adapter);
  const id = parseId(plan, raw);
  let row: RawRecord | undefined;
  if (id !== undefined && pending.adapter === adapter && adapter.getEach !== undefined) {
    const [user, record] = await adapter.getEach(session, [
      pending.lookup,
      { model: plan.options.model, id },
    ]);
    pending.accept(ctx, user);
    row = record;
  } else {
    const { lookup } = pending;
    pending.accept(ctx, await pending.adapter.get(sessionOf(ctx, pending.adapter), lookup.model, lookup.id));
    if (id !== undefined) row = await adapter.get(session, plan.options.model, id);
  }
  if (id === undefined) throw noId(plan, raw);
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

async function list(plan: CrudPlan, ctx: AppContext): Promise<void> {
  await authenticate(plan, ctx);
  await enforce(plan, ctx, 'GET');
  const query = parseListQuery(plan.model, ctx.querystring);
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
async function writeData(plan: CrudPlan, ctx: AppContext, mode: 'create' | 'update'): Promise<RawRecord> {
  const body = await plan.readBody(ctx);
  let data = plan.validate(mode, body);
  const hooks = plan.hooks();
  if (hooks !== undefined) data = await hooks.prepare(data, mode, ctx);
  if (mode === 'create' && plan.ownerField !== undefined && ctx.state.user !== undefined) {
    data[plan.ownerField] = ctx.state.user.id;
  }
  return data;
}

async function create(plan: CrudPlan, ctx: AppContext): Promise<void> {
  await authenticate(plan, ctx);
  await enforce(plan, ctx, 'POST');
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
  await enforce(plan, ctx, method, current);
  const data = await writeData(plan, ctx, 'update');
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
    await authenticate(plan, ctx);
    id = idOf(plan, params.id);
  } else {
    const loaded = await authenticatedRecord(plan, ctx, 'DELETE', params.id);
    id = loaded.id;
    await enforce(plan, ctx, 'DELETE', loaded.row);
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
