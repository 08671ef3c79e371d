/**
 * The declaration of one operation: its route, what it reads and answers, and the checks it makes
 * before answering, in order. A router dispatches by it and the OpenAPI document describes it, so
 * the documented responses come from the same place as the behaviour.
 */
import type { CrudMethod } from '../types.js';

/**
 * A check an operation makes before it answers; each is one way it may refuse a request:
 * `caller` 401 (when a user is needed), `record` 404, `policy` 403 (when a policy applies),
 * `query` 400, `body` 400/413/415/422, `store` 409 (a constraint of the database).
 */
export type OperationCheck = 'caller' | 'record' | 'policy' | 'query' | 'body' | 'store';

/** The generated operations of a resource. */
export type CrudOperationName = 'list' | 'create' | 'read' | 'update' | 'patch' | 'delete';

/** One operation of a resource, without its handler (what the OpenAPI document reads). */
export interface OperationDeclaration {
  /** Which generated operation this is. */
  readonly name: CrudOperationName;
  /** The HTTP method of its route. */
  readonly method: CrudMethod;
  /** Its path relative to the resource: the collection or one record. */
  readonly path: '/' | '/:id';
  /** The method whose policy decides on it (`PATCH` falls back to the `PUT` policy). */
  readonly policy: CrudMethod;
  /** The checks it makes before answering, in the order it makes them. */
  readonly checks: readonly OperationCheck[];
  /** The request body it reads, if any: a new record or the fields to change. */
  readonly body?: 'create' | 'update';
  /** Its answer when it succeeds. */
  readonly success: { readonly status: 200 | 201 | 204; readonly body: 'page' | 'record' | 'none' };
}
