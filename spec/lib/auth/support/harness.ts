/**
 * The auth suite's application: the reference set-up of the contract (users, posts owned by
 * users, admin-only tags on an unsecured router) on a fresh database of one target, served on a
 * random loopback port.
 */
import { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import { Application } from '../../../../lib/application.js';
import { AuthRouter } from '../../../../lib/auth/auth-router.js';
import type { AuthRouterOptions } from '../../../../lib/auth/options.js';
import { CrudRouter } from '../../../../lib/crud/crud-router.js';
import type { Logger } from '../../../../lib/http/problem-middleware.js';
import { createTestDatabase, type DatabaseTarget, type TestDatabase } from '../../../support/databases.js';
import { serve, type TestServer } from '../../../support/http.js';
import { authEntities, Post, Tag, User } from './entities.js';

/** The HS256 secret of the suite. */
export const SECRET = 'auth-suite-secret-that-is-long-enough-0123456789';

/** A logger that keeps what it is told, for assertions. */
export function memoryLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (message) => void lines.push(`info ${message}`),
    warn: (message) => void lines.push(`warn ${message}`),
    error: (message, error) => void lines.push(`error ${message} ${String(error)}`),
  };
}

/** One running application of the suite. */
export interface AuthFixture {
  readonly database: TestDatabase;
  readonly adapter: MikroOrmAdapter;
  readonly app: Application;
  readonly auth: AuthRouter;
  readonly server: TestServer;
  /** The same routes with other options, on a server of their own (`proxy`: trust `X-Forwarded-For`). */
  variant(
    options: Partial<AuthRouterOptions>,
    app?: { readonly proxy?: boolean },
  ): Promise<{ auth: AuthRouter; server: TestServer }>;
  close(): Promise<void>;
}

/** Default options of the suite's routers: cheap hashes, a generous address limit. */
export const BASE_OPTIONS = {
  user_model: User,
  secret: SECRET,
  bcrypt_cost: 4,
  throttle: { address: { attempts: 10_000, window: 60 } },
} satisfies AuthRouterOptions;

/** Builds the reference routes on an application. */
function buildApp(
  adapter: MikroOrmAdapter,
  options: AuthRouterOptions,
  proxy = false,
): { app: Application; auth: AuthRouter } {
  const app = new Application({ title: 'Auth suite', adapter, logger: memoryLogger(), health: false, proxy });
  const auth = new AuthRouter(options);
  auth.register_routes(app);
  auth.register_admin_routes(app);
  const secured = { secure: true, auth_dependency: auth.get_auth_dependency() } as const;
  new CrudRouter({
    model: User,
    ...secured,
    policy: { POST: auth.admin_only(), PUT: auth.owner_or_admin(User), DELETE: auth.admin_only() },
  }).register_routes(app);
  new CrudRouter({
    model: Post,
    ...secured,
    policy: { PUT: auth.owner_or_admin(Post), DELETE: auth.owner_or_admin(Post) },
  }).register_routes(app);
  new CrudRouter({
    model: Tag,
    policy: { POST: auth.admin_only(), PUT: auth.admin_only(), DELETE: auth.admin_only() },
  }).register_routes(app);
  return { app, auth };
}

/** Starts the reference application on a fresh database of `target`. */
export async function startAuthApp(
  target: DatabaseTarget,
  options: Partial<AuthRouterOptions> = {},
): Promise<AuthFixture> {
  const database = await createTestDatabase(target);
  const adapter = await MikroOrmAdapter.connect({
    url: database.url,
    entities: authEntities,
    schema: 'create',
  });
  const { app, auth } = buildApp(adapter, { ...BASE_OPTIONS, ...options });
  const server = await serve(app.callback());
  const extra: TestServer[] = [];
  return {
    database,
    adapter,
    app,
    auth,
    server,
    async variant(more, settings) {
      const built = buildApp(adapter, { ...BASE_OPTIONS, ...more }, settings?.proxy === true);
      const variantServer = await serve(built.app.callback());
      extra.push(variantServer);
      return { auth: built.auth, server: variantServer };
    },
    async close() {
      await Promise.all([server.close(), ...extra.map((s) => s.close())]);
      await adapter.close();
      await database.drop();
    },
  };
}

/** A JSON body, parsed. */
export type Json = Record<string, unknown>;

/** Sends a request and reads the JSON body (if any). */
export async function call(
  server: TestServer,
  method: string,
  path: string,
  options: { json?: unknown; token?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Headers; body: Json }> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const response = await server.request(path, {
    method,
    headers,
    ...(options.json === undefined ? {} : { json: options.json }),
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? {} : (JSON.parse(text) as Json),
  };
}

let counter = 0;

/** Registers a fresh user; returns the response body. Names are unique within the process. */
export async function registerUser(
  server: TestServer,
  fields: Json = {},
): Promise<Json & { id: number; username: string }> {
  counter += 1;
  const username = `user${counter}_${process.pid}`;
  const response = await call(server, 'POST', '/register', {
    json: { username, email: `${username}@example.com`, password: 'password-1', ...fields },
  });
  if (response.status !== 201)
    throw new Error(`register failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as Json & { id: number; username: string };
}

/** Logs in and returns the access token. */
export async function loginToken(
  server: TestServer,
  username: string,
  password = 'password-1',
): Promise<string> {
  const response = await call(server, 'POST', '/login', { json: { username, password } });
  if (response.status !== 200)
    throw new Error(`login failed: ${response.status} ${JSON.stringify(response.body)}`);
  return String(response.body.access_token);
}

/** A registered user with a token. */
export async function userWithToken(
  server: TestServer,
  fields: Json = {},
): Promise<{ id: number; username: string; token: string }> {
  const user = await registerUser(server, fields);
  return { id: user.id, username: user.username, token: await loginToken(server, user.username) };
}

/** An administrator (through `ensure_admin`) with a token. */
export async function adminWithToken(
  fixture: AuthFixture,
): Promise<{ id: number; username: string; token: string }> {
  counter += 1;
  const username = `admin${counter}_${process.pid}`;
  const result = await fixture.auth.ensure_admin({
    username,
    password: 'admin-password',
    email: `${username}@example.com`,
  });
  return {
    id: result.user.id as number,
    username,
    token: await loginToken(fixture.server, username, 'admin-password'),
  };
}
