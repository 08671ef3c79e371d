/**
 * Contender "feathers": the example application on Feathers 5 — @feathersjs/koa, a KnexService per table,
 * @feathersjs/authentication with its local and JWT strategies, schema resolvers for the response shape.
 */
import { AuthenticationService, JWTStrategy } from '@feathersjs/authentication';
import { LocalStrategy } from '@feathersjs/authentication-local';
import { feathers, type HookContext } from '@feathersjs/feathers';
import { KnexService } from '@feathersjs/knex';
import { bodyParser, koa, rest } from '@feathersjs/koa';
import { resolve, resolveExternal } from '@feathersjs/schema';
import knex, { type Knex } from 'knex';
import { problemErrorHandler } from './feathers/errors.js';
import { registerPosts } from './feathers/posts.js';
import { JWT_AUDIENCE, JWT_ISSUER, POOL_MAX, readEnv, sqliteFile, TOKEN_TTL_SECONDS } from './shared/env.js';
import { startTelemetry } from './shared/telemetry.js';

const telemetry = startTelemetry();
const env = readEnv();

function connect(url: string): Knex {
  const file = sqliteFile(url);
  if (file === undefined) return knex({ client: 'pg', connection: url, pool: { min: 0, max: POOL_MAX } });
  return knex({
    client: 'better-sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    // knex leaves foreign keys off on SQLite; turn them on as MikroORM does.
    pool: {
      afterCreate: (
        conn: { pragma: (sql: string) => void },
        done: (error: Error | null, conn: unknown) => void,
      ) => {
        conn.pragma('foreign_keys = on');
        done(null, conn);
      },
    },
  });
}

const db = connect(env.databaseUrl);
const app = koa(feathers());
app.set('authentication', {
  secret: env.jwtSecret,
  entity: 'user',
  service: 'users',
  authStrategies: ['jwt', 'local'],
  jwtOptions: {
    header: { typ: 'access' },
    audience: JWT_AUDIENCE,
    issuer: JWT_ISSUER,
    algorithm: 'HS256',
    expiresIn: `${TOKEN_TTL_SECONDS}s`,
  },
  local: { usernameField: 'username', passwordField: 'password', entityPasswordField: 'hashed_password' },
});

app.use(problemErrorHandler());
app.use(bodyParser());
app.configure(rest());

// Users are reachable only internally (authentication); no REST method is exposed.
app.use('users', new KnexService({ Model: db, name: 'users' }), { methods: [] });
app.service('users').hooks({
  around: {
    all: [
      resolveExternal(
        resolve<Record<string, unknown>, HookContext>({
          properties: { hashed_password: async () => undefined },
        }),
      ),
    ],
  },
});

const authentication = new AuthenticationService(app);
authentication.register('jwt', new JWTStrategy());
authentication.register('local', new LocalStrategy());
app.use('authentication', authentication, { methods: [] });

// POST /login {username, password} -> the OAuth2-style token answer every contender gives.
app.use(
  'login',
  {
    async create(data: { username?: unknown; password?: unknown }, params?: object) {
      const result = await app
        .service('authentication')
        .create({ strategy: 'local', username: data.username, password: data.password }, { ...params });
      return {
        access_token: result.accessToken as string,
        token_type: 'bearer',
        expires_in: TOKEN_TTL_SECONDS,
      };
    },
  },
  { methods: ['create'] },
);
app.service('login').hooks({
  after: {
    create: [
      async (context: HookContext) => {
        context.http = { ...context.http, status: 200 };
      },
    ],
  },
});

registerPosts(app as never, db, env.profile === 'secure');

await app.listen(env.port, '127.0.0.1');
telemetry.ready();
