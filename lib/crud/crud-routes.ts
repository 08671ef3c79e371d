/**
 * The generated operations of a resource, each declared once: route, policy, checks in the order
 * the handler makes them, body and answer, and the handler. `CrudRouter` dispatches by this table
 * and hands it to the OpenAPI document, which derives each operation's responses from it.
 */

import type { OperationDeclaration } from '../http/operation.js';
import type { RouteSpec } from '../http/route-group.js';
import type { AppContext } from '../types.js';
import { create, list, read, remove, update } from './crud-handlers.js';
import type { CrudPlan } from './crud-plan.js';

/** An operation with its handler. */
export interface CrudOperation extends OperationDeclaration {
  /** Answers the request for a router's plan. */
  handle(plan: CrudPlan, ctx: AppContext, params: Readonly<Record<string, string>>): Promise<void>;
}

/** `PUT` and `PATCH`: the same checks and answer, each with its own policy (PATCH falls back to PUT's). */
function changeOperation(name: 'update' | 'patch', method: 'PUT' | 'PATCH'): CrudOperation {
  return {
    name,
    method,
    path: '/:id',
    policy: method,
    checks: ['caller', 'record', 'policy', 'query', 'body', 'store'],
    body: 'update',
    success: { status: 200, body: 'record' },
    handle: (plan, ctx, params) => update(plan, ctx, params, method),
  };
}

/** The six operations, in the order the document lists them. */
export const CRUD_OPERATIONS: readonly CrudOperation[] = [
  {
    name: 'list',
    method: 'GET',
    path: '/',
    policy: 'GET',
    checks: ['caller', 'policy', 'query'],
    success: { status: 200, body: 'page' },
    handle: (plan, ctx) => list(plan, ctx),
  },
  {
    name: 'create',
    method: 'POST',
    path: '/',
    policy: 'POST',
    checks: ['caller', 'policy', 'query', 'body', 'store'],
    body: 'create',
    success: { status: 201, body: 'record' },
    handle: (plan, ctx) => create(plan, ctx),
  },
  {
    name: 'read',
    method: 'GET',
    path: '/:id',
    policy: 'GET',
    checks: ['caller', 'record', 'policy', 'query'],
    success: { status: 200, body: 'record' },
    handle: (plan, ctx, params) => read(plan, ctx, params),
  },
  changeOperation('update', 'PUT'),
  changeOperation('patch', 'PATCH'),
  {
    name: 'delete',
    method: 'DELETE',
    path: '/:id',
    policy: 'DELETE',
    checks: ['caller', 'query', 'record', 'policy', 'store'],
    success: { status: 204, body: 'none' },
    handle: (plan, ctx, params) => remove(plan, ctx, params),
  },
];

/**
 * The operations a model is served by: all six; the two reads of a model its ORM never writes;
 * all but POST for one whose records the ORM cannot create itself.
 */
export function crudOperations(plan: CrudPlan): readonly CrudOperation[] {
  if (plan.model.readOnly === true) return CRUD_OPERATIONS.filter((operation) => operation.method === 'GET');
  if (plan.model.creatable === false)
    return CRUD_OPERATIONS.filter((operation) => operation.method !== 'POST');
  return CRUD_OPERATIONS;
}

/** The routes of a plan, relative to `{prefix}/{resource}`, from the operation table. */
export function crudRoutes(plan: CrudPlan): RouteSpec[] {
  return crudOperations(plan).map((operation) => ({
    method: operation.method,
    path: operation.path,
    handler: (ctx, params) => operation.handle(plan, ctx, params),
  }));
}
