/**
 * The relations recipe's application: a public catalogue (authors, genres, topics, books), reviews
 * for signed-in users, and user accounts each user reads only for themselves. The routers decide
 * which relations requests may include, filter and sort through, and how many records of a
 * to-many relation one record embeds.
 */
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application, AuthRouter, add_swagger_ui, CrudRouter } from '../../../lib/index.js';
import { Author, Book, Genre, libraryEntities, Review, Topic, User } from './entities.js';

/** Connects to `url`, creates missing tables, and registers every route; the caller closes `app`. */
export async function createLibraryApp(url: string): Promise<{ app: Application; auth: AuthRouter }> {
  const adapter = await MikroOrmAdapter.connect({ url, entities: libraryEntities, schema: 'update' });
  const app = new Application({ title: 'Library', adapter });
  add_swagger_ui(app);
  const auth = new AuthRouter({ user_model: User });
  auth.register_routes(app);

  // Every relation whose target is served below may be included (`include` defaults to true).
  new CrudRouter({ model: Book }).register_routes(app);
  new CrudRouter({ model: Genre }).register_routes(app);
  // A popular topic has thousands of books: `GET /topics?include=books` is refused (400).
  new CrudRouter({ model: Topic, include: false }).register_routes(app);
  // An author embeds at most 10 books per record (`include=books`); the default is 100.
  new CrudRouter({ model: Author, include_limit: 10 }).register_routes(app);
  // Reviews need a signed-in user: `GET /books?include=reviews` does too.
  new CrudRouter({
    model: Review,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: { PUT: auth.owner_or_admin(Review), DELETE: auth.owner_or_admin(Review) },
  }).register_routes(app);
  // Each user reads only their own account (lists are narrowed), so only an administrator may
  // include a review's owner; a review never needs to embed `owner` to be useful.
  new CrudRouter({
    model: User,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: {
      GET: auth.owner_or_admin(User),
      POST: auth.admin_only(),
      PUT: auth.owner_or_admin(User),
      DELETE: auth.admin_only(),
    },
  }).register_routes(app);
  return { app, auth };
}
