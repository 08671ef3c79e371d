/** `/health/live` (the process answers) and `/health/ready` (the database answers too). */
import { ApiError } from '../errors.js';
import type { OrmAdapter } from '../types.js';
import { type RouteGroup, routeGroup } from './route-group.js';

/** How long readiness waits for the database before answering 503. */
const READY_TIMEOUT_MS = 2_000;

/** The health route group for an adapter. */
export function healthRoutes(adapter: OrmAdapter): RouteGroup {
  return routeGroup('/health', [
    {
      method: 'GET',
      path: '/live',
      handler: async (ctx) => {
        ctx.body = { status: 'ok' };
      },
    },
    {
      method: 'GET',
      path: '/ready',
      handler: async (ctx) => {
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(ApiError.unavailable()), READY_TIMEOUT_MS);
        });
        try {
          await Promise.race([adapter.ping(), timeout]);
        } catch {
          throw ApiError.unavailable();
        } finally {
          clearTimeout(timer);
        }
        ctx.body = { status: 'ok' };
      },
    },
  ]);
}
