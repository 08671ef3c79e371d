/** The notes API of getting-started, built by a function that takes what tests change. */
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application, AuthRouter, CrudRouter } from '../../../lib/index.js';
import { Note, User } from '../getting-started/entities.js';

/** What differs between production and a test run. */
export interface NotesAppOptions {
  /** The database: `sqlite::memory:` gives each test an empty one of its own. */
  readonly url: string;
  /** The JWT secret (at least 32 bytes); default `JWT_SECRET`. */
  readonly secret?: string;
  /** bcrypt's cost: the default 12 in production, 4 (the lowest) in tests. */
  readonly bcryptCost?: number;
}

/** Connects, creates missing tables, and registers the auth and note routes. */
export async function createApp(options: NotesAppOptions): Promise<Application> {
  const { url, secret, bcryptCost } = options;
  const adapter = await MikroOrmAdapter.connect({ url, entities: [User, Note], schema: 'update' });
  const app = new Application({ title: 'Notes', adapter });
  const auth = new AuthRouter({
    user_model: User,
    ...(secret === undefined ? {} : { secret }),
    ...(bcryptCost === undefined ? {} : { bcrypt_cost: bcryptCost }),
  });
  auth.register_routes(app);
  new CrudRouter({
    model: Note,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: { PUT: auth.owner_or_admin(Note), DELETE: auth.owner_or_admin(Note) },
  }).register_routes(app);
  return app;
}
