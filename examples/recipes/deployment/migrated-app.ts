/** The notes API on tables that migrations made: nothing here creates or alters a table. */
import type { MikroORM } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application, AuthRouter, CrudRouter, type ModelClass } from '../../../lib/index.js';
import { User } from '../getting-started/entities.js';

/** Registers /register, /login and the CRUD routes of `note` on an initialised ORM. */
export function createMigratedApp(orm: MikroORM, note: ModelClass, secret: string): Application {
  const app = new Application({ title: 'Notes', adapter: new MikroOrmAdapter(orm) });
  const auth = new AuthRouter({ user_model: User, secret });
  auth.register_routes(app);
  new CrudRouter({
    model: note,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: { PUT: auth.owner_or_admin(note), DELETE: auth.owner_or_admin(note) },
  }).register_routes(app);
  return app;
}
