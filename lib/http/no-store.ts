/** `Cache-Control: no-store` for routes that answer with credentials or secrets, errors included. */
import { ApiError } from '../errors.js';
import type { RouteSpec } from './route-group.js';

type Handler = RouteSpec['handler'];

const NO_STORE = Object.freeze({ 'Cache-Control': 'no-store', Pragma: 'no-cache' });

/** Adds `no-store` to the response and to any error it becomes (error handlers may clear headers). */
export function noStore(handler: Handler): Handler {
  return async (ctx, params) => {
    ctx.set(NO_STORE);
    try {
      await handler(ctx, params);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      throw new ApiError(error.code, error.message, {
        ...(error.errors === undefined ? {} : { errors: error.errors }),
        headers: { ...error.headers, ...NO_STORE },
        ...(error.cause === undefined ? {} : { cause: error.cause }),
      });
    }
  };
}
