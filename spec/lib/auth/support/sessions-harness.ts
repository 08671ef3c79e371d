/**
 * The session tests' application: the auth suite's users and posts plus the `RefreshToken` model,
 * with a refresh store of the test's choice, on a fresh database of one target.
 */
import { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import { Application } from '../../../../lib/application.js';
import { AuthRouter } from '../../../../lib/auth/auth-router.js';
import type { AuthRouterOptions } from '../../../../lib/auth/options.js';
import { CrudRouter } from '../../../../lib/crud/crud-router.js';
import { createTestDatabase, type DatabaseTarget, type TestDatabase } from '../../../support/databases.js';
import { serve, type TestServer } from '../../../support/http.js';
import { authEntities, User } from './entities.js';
import { BASE_OPTIONS, call, type Json, memoryLogger, registerUser } from './harness.js';
import { RefreshToken } from './refresh-entities.js';

/** One running application with refresh sessions. */
export interface SessionFixture {
  readonly database: TestDatabase;
  readonly adapter: MikroOrmAdapter;
  readonly auth: AuthRouter;
  readonly server: TestServer;
  close(): Promise<void>;
}

/** Starts the application; `options` may name the refresh store (it sees the adapter first). */
export async function startSessionApp(
  target: DatabaseTarget,
  options: (adapter: MikroOrmAdapter) => Partial<AuthRouterOptions> = () => ({}),
): Promise<SessionFixture> {
  const database = await createTestDatabase(target);
  const adapter = await MikroOrmAdapter.connect({
    url: database.url,
    entities: [...authEntities, RefreshToken],
    schema: 'create',
  });
  const app = new Application({ title: 'Sessions', adapter, logger: memoryLogger(), health: false });
  const auth = new AuthRouter({ ...BASE_OPTIONS, ...options(adapter) });
  auth.register_routes(app);
  auth.register_admin_routes(app);
  new CrudRouter({
    model: User,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: { PUT: auth.owner_or_admin(User), DELETE: auth.admin_only() },
  }).register_routes(app);
  const server = await serve(app.callback());
  return {
    database,
    adapter,
    auth,
    server,
    async close() {
      await server.close();
      await adapter.close();
      await database.drop();
    },
  };
}

/** A token pair as `/login` and `/refresh` answer it. */
export interface TokenPair {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly body: Json;
}

/** Registers a user and logs in; the user's id and name with the pair. */
export async function loggedInUser(
  server: TestServer,
): Promise<TokenPair & { id: number; username: string }> {
  const user = await registerUser(server);
  return { id: user.id, username: user.username, ...(await login(server, user.username)) };
}

/** Logs in (password `password-1`) and returns the pair; throws on anything but 200. */
export async function login(
  server: TestServer,
  username: string,
  password = 'password-1',
): Promise<TokenPair> {
  const response = await call(server, 'POST', '/login', { json: { username, password } });
  if (response.status !== 200) throw new Error(`login: ${response.status} ${JSON.stringify(response.body)}`);
  return pairOf(response.body);
}

/** The pair of a token response body. */
export function pairOf(body: Json): TokenPair {
  return { access_token: String(body.access_token), refresh_token: String(body.refresh_token), body };
}

/** `POST /refresh`. */
export function refresh(server: TestServer, refreshToken: string) {
  return call(server, 'POST', '/refresh', { json: { refresh_token: refreshToken } });
}

/** The status of `GET /users/{id}` with an access token (200 when the token is accepted). */
export async function accessStatus(server: TestServer, id: number, token: string): Promise<number> {
  return (await call(server, 'GET', `/users/${id}`, { token })).status;
}
