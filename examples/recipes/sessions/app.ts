/**
 * The application of the sessions recipe: `/login` answers a refresh token, kept in the
 * application's database (`AdapterRefreshStore`) or in Redis when `REDIS_URL` is set.
 */
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { AdapterRefreshStore, RedisRefreshStore, type RefreshTokenStore } from '../../../lib/auth/index.js';
import { Application, AuthRouter } from '../../../lib/index.js';
import { RefreshToken, User } from './entities.js';

/** Builds the application on `url`; the caller closes it. */
export async function createSessionsApp(url: string, redisUrl = process.env.REDIS_URL) {
  const adapter = await MikroOrmAdapter.connect({ url, entities: [User, RefreshToken], schema: 'update' });
  const refresh_store: RefreshTokenStore = redisUrl
    ? new RedisRefreshStore({ url: redisUrl })
    : new AdapterRefreshStore({ model: RefreshToken });
  const app = new Application({ title: 'Sessions', adapter });
  const auth = new AuthRouter({
    user_model: User,
    refresh_store,
    token_lifetime: 900, // access tokens: 15 minutes
    refresh_token_lifetime: 14 * 24 * 3600, // a session survives two weeks without use
  });
  auth.register_routes(app); // /register, /login, /refresh, /logout, /logout-all, …
  return { app, auth, refresh_store };
}
