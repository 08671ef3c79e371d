/** Adds koa-model-api to an existing Koa app: auth and CRUD routes under `/api`, beside its own. */
import { Router } from '@koa/router';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ApiError, AuthRouter, CrudRouter, useAdapter } from '../../../lib/index.js';
import { Bookmark, User } from './entities.js';
import { mountAt } from './mount-at.js';

/** Answers the framework's errors as problem details; any other error goes on to the app's own handling. */
export function problemDetails(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = error.toProblem();
      ctx.set('Content-Type', 'application/problem+json; charset=utf-8');
    }
  };
}

/** Connects to `url` and mounts `/api/register`, `/api/login`, `/api/me` and `/api/bookmarks`. */
export async function addModelApi(koa: Koa, url: string): Promise<MikroOrmAdapter> {
  const adapter = await MikroOrmAdapter.connect({ url, entities: [User, Bookmark] });
  // The database is shared with the app's own tables: add what is missing, never drop anything.
  await adapter.orm.schema.update({ safe: true });
  useAdapter(koa, adapter); // every framework middleware of this app finds the adapter here
  koa.use(problemDetails());

  const auth = new AuthRouter({ user_model: User });
  koa.use(mountAt('/api', auth.middleware())); // POST /api/register, POST /api/login

  new CrudRouter({
    model: Bookmark,
    prefix: '/api',
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: {
      GET: auth.owner_or_admin(Bookmark),
      PUT: auth.owner_or_admin(Bookmark),
      DELETE: auth.owner_or_admin(Bookmark),
    },
  }).register_routes(koa);

  // The app's own routes can use the same authentication dependency.
  const api = new Router({ prefix: '/api' });
  api.get('/me', auth.get_auth_dependency(), (ctx) => {
    ctx.body = ctx.state.user?.record; // set by the dependency
  });
  koa.use(api.routes());
  return adapter;
}
