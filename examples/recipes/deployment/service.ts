/** The service: the notes API of the getting-started guide, wired for production. */
import { MikroORM } from '@mikro-orm/core';
import { boundedWaits, MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { type AuthRouterOptions, RedisRefreshStore, RedisThrottleStore } from '../../../lib/auth/index.js';
import { Application, AuthRouter, CrudRouter, type Logger } from '../../../lib/index.js';
import { Note, User } from '../getting-started/entities.js';
import type { ServiceConfig } from './config.js';
import { ormConfig } from './orm-config.js';

/** A built service; `close()` drains requests, then closes the database pool and Redis. */
export interface Service {
  readonly app: Application;
  close(): Promise<void>;
}

function keyOptions(config: ServiceConfig): Partial<AuthRouterOptions> {
  const { keys } = config;
  if (keys.kind === 'secret') return { secret: keys.secret, previous_secrets: keys.previousSecrets };
  if (keys.kind === 'key-pair')
    return { private_key: keys.privateKey, previous_public_keys: keys.previousPublicKeys };
  return {};
}

/** Connects to PostgreSQL (and Redis) and registers the routes; nothing listens yet. */
export async function createService(config: ServiceConfig, logger?: Logger): Promise<Service> {
  // connect()'s time limits (3 s for a connection, 4 s a statement): a database that stops
  // answering gives 503s, not hung requests. Not in ormConfig(), which the migrations CLI shares.
  const orm = await MikroORM.init(boundedWaits(ormConfig(config.databaseUrl)));
  if (config.schema === 'update') await orm.schema.update({ safe: true }); // adds, never drops
  const adapter = new MikroOrmAdapter(orm);
  const app = new Application({
    title: 'Notes',
    adapter,
    proxy: config.trustProxy,
    ...(logger === undefined ? {} : { logger }),
  });

  // Several instances share the login throttle's counters and the refresh tokens through Redis.
  const redis =
    config.redisUrl === undefined
      ? undefined
      : {
          throttle: new RedisThrottleStore({ url: config.redisUrl, prefix: config.redisKeyPrefix }),
          refresh: new RedisRefreshStore({ url: config.redisUrl }), // keys under kma:refresh:
        };
  const auth = new AuthRouter({
    user_model: User,
    ...keyOptions(config),
    ...(redis === undefined ? {} : { throttle_store: redis.throttle, refresh_store: redis.refresh }),
  });
  auth.register_routes(app);
  new CrudRouter({
    model: Note,
    secure: true,
    auth_dependency: auth.get_auth_dependency(),
    policy: { PUT: auth.owner_or_admin(Note), DELETE: auth.owner_or_admin(Note) },
  }).register_routes(app);

  return {
    app,
    async close() {
      await app.close();
      await redis?.throttle.close();
      await redis?.refresh.close();
    },
  };
}
