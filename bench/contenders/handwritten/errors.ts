/** The hand-written app's error type and the Koa middleware that turns errors into problem+json. */
import type { Middleware } from 'koa';
import { PROBLEM_TYPE, problem } from '../shared/problem.js';

/** An error with an HTTP status that the error middleware renders as a problem body. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

function statusOf(error: unknown): number {
  if (error instanceof HttpProblem) return error.status;
  // @koa/bodyparser and other Koa middleware throw http-errors with `status` and `expose`.
  const status = (error as { status?: unknown; expose?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
}

/** Renders thrown errors and unmatched routes as RFC 9457 bodies. */
export function problemMiddleware(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpProblem(404, `No route for ${ctx.method} ${ctx.path}`);
      }
    } catch (error) {
      const status = statusOf(error);
      if (status === 500) console.error(error);
      const detail = status === 500 ? 'Internal server error' : (error as Error).message;
      ctx.status = status;
      ctx.body = problem(status, detail);
      ctx.type = PROBLEM_TYPE;
      if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
    }
  };
}
