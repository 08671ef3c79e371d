/**
 * A group of routes (one resource, or some of the auth routes) as a `@koa/router` `Router`: the
 * router Koa users know, so a group can be mounted in an app's own router
 * (`api.use(crud.router.routes())`). Answers as the framework always has: 405 problem with `Allow`
 * when the path matches but the method does not, 204 with `Allow` to `OPTIONS`, `next()` when no
 * path matches; `HEAD` is answered like `GET`.
 */
import { Router } from '@koa/router';
import type { Middleware, Next } from 'koa';
import { ApiError } from '../errors.js';
import type { AppContext, AppState } from '../types.js';

/** One route of a group. `path` is relative to the group's prefix, e.g. `/` or `/:id/make-admin`. */
export interface RouteSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly handler: (ctx: AppContext, params: Readonly<Record<string, string>>) => Promise<void>;
}

/** The router of the framework's groups: `/posts` and `/posts/` alike, paths case-sensitive. */
export type GroupRouter = Router<AppState, AppContext>;

/** Whether a path's percent-escapes are valid UTF-8. */
function decodes(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** `Allow` in the framework's order: the routes' methods, then `HEAD` (with `GET`) and `OPTIONS`. */
function allowList(header: string): string[] {
  const methods = header
    .split(/,\s*/)
    .filter((method) => method !== '' && method !== 'HEAD' && method !== 'OPTIONS');
  return [...methods, ...(methods.includes('GET') ? ['HEAD'] : []), 'OPTIONS'];
}

/** Builds the `Router` of a group of routes under a prefix (`''`, `/posts`, `/admin`). */
export function routeRouter(prefix: string, routes: readonly RouteSpec[]): GroupRouter {
  const router = new Router<AppState, AppContext>({ sensitive: true, ...(prefix === '' ? {} : { prefix }) });
  for (const route of routes) {
    const handler = route.handler;
    router.register(route.path, [route.method], (ctx: AppContext & { params?: Record<string, string> }) => {
      // `@koa/router` hands a parameter it cannot decode over as written; no record has such a key.
      if (ctx.path.includes('%') && !decodes(ctx.path)) throw ApiError.notFound();
      return handler(ctx, ctx.params ?? {});
    });
  }
  return router;
}

/** Any `@koa/router` `Router`: the framework's groups, or an app's own router they are mounted in. */
export interface AllowedMethodsSource {
  allowedMethods(): unknown;
}

/**
 * The 405 and `OPTIONS` answers of a router, after its routes: `@koa/router`'s own
 * `allowedMethods` sets a status; this throws the framework's problem instead and answers
 * `OPTIONS` with 204. Mount it after an app's own router that nests the framework's routers
 * (`koa.use(api.routes()).use(allowedMethods(api))`), in place of `api.allowedMethods()`.
 */
export function allowedMethods(router: AllowedMethodsSource): Middleware<AppState> {
  const allowed = router.allowedMethods() as Middleware<AppState>;
  return async (ctx: AppContext, next: Next) => {
    await allowed(ctx, next);
    const allow = ctx.response.get('Allow');
    if (allow === '') return;
    // 501 is `@koa/router`'s answer to a method no route of it knows (TRACE, PROPFIND): to a client
    // it is the same mistake as any other method this path does not serve.
    if (ctx.status === 405 || ctx.status === 501) {
      ctx.remove('Allow');
      throw ApiError.methodNotAllowed(allowList(allow));
    }
    if (ctx.method === 'OPTIONS' && ctx.status === 200) {
      ctx.body = null;
      ctx.status = 204;
      ctx.set('Allow', allowList(allow).join(', '));
    }
  };
}

/** A group's routes and its 405/`OPTIONS` answers as one middleware. */
export function routerMiddleware(router: GroupRouter): Middleware<AppState> {
  const routes = router.routes() as unknown as Middleware<AppState>;
  const allowed = allowedMethods(router);
  return (ctx: AppContext, next: Next) => routes(ctx, () => allowed(ctx, next));
}

/** A group's middleware, carrying its `Router` for mounting in another router. */
export type RouteGroup = Middleware<AppState> & {
  /** The group's routes as a `@koa/router` `Router`. */
  readonly router: GroupRouter;
};

/** Compiles routes into one middleware (a `Router` and its 405/`OPTIONS` answers). */
export function routeGroup(prefix: string, routes: readonly RouteSpec[]): RouteGroup {
  const router = routeRouter(prefix, routes);
  return Object.assign(routerMiddleware(router), { router });
}
