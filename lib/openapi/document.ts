/**
 * Builds the OpenAPI 3.1 document from what routers and plugins contributed: the CRUD routes of
 * every `CrudRouter`, plugin operations, security schemes and named schemas.
 */
import { ConfigurationError } from '../errors.js';
import type { JsonSchema } from '../schema/json-schema.js';
import type { AuthDependency, ModelClass, Policy } from '../types.js';
import { baseComponents, PROBLEM_STATUS, responseRef } from './components.js';
import { type CrudBuildContext, crudPathItems } from './crud-operations.js';
import { humanize, OperationIdAllocator, operationIdFromPath } from './naming.js';
import { followRenames, widens } from './plugin-names.js';
import { sameJson } from './same-json.js';
import type { CrudRoutesDoc, OperationDoc, SecuritySchemeObject } from './types.js';

/** The `info` object of the document. */
export interface OpenApiInfo {
  /** The API's title. */
  readonly title: string;
  /** The API's version; default `1.0.0`. */
  readonly version?: string;
  /** The API's description, in Markdown; a sentence naming the title when not given. */
  readonly description?: string;
  /** The license the API is offered under (OpenAPI `info.license`). */
  readonly license?: { readonly name: string; readonly identifier?: string; readonly url?: string };
  /** Who answers for the API (OpenAPI `info.contact`). */
  readonly contact?: { readonly name?: string; readonly url?: string; readonly email?: string };
  /** Where the API is served (OpenAPI `servers`); default `[{ url: '/' }]`, the origin that serves the document. */
  readonly servers?: readonly { readonly url: string; readonly description?: string }[];
}

/** Everything a document is built from. */
export interface OpenApiSources {
  /** The `info` object. */
  readonly info: OpenApiInfo;
  /** The CRUD routes of every registered `CrudRouter`. */
  readonly crud: readonly CrudRoutesDoc[];
  /** Operations plugins contribute (e.g. `/register`, `/login`). */
  readonly operations: readonly OperationDoc[];
  /** Security schemes by name (`components.securitySchemes`). */
  readonly securitySchemes: Readonly<Record<string, SecuritySchemeObject>>;
  /** Schemas plugins name in their operations (`#/components/schemas/<name>`). */
  readonly schemas: Readonly<Record<string, JsonSchema>>;
}

/** The OpenAPI version the document declares. */
export const OPENAPI_VERSION = '3.1.0';
/** `info.version` when the application gives none. */
export const DEFAULT_API_VERSION = '1.0.0';
/** Scheme name used when an operation needs a user and no dependency named its scheme. */
export const DEFAULT_SECURITY_SCHEME = 'bearerAuth';
/** The scheme documented for a referenced name that no plugin registered: a JWT bearer token. */
export const BEARER_SECURITY_SCHEME: SecuritySchemeObject = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
};

/** `servers` when the application names none: the origin that serves the document. */
export const DEFAULT_SERVERS: readonly { url: string; description?: string }[] = [
  { url: '/', description: 'The server that serves this document.' },
];

/**
 * An OAuth2 flow's URLs that name one of this document's own paths (`tokenUrl: '/login'`, the auth
 * plugin's route) put under the servers' path, as the operations' paths are: Swagger UI and RFC 3986
 * resolve a URL starting with `/` against the host alone, so under `servers: [{ url: '/api' }]`
 * **Authorize** would post to `/login`, not `/api/login`. Left as they are when the servers differ
 * in path or hold variables (`{version}`), and for URLs elsewhere (an identity provider's).
 */
function underServers(
  schemes: Record<string, SecuritySchemeObject>,
  servers: readonly { readonly url: string }[],
  paths: Readonly<Record<string, unknown>>,
): void {
  const bases = new Set(servers.map((server) => serverPath(server.url)));
  const [base] = bases;
  if (bases.size !== 1 || base === undefined || base === '') return;
  for (const scheme of Object.values(schemes)) {
    const flows = scheme.flows as Record<string, Record<string, unknown>> | undefined;
    for (const flow of Object.values(flows ?? {})) {
      for (const key of ['authorizationUrl', 'tokenUrl', 'refreshUrl']) {
        const url = flow[key];
        if (typeof url === 'string' && Object.hasOwn(paths, url)) flow[key] = `${base}${url}`;
      }
    }
  }
}

/** A server URL's path without its trailing `/` (`https://a.example/api/` → `/api`); undefined with variables. */
function serverPath(url: string): string | undefined {
  if (url.includes('{')) return undefined;
  try {
    return new URL(url, 'http://document.invalid').pathname.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/** The keys of a path item that hold operations. */
const HTTP_METHODS: ReadonlySet<string> = new Set([
  'get',
  'put',
  'post',
  'delete',
  'options',
  'head',
  'patch',
  'trace',
]);

/** The security scheme name a policy's own authentication documents, if it names one. */
function policyScheme(policy: Policy | undefined): string | undefined {
  const dependency = policy?.authenticate as Partial<Pick<AuthDependency, 'securityScheme'>> | undefined;
  return dependency?.securityScheme;
}

/**
 * Picks the scheme of an operation that needs a user: the router's, then the policy's, then the
 * only registered one, then the default bearer scheme.
 */
function schemeResolver(
  registered: Readonly<Record<string, SecuritySchemeObject>>,
): (doc: CrudRoutesDoc, policy: Policy | undefined) => string {
  const names = Object.keys(registered);
  const only = names.length === 1 ? names[0] : undefined;
  return (doc, policy) =>
    (doc.secure ? doc.securityScheme : undefined) ??
    policyScheme(policy) ??
    doc.securityScheme ??
    only ??
    DEFAULT_SECURITY_SCHEME;
}

/** The responses with one more status, kept in status order ('default' last). */
function withStatus(
  responses: Readonly<Record<string, unknown>>,
  status: string,
  response: unknown,
): Record<string, unknown> {
  const entries = [...Object.entries(responses), [status, response] as const];
  const rank = (key: string): number => (/^\d/.test(key) ? Number(key.replace(/X/g, '0')) : 1000);
  return Object.fromEntries(entries.sort(([a], [b]) => rank(a) - rank(b)));
}

/** Security scheme names that operations of a path item require. */
function requiredSchemes(pathItem: Record<string, unknown>): string[] {
  const names: string[] = [];
  for (const value of Object.values(pathItem)) {
    const security = (value as { security?: unknown } | null)?.security;
    if (!Array.isArray(security)) continue;
    for (const requirement of security) names.push(...Object.keys(requirement as Record<string, unknown>));
  }
  return names;
}

/** The description of a tag a plugin's operations name without describing it. */
function tagDescription(tag: string): string {
  const words = humanize(tag);
  return `${words.charAt(0).toUpperCase()}${words.slice(1)} operations.`;
}

/**
 * Start of the `$ref` a relation gets to a router's read schema (`record:3`, `fields:3`) before that
 * schema has its name (it may be built later, and its name depends on what came before); replaced
 * once all are built.
 */
const PENDING_RECORD = '#/components/schemas/\u0000';

/** Replaces every pending `$ref` in a schema by the name its router's read schema got. */
function resolvePendingRecords(value: unknown, names: ReadonlyMap<string, string>): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) resolvePendingRecords(item, names);
    return;
  }
  const object = value as Record<string, unknown>;
  const ref = object.$ref;
  if (typeof ref === 'string' && ref.startsWith(PENDING_RECORD)) {
    const name = names.get(ref.slice(PENDING_RECORD.length));
    if (name === undefined) throw new Error(`Unresolved OpenAPI record reference ${ref.slice(1)}.`);
    object.$ref = name;
  }
  for (const child of Object.values(object)) resolvePendingRecords(child, names);
}

/** Builds a fresh OpenAPI 3.1 document; the sources are not modified. */
export function buildOpenApiDocument(sources: OpenApiSources): Record<string, unknown> {
  const components = baseComponents();
  const ids = new OperationIdAllocator();
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, Record<string, unknown>>();

  for (const [name, schema] of Object.entries(sources.schemas)) {
    if (name in components.schemas) {
      throw new ConfigurationError(`The OpenAPI schema name "${name}" is reserved by koa-model-api.`);
    }
    components.schemas[name] = structuredClone(schema);
  }

  // A relation refers to the read schema of the first router documented for its target model,
  // as `OpenApiRegistry.collectionPathOf` names that router's path.
  const routesOf = new Map<ModelClass, number>();
  sources.crud.forEach((doc, index) => {
    if (!routesOf.has(doc.description.model)) routesOf.set(doc.description.model, index);
  });
  const recordNames = new Map<string, string>();
  // Plugin schemas whose name a router's record schema has not yet claimed, and where the ones
  // that had to move went (see plugin-names.ts).
  const pluginNames = new Set(Object.keys(sources.schemas));
  const moved = new Map<string, string>();
  /** Gives `name` to a router's record schema, moving a plugin's schema of that name if it must. */
  const claim = (name: string, schema: JsonSchema): void => {
    const plugin = components.schemas[name];
    if (!pluginNames.delete(name) || plugin === undefined) return;
    if (widens(schema, plugin)) {
      components.schemas[name] = schema;
      return;
    }
    let free = `${name}2`;
    for (let n = 3; free in components.schemas || free in sources.schemas; n++) free = `${name}${n}`;
    components.schemas[free] = plugin;
    delete components.schemas[name];
    moved.set(name, free);
  };

  const context: CrudBuildContext = {
    schema(name, schema) {
      let candidate = name;
      for (let n = 2; ; n++) {
        const existing = components.schemas[candidate];
        if (existing === undefined) components.schemas[candidate] = schema;
        if (existing === undefined || sameJson(existing, schema))
          return { $ref: `#/components/schemas/${candidate}` };
        candidate = `${name}${n}`;
      }
    },
    operationId: (preferred) => ids.claim(preferred),
    securityScheme: schemeResolver(sources.securitySchemes),
    record(doc, schema, shape = 'record') {
      const name = shape === 'record' ? doc.description.name : `${doc.description.name}Fields`;
      claim(name, schema);
      const ref = context.schema(name, schema);
      const index = sources.crud.indexOf(doc);
      const key = `${shape}:${index}`;
      if (index >= 0 && !recordNames.has(key)) recordNames.set(key, String(ref.$ref));
      return ref;
    },
    target(model) {
      const index = routesOf.get(model);
      const routes = index === undefined ? undefined : sources.crud[index];
      return index === undefined || routes === undefined
        ? undefined
        : {
            routes,
            record: { $ref: `${PENDING_RECORD}record:${index}` },
            fields: { $ref: `${PENDING_RECORD}fields:${index}` },
          };
    },
  };

  // Plugin operations claim their explicit ids first: a plugin's documented id never changes.
  const extra = sources.operations.map((op) => {
    const operation = structuredClone(op.operation);
    const given = operation.operationId;
    operation.operationId = ids.claim(
      typeof given === 'string' ? given : operationIdFromPath(op.method, op.path),
    );
    return { ...op, operation };
  });

  for (const doc of sources.crud) {
    const resource = doc.description.resource;
    if (!tags.has(resource)) {
      const words = humanize(doc.description.name);
      tags.set(resource, {
        name: resource,
        description: `${words.charAt(0).toUpperCase()}${words.slice(1)} records.`,
      });
    }
    for (const [path, item] of Object.entries(crudPathItems(doc, context))) paths[path] = item;
  }
  for (const schema of Object.values(components.schemas)) resolvePendingRecords(schema, recordNames);
  for (const name of Object.keys(sources.schemas))
    followRenames(components.schemas[moved.get(name) ?? name], moved);
  for (const op of extra) followRenames(op.operation, moved);
  for (const op of extra) {
    paths[op.path] ??= {};
    (paths[op.path] as Record<string, unknown>)[op.method] = op.operation;
    const opTags = op.operation.tags;
    if (Array.isArray(opTags)) {
      for (const tag of opTags) {
        if (typeof tag === 'string' && !tags.has(tag))
          tags.set(tag, { name: tag, description: tagDescription(tag) });
      }
    }
  }

  // No security at the root: an operation without requirements is public, and says so with
  // `security: []` (linters and generators otherwise cannot tell it from a forgotten one).
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method) || operation === null || typeof operation !== 'object') continue;
      const op = operation as Record<string, unknown>;
      if (op.security === undefined) op.security = [];
      // The HTTP server answers any request whose headers are too large, before routing it.
      const responses = op.responses as Record<string, unknown> | undefined;
      if (responses !== undefined && responses[PROBLEM_STATUS.HeaderFieldsTooLarge] === undefined)
        op.responses = withStatus(
          responses,
          PROBLEM_STATUS.HeaderFieldsTooLarge,
          responseRef('HeaderFieldsTooLarge'),
        );
    }
  }

  const securitySchemes: Record<string, SecuritySchemeObject> = structuredClone({
    ...sources.securitySchemes,
  });
  for (const item of Object.values(paths)) {
    for (const name of requiredSchemes(item)) securitySchemes[name] ??= { ...BEARER_SECURITY_SCHEME };
  }
  const servers = sources.info.servers ?? DEFAULT_SERVERS;
  underServers(securitySchemes, servers, paths);

  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: sources.info.title,
      version: sources.info.version ?? DEFAULT_API_VERSION,
      description: sources.info.description ?? `The ${sources.info.title} API.`,
      ...(sources.info.license === undefined ? {} : { license: structuredClone(sources.info.license) }),
      ...(sources.info.contact === undefined ? {} : { contact: structuredClone(sources.info.contact) }),
    },
    // A relative URL resolves against where `/openapi.json` was fetched from, so clients and
    // Swagger UI call the same origin without the application knowing its public address.
    servers: structuredClone(servers),
    tags: [...tags.values()],
    paths,
    components: {
      ...components,
      ...(Object.keys(securitySchemes).length === 0 ? {} : { securitySchemes }),
    },
  };
}
