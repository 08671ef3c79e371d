/**
 * The OpenAPI document and Swagger UI for routers composed into a plain Koa app: the routers
 * document themselves on an `Application`, so a documentation-only one (never started, its Koa app
 * unused) collects their document, and the Koa app serves it at `/openapi.json` and `/docs`.
 */
import type Koa from 'koa';
import {
  ApiError,
  Application,
  type AuthRouter,
  type CrudRouter,
  type OrmAdapter,
} from '../../../lib/index.js';
import { swaggerUi } from '../../../lib/openapi/index.js';

/** What `serveApiDocs` documents: the routers the app serves, and the prefix it serves them under. */
export interface ApiDocsOptions {
  readonly title: string;
  readonly adapter: OrmAdapter;
  readonly auth: AuthRouter;
  readonly routers: readonly CrudRouter[];
  /** Where the app mounts the routers (`/api`): the document's `servers`, so its paths stay the routers' own. */
  readonly prefix: string;
}

/** Serves `GET /openapi.json` and Swagger UI at `/docs` for the routers of `options`. */
export function serveApiDocs(koa: Koa, options: ApiDocsOptions): void {
  const { title, adapter, auth, routers, prefix } = options;
  const docs = new Application({ title, adapter, servers: [{ url: prefix }], health: false });
  auth.register_routes(docs);
  auth.register_admin_routes(docs);
  for (const router of routers) router.register_routes(docs);

  koa.use(async (ctx, next) => {
    if (ctx.path !== '/openapi.json') return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw ApiError.methodNotAllowed(['GET', 'HEAD']);
    ctx.type = 'application/json';
    ctx.body = docs.openapi.json(); // built once, cached until a router is added
  });
  koa.use(swaggerUi({ openapiPath: '/openapi.json', title: `${title} API` }));
}
