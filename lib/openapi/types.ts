/** What routers contribute to the OpenAPI document; the document builder turns them into OpenAPI 3.1. */

import type { OperationDeclaration } from '../http/operation.js';
import type { IncludableRelation } from '../model/relations.js';
import type { LikeLimits } from '../query/list-query.js';
import type { JsonSchema } from '../schema/json-schema.js';
import type { CrudMethod, ModelDescription, Policy } from '../types.js';

/** The generated operations of one `CrudRouter`. */
export interface CrudRoutesDoc {
  /** The model the routes serve. */
  readonly description: ModelDescription;
  /** The operations the router serves, as it dispatches them (its checks give the responses). */
  readonly operations: readonly OperationDeclaration[];
  /** Path prefix before `/{resource}` (empty for the application root). */
  readonly prefix: string;
  /** The router's `$like` caps and opted-in text fields (the defaults when omitted). */
  readonly like?: LikeLimits;
  /** Every route requires the router's authentication dependency. */
  readonly secure: boolean;
  /** Name of the security scheme of the router's dependency, when secured. */
  readonly securityScheme?: string;
  /** Whether the router has a dependency of its own (which an owned record's create runs first). */
  readonly authenticates?: boolean;
  /** The router's policies, which add 401/403 responses and a sentence to each operation. */
  readonly policies: Readonly<Partial<Record<CrudMethod, Policy>>>;
  /** Fields this router never lets a client write on top of the model's own rules (the ownership field). */
  readonly readOnlyFields: ReadonlySet<string>;
  /** The ownership field a create sets from the caller, so a create needs a token; absent: none. */
  readonly ownerField?: string;
  /** Write-only input fields added by plugins (e.g. `password` on the user model). */
  readonly extraInputFields: Readonly<Record<string, JsonSchema>>;
  /** Extra input fields a create must give (e.g. `password`). */
  readonly extraRequiredOnCreate: readonly string[];
  /** Unknown or protected fields give 422 instead of being dropped. */
  readonly strict: boolean;
  /** What a plugin's write hooks refuse to delete: `DELETE` then documents 403 and this sentence. */
  readonly deleteRule?: string;
  /**
   * Rules plugins enforce on model fields beyond the model's own, by field name, merged into the
   * field's schema in the create and update bodies (e.g. the auth plugin's `minLength: 1` on the
   * username, which its write hooks check).
   */
  readonly fieldRules?: Readonly<Record<string, JsonSchema>>;
  /**
   * The relations requests may include, filter and sort through, resolved when the document is
   * built (every router is registered by then). Absent: none.
   */
  readonly relations?: () => readonly IncludableRelation[];
  /** Most records of one to-many relation embedded per record (the router's `include_limit`). */
  readonly includeLimit?: number;
}

/** A plain OpenAPI operation object (JSON), as a plugin writes it. */
export type OpenApiOperation = Record<string, unknown>;

/** An operation contributed by a plugin (the auth routes). */
export interface OperationDoc {
  /** HTTP method, lower case as OpenAPI writes it. */
  readonly method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI path template, e.g. `/admin/{id}/make-admin`. */
  readonly path: string;
  /** The operation object. */
  readonly operation: OpenApiOperation;
}

/** A security scheme object, e.g. `{ type: 'oauth2', flows: { password: { tokenUrl: '/login', scopes: {} } } }`. */
export type SecuritySchemeObject = Record<string, unknown>;
