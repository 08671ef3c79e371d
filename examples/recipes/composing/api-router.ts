/**
 * Mounts koa-model-api's routes in an app's own `@koa/router` router: `AuthRouter` and
 * `CrudRouter` expose theirs as `router`, so they nest under `/api` with the app's own routes.
 */
import { Router } from '@koa/router';
import type Koa from 'koa';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { AuthRouter, allowedMethods, CrudRouter, problemDetails } from '../../../lib/index.js';
import { serveApiDocs } from './api-docs.js';
import { Bookmark, User } from './entities.js';

/** Connects to `url` and serves `/api/register`, `/api/login`, `/api/bookmarks…` and `/api/me` from one router, documented at `/openapi.json` and `/docs`. */
export async function mountApiRouter(koa: Koa, url: string): Promise<MikroOrmAdapter> {
  const adapter = await MikroOrmAdapter.connect({ url, entities: [User, Bookmark] });
  await adapter.orm.schema.update({ safe: true });
  koa.use(problemDetails()); // the framework's errors as RFC 9457 bodies

  // With `adapter` the routers know their table names, hence their paths, before any request.
  const auth = new AuthRouter({ user_model: User, adapter });
  const bookmarks = new CrudRouter({
    model: Bookmark,
    adapter,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: {
      GET: auth.owner_or_admin(Bookmark),
      PUT: auth.owner_or_admin(Bookmark),
      DELETE: auth.owner_or_admin(Bookmark),
    },
  });

  const api = new Router({ prefix: '/api' });
  api.use(auth.router.routes());
  api.use(auth.adminRouter.routes()); // /api/admin/{id}/make-admin, /password, /revoke-sessions
  api.use(bookmarks.router.routes());
  api.get('/me', auth.get_auth_dependency(), (ctx) => {
    ctx.body = ctx.state.user?.record;
  });
  koa.use(api.routes());
  // A wrong method is the framework's 405 problem (with `Allow`), `OPTIONS` a 204, as under
  // `Application`; `api.allowedMethods()` would answer them in plain text.
  koa.use(allowedMethods(api));
  // GET /openapi.json and Swagger UI at /docs, for the routers above (see api-docs.ts).
  serveApiDocs(koa, { title: 'Bookmarks', adapter, auth, routers: [bookmarks], prefix: '/api' });
  return adapter;
}
