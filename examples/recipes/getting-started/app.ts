/** The getting-started application: one function that builds the whole API for a database URL. */
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application, AuthRouter, add_swagger_ui, CrudRouter } from '../../../lib/index.js';
import { Note, User } from './entities.js';

/** Connects to `url`, creates missing tables, and registers the auth and note routes. */
export async function createNotesApp(url: string): Promise<Application> {
  const adapter = await MikroOrmAdapter.connect({ url, entities: [User, Note], schema: 'update' });
  const app = new Application({ title: 'Notes', adapter });
  add_swagger_ui(app);

  const auth = new AuthRouter({ user_model: User }); // signs tokens with JWT_SECRET
  auth.register_routes(app); // POST /register, /login, /change-password, /refresh, /logout, /logout-all
  new CrudRouter({
    model: Note,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: { PUT: auth.owner_or_admin(Note), DELETE: auth.owner_or_admin(Note) },
  }).register_routes(app);
  return app;
}
