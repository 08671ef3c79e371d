/**
 * Collects what routers and plugins document and serves the OpenAPI document built from it,
 * built once and cached until something new is added. Conflicting routes are refused when they
 * are added, so a mistake shows at start-up rather than on the first request for the document.
 */
import { ConfigurationError } from '../errors.js';
import type { JsonSchema } from '../schema/json-schema.js';
import { createSchema } from '../schema/model-schemas.js';
import type { ModelClass } from '../types.js';
import { RESERVED_SCHEMA_NAMES } from './components.js';
import { collectionPath, itemPath } from './crud-operations.js';
import { buildOpenApiDocument, type OpenApiInfo } from './document.js';
import type { CrudRoutesDoc, OperationDoc, SecuritySchemeObject } from './types.js';

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Freezes a JSON value and everything in it, so the cached document cannot be changed by a reader. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** `/people/{id}` and `/people/{key}` are the same route to a router and to OpenAPI. */
function routeKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]*\}/g, '{}')}`;
}

// What registered a documented operation that is not a CrudRouter's (auth, health, an app's own).
const OTHER_ROUTER = 'another router';

/**
 * The OpenAPI registry of one application.
 *
 * @example
 * const registry = new OpenApiRegistry({ title: 'Blog' });
 * registry.addCrud(router.openapi());
 * ctx.body = registry.document();
 */
export class OpenApiRegistry {
  readonly #info: OpenApiInfo;
  readonly #crud: CrudRoutesDoc[] = [];
  readonly #operations: OperationDoc[] = [];
  readonly #securitySchemes: Record<string, SecuritySchemeObject> = {};
  readonly #schemas: Record<string, JsonSchema> = {};
  // Each documented route and what registered it (a model's router, or 'another router').
  readonly #routes = new Map<string, string>();
  #document: Readonly<Record<string, unknown>> | undefined;
  #json: string | undefined;

  constructor(info: OpenApiInfo) {
    this.#info = { ...info };
  }

  /** Documents the generated routes of one `CrudRouter`. */
  addCrud(doc: CrudRoutesDoc): void {
    // Builds the create schema once now, so a bad plugin field shows at registration.
    createSchema(doc.description, {
      readOnlyFields: doc.readOnlyFields,
      extraFields: doc.extraInputFields,
      extraRequired: doc.extraRequiredOnCreate,
    });
    const collection = collectionPath(doc);
    const item = itemPath(doc);
    this.#claim(`the CrudRouter of ${doc.description.name}`, [
      ['get', collection],
      ['post', collection],
      ['get', item],
      ['put', item],
      ['patch', item],
      ['delete', item],
    ]);
    this.#crud.push(doc);
    this.#invalidate();
  }

  /** Where the CRUD routes of a model live (`{prefix}/{resource}`), from the first router documented for it. */
  collectionPathOf(model: ModelClass): string | undefined {
    const doc = this.#crud.find((entry) => entry.description.model === model);
    return doc === undefined ? undefined : collectionPath(doc);
  }

  /** Documents one operation of a plugin (e.g. `POST /login`). */
  addOperation(op: OperationDoc): void {
    if (!METHODS.has(op.method))
      throw new ConfigurationError(`OpenAPI operation with unknown method "${op.method}".`);
    if (!op.path.startsWith('/')) {
      throw new ConfigurationError(`OpenAPI path "${op.path}" must start with "/".`);
    }
    this.#claim(OTHER_ROUTER, [[op.method, op.path]]);
    this.#operations.push({ method: op.method, path: op.path, operation: structuredClone(op.operation) });
    this.#invalidate();
  }

  /** Declares a security scheme under `components.securitySchemes` (the auth plugin's OAuth2 password flow). */
  addSecurityScheme(name: string, scheme: SecuritySchemeObject): void {
    this.#securitySchemes[name] = structuredClone(scheme);
    this.#invalidate();
  }

  /** Declares a named schema (`#/components/schemas/<name>`) that plugin operations refer to. */
  addSchema(name: string, schema: JsonSchema): void {
    if (!/^[A-Za-z0-9._-]+$/.test(name))
      throw new ConfigurationError(`Invalid OpenAPI schema name "${name}".`);
    if (RESERVED_SCHEMA_NAMES.has(name)) {
      throw new ConfigurationError(`The OpenAPI schema name "${name}" is reserved by koa-model-api.`);
    }
    if (name in this.#schemas)
      throw new ConfigurationError(`The OpenAPI schema "${name}" is already declared.`);
    this.#schemas[name] = structuredClone(schema);
    this.#invalidate();
  }

  /** The OpenAPI 3.1 document (deeply frozen), built on first use after a change. */
  document(): Readonly<Record<string, unknown>> {
    this.#document ??= deepFreeze(
      buildOpenApiDocument({
        info: this.#info,
        crud: this.#crud,
        operations: this.#operations,
        securitySchemes: this.#securitySchemes,
        schemas: this.#schemas,
      }),
    );
    return this.#document;
  }

  /** The document serialized as JSON, cached like the document (for `GET /openapi.json`). */
  json(): string {
    this.#json ??= JSON.stringify(this.document());
    return this.#json;
  }

  /** Refuses a route that is already documented (two routers would shadow each other). */
  #claim(owner: string, routes: readonly (readonly [string, string])[]): void {
    for (const [method, path] of routes) {
      const first = this.#routes.get(routeKey(method, path));
      if (first !== undefined) {
        throw new ConfigurationError(
          `The route ${method.toUpperCase()} ${path} of ${owner} is already registered by ${first === owner && owner !== OTHER_ROUTER ? 'an earlier registration of the same router' : first}. Give one of them its own prefix (new CrudRouter({ model, prefix: '/v2' })); subclasses of one single-table hierarchy share their table's name, hence their path.`,
        );
      }
    }
    for (const [method, path] of routes) this.#routes.set(routeKey(method, path), owner);
  }

  #invalidate(): void {
    this.#document = undefined;
    this.#json = undefined;
  }
}
