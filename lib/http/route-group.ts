/**
 * A small route table for one group of routes (one resource, or the auth routes): static
 * segments and `:param` segments, matched segment by segment. 405 with `Allow` when the path
 * matches but the method does not; `next()` when no path matches.
 */
import type { Middleware, Next } from 'koa';
import { ApiError } from '../errors.js';
import type { AppContext, AppState } from '../types.js';

/** One route of a group. `path` is relative to the group's prefix, e.g. `/` or `/:id/make-admin`. */
export interface RouteSpec {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly handler: (ctx: AppContext, params: Readonly<Record<string, string>>) => Promise<void>;
}

interface Node {
  readonly children: Map<string, Node>;
  param?: { name: string; node: Node };
  readonly handlers: Map<string, RouteSpec['handler']>;
}

const newNode = (): Node => ({ children: new Map(), handlers: new Map() });

/** Splits a path into its segments; `undefined` for a path with an empty inner segment. */
export function splitPath(path: string): string[] | undefined {
  const parts = path.split('/');
  parts.shift();
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts.includes('') ? undefined : parts;
}

/** Compiles routes into one middleware; matching cost depends on the path length only. */
export function routeGroup(prefix: string, routes: readonly RouteSpec[]): Middleware<AppState> {
  const root = newNode();
  const prefixParts = splitPath(prefix === '' ? '/' : prefix) ?? [];
  for (const route of routes) {
    let node = root;
    for (const part of [...prefixParts, ...(splitPath(route.path) ?? [])]) {
      if (part.startsWith(':')) {
        const name = part.slice(1);
        node.param ??= { name, node: newNode() };
        node = node.param.node;
      } else {
        let child = node.children.get(part);
        if (child === undefined) {
          child = newNode();
          node.children.set(part, child);
        }
        node = child;
      }
    }
    node.handlers.set(route.method, route.handler);
  }

  return async function routeGroupMiddleware(ctx: AppContext, next: Next): Promise<void> {
    const parts = splitPath(ctx.path);
    if (parts === undefined) return next();
    const params: Record<string, string> = {};
    let node: Node | undefined = root;
    for (const raw of parts) {
      const child: Node | undefined = node.children.get(raw);
      if (child !== undefined) {
        node = child;
      } else if (node.param !== undefined) {
        let value: string;
        try {
          value = decodeURIComponent(raw);
        } catch {
          throw ApiError.notFound();
        }
        params[node.param.name] = value;
        node = node.param.node;
      } else {
        return next();
      }
    }
    if (node.handlers.size === 0) return next();
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const handler = node.handlers.get(method);
    if (handler === undefined) {
      const allowed = [...node.handlers.keys()];
      if (allowed.includes('GET')) allowed.push('HEAD');
      if (ctx.method === 'OPTIONS') {
        ctx.status = 204;
        ctx.set('Allow', [...allowed, 'OPTIONS'].join(', '));
        return;
      }
      throw ApiError.methodNotAllowed([...allowed, 'OPTIONS']);
    }
    await handler(ctx, params);
  };
}
