/** Koa error handler for the Feathers contender: Feathers errors rendered as problem+json like the other contenders. */
import { FeathersError } from '@feathersjs/errors';
import type { Middleware } from 'koa';
import { PROBLEM_TYPE, problem } from '../shared/problem.js';

/** Replaces `@feathersjs/koa`'s `errorHandler()`, keeping its behaviour (404 for unmatched paths) but the body format of the bench. */
export function problemErrorHandler(): Middleware {
  return async (ctx, next) => {
    let status: number;
    let detail: string;
    try {
      await next();
      if (ctx.body !== undefined || ctx.status === 204) return;
      status = 404;
      detail = `Path ${ctx.path} not found`;
    } catch (error) {
      status = error instanceof FeathersError ? error.code : 500;
      // The data validators of @feathersjs/schema throw BadRequest with the ajv errors in `data`.
      if (status === 400 && error instanceof FeathersError && Array.isArray(error.data)) status = 422;
      if (status === 500) console.error(error);
      detail = status === 500 ? 'Internal server error' : (error as Error).message;
    }
    ctx.status = status;
    ctx.body = problem(status, detail);
    ctx.type = PROBLEM_TYPE;
    if (status === 401) ctx.set('WWW-Authenticate', 'Bearer');
  };
}
