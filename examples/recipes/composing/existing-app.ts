/** The Koa application as it was before koa-model-api: its own middleware and routes. */
import { randomUUID } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import { Router } from '@koa/router';
import Koa, { type Middleware } from 'koa';

/** Gives every request an id (kept from `X-Request-Id` when the client sent one) and echoes it. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const id = /^[\w-]{1,64}$/.test(ctx.get('x-request-id')) ? ctx.get('x-request-id') : randomUUID();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}

/** The existing app: request ids, a body parser, and routes of its own. */
export function createExistingApp(): Koa {
  const koa = new Koa();
  koa.use(requestId());
  koa.use(bodyParser());
  const feedback: unknown[] = [];
  const router = new Router();
  router.get('/', (ctx) => {
    ctx.body = { service: 'bookmarks', requestId: ctx.state.requestId };
  });
  router.post('/feedback', (ctx) => {
    feedback.push(ctx.request.body);
    ctx.status = 202;
    ctx.body = { received: feedback.length };
  });
  koa.use(router.routes()).use(router.allowedMethods());
  return koa;
}
