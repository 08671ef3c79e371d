/** `mountAt`: serves middleware that knows only root paths (the auth routes) under a prefix. */
import type { Middleware } from 'koa';

/**
 * Requests under `prefix` reach `middleware` with the prefix taken off the path; every other
 * request, and whatever `middleware` passes on, continues with the original path.
 */
export function mountAt(prefix: string, middleware: Middleware): Middleware {
  return async (ctx, next) => {
    const path = ctx.path;
    if (!path.startsWith(`${prefix}/`)) return next();
    ctx.path = path.slice(prefix.length);
    try {
      await middleware(ctx, async () => {
        ctx.path = path;
        await next();
      });
    } finally {
      ctx.path = path;
    }
  };
}
