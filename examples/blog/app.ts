/**
 * Builds the example blog API: users, posts with their category, tags and comments, categories and
 * labels, secured by the auth plugin. Every router lets requests include the relations whose
 * target is served here too (`GET /posts?include=category,tags,comments.author`).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import { Application, AuthRouter, add_swagger_ui, CrudRouter, type Logger } from '../../lib/index.js';
import type { BlogConfig } from './config.js';
import { blogEntities, Category, Comment, Post, Tag, User } from './entities.js';

/** The running pieces of the example. */
export interface BlogApp {
  readonly app: Application;
  readonly adapter: MikroOrmAdapter;
  readonly auth: AuthRouter;
}

/** Connects to the database, creates or updates the schema, and registers every route. */
export async function createBlogApp(config: BlogConfig, logger?: Logger): Promise<BlogApp> {
  if (config.databaseUrl.startsWith('sqlite:') && !config.databaseUrl.startsWith('sqlite::memory:')) {
    mkdirSync(dirname(config.databaseUrl.slice('sqlite:'.length)), { recursive: true });
  }
  const adapter = await MikroOrmAdapter.connect({
    url: config.databaseUrl,
    entities: blogEntities,
    schema: 'update',
  });
  const app = new Application({ title: 'Blog', adapter, ...(logger === undefined ? {} : { logger }) });
  add_swagger_ui(app);

  const auth = new AuthRouter({
    user_model: User,
    ...(config.jwtSecret === undefined ? {} : { secret: config.jwtSecret }),
    // Password reset and email verification; without SMTP_URL the links are logged to the console.
    account: {},
  });
  registerBlogRoutes(app, auth);

  if (config.admin !== undefined) {
    await auth.ensure_admin({ db: adapter.orm.em.fork(), ...config.admin });
  }
  return { app, adapter, auth };
}

/** The example's routes: auth, admin, users, posts, comments, categories and labels with their policies. */
export function registerBlogRoutes(app: Application, auth: AuthRouter): void {
  auth.register_routes(app);
  auth.register_admin_routes(app);
  const secured = { secure: true, auth_dependency: auth.get_auth_dependency() } as const;

  new CrudRouter({
    model: User,
    ...secured,
    policy: { PUT: auth.owner_or_admin(User), DELETE: auth.admin_only(), POST: auth.admin_only() },
  }).register_routes(app);
  new CrudRouter({
    model: Post,
    ...secured,
    policy: { PUT: auth.owner_or_admin(Post), DELETE: auth.owner_or_admin(Post) },
  }).register_routes(app);
  // Any signed-in user comments (the author comes from the token); only its author or an admin
  // edits or deletes a comment. Reads are not narrowed, so `GET /posts?include=comments` may embed them.
  new CrudRouter({
    model: Comment,
    ...secured,
    policy: { PUT: auth.owner_or_admin(Comment), DELETE: auth.owner_or_admin(Comment) },
  }).register_routes(app);
  new CrudRouter({ model: Category }).register_routes(app);
  new CrudRouter({
    model: Tag,
    policy: { POST: auth.admin_only(), PUT: auth.admin_only(), DELETE: auth.admin_only() },
  }).register_routes(app);
}
