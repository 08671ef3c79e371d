/** Adds koa-model-api to an existing Koa app: auth and CRUD routes under `/api`, beside its own. */
import { Router } from '@koa/router';
import type Koa from 'koa';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { AuthRouter, CrudRouter, problemDetails, useAdapter } from '../../../lib/index.js';
import { Bookmark, User } from './entities.js';
import { mountAt } from './mount-at.js';

/** Connects to `url` and mounts `/api/register`, `/api/login`, `/api/me` and `/api/bookmarks`. */
export async function addModelApi(koa: Koa, url: string): Promise<MikroOrmAdapter> {
  const adapter = await MikroOrmAdapter.connect({ url, entities: [User, Bookmark] });
  // The database is shared with the app's own tables: add what is missing, never drop anything.
  await adapter.orm.schema.update({ safe: true });
  useAdapter(koa, adapter); // every framework middleware of this app finds the adapter here
  koa.use(problemDetails());

  const auth = new AuthRouter({ user_model: User });
  koa.use(mountAt('/api', auth.middleware())); // POST /api/register, /api/login, … (every account route)

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
