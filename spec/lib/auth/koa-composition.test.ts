/**
 * The plugin composed into a plain Koa app (no Application): the routes as middleware, the
 * dependency on a route of your own, the adapter given to the router, and a failed hash upgrade
 * that neither breaks the login nor reaches the log with the hash.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { BcryptHasher } from '../../../lib/auth/hashers.js';
import type { AppContext, OrmAdapter } from '../../../lib/types.js';
import { requireTarget } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { authEntities, User } from './support/entities.js';
import { call, memoryLogger, SECRET } from './support/harness.js';

describe('AuthRouter on a plain Koa app', await requireTarget('sqlite-memory'), () => {
  let adapter: MikroOrmAdapter;
  let server: TestServer;
  let failUpdates = false;
  const logger = memoryLogger();

  before(async () => {
    adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: authEntities,
      schema: 'create',
    });
    // The adapter as the router sees it; `update` can be made to fail like a lost connection.
    const flaky: OrmAdapter = Object.assign(Object.create(null) as OrmAdapter, {
      name: adapter.name,
      describe: adapter.describe.bind(adapter),
      openSession: adapter.openSession.bind(adapter),
      list: adapter.list.bind(adapter),
      get: adapter.get.bind(adapter),
      findBy: adapter.findBy.bind(adapter),
      create: adapter.create.bind(adapter),
      delete: adapter.delete.bind(adapter),
      ping: adapter.ping.bind(adapter),
      close: adapter.close.bind(adapter),
      update: (session: never, model: never, id: never, data: Record<string, unknown>) => {
        if (failUpdates)
          return Promise.reject(
            new Error(`update "users" set "hashed_password" = '${String(data.hashed_password)}'`),
          );
        return adapter.update(session, model, id, data);
      },
    });
    const auth = new AuthRouter({ userModel: User, secret: SECRET, bcryptCost: 4, adapter: flaky });
    auth.logger = logger;
    const koa = new Koa();
    auth.registerRoutes(koa);
    auth.registerAdminRoutes(koa);
    const dependency = auth.getAuthDependency();
    koa.use(async (ctx, next) => {
      if (ctx.path !== '/me') return next();
      await dependency(ctx as unknown as AppContext, async () => {
        ctx.body = (ctx as unknown as AppContext).state.user;
      });
    });
    server = await serve(koa.callback());
  });
  after(async () => {
    await server?.close();
    await adapter?.close();
  });

  it('serves /register and /login, and the dependency fills ctx.state.user', async () => {
    const registered = await call(server, 'POST', '/register', {
      json: { username: 'koa', email: 'koa@example.com', password: 'koa-password' },
    });
    assert.equal(registered.status, 201);
    const login = await call(server, 'POST', '/login', {
      json: { username: 'koa', password: 'koa-password' },
    });
    assert.equal(login.status, 200);
    const me = await call(server, 'GET', '/me', { token: String(login.body.access_token) });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body, { id: registered.body.id, isAdmin: false, record: registered.body });
  });

  it('answers 401 with WWW-Authenticate through Koa’s own error handler', async () => {
    const response = await server.request('/me');
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await server.request('/admin/1/make-admin', { method: 'POST' })).status, 401);
  });

  it('passes other paths on', async () => {
    assert.equal((await server.request('/elsewhere')).status, 404);
  });

  it('still logs in when upgrading the hash fails, and logs no hash', async () => {
    const registered = await call(server, 'POST', '/register', {
      json: { username: 'koa2', email: 'koa2@example.com', password: 'koa-password' },
    });
    assert.equal(registered.status, 201);
    // The router's cost is 4: a stored cost-5 hash is "outdated" and the login tries to replace it.
    const session = adapter.openSession();
    const hashed_password = await new BcryptHasher({ cost: 5 }).hash('koa-password');
    await adapter.update(session, User, registered.body.id as number, { hashed_password });
    failUpdates = true;
    try {
      const login = await call(server, 'POST', '/login', {
        json: { username: 'koa2', password: 'koa-password' },
      });
      assert.equal(login.status, 200);
    } finally {
      failUpdates = false;
    }
    const warning = logger.lines.find((line) => line.includes('upgrading the password hash failed'));
    assert.ok(warning !== undefined, logger.lines.join('\n'));
    assert.equal(warning.includes('$2b$'), false);
  });
});

describe('AuthRouter with its own adapter', await requireTarget('sqlite-memory'), () => {
  it('checks the user model when it is created', async () => {
    const adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: authEntities,
      schema: 'create',
    });
    try {
      assert.throws(
        () => new AuthRouter({ user_model: User, secret: SECRET, adapter, username_field: 'age' }),
        /login field `age` must be a string field/,
      );
      assert.throws(
        () =>
          new AuthRouter({
            user_model: User,
            secret: SECRET,
            adapter,
            username_field: 'email',
            strict: 'no' as unknown as boolean,
          }),
        /strict/,
      );
      const emailLogin = new AuthRouter({
        user_model: User,
        secret: SECRET,
        bcrypt_cost: 4,
        adapter,
        username_field: 'email',
      });
      const koa = new Koa();
      emailLogin.register_routes(koa);
      const server = await serve(koa.callback());
      try {
        const body = { username: 'byemail', email: 'by@example.com', password: 'email-password' };
        assert.equal((await call(server, 'POST', '/register', { json: body })).status, 201);
        const login = await call(server, 'POST', '/login', {
          json: { username: 'by@example.com', password: 'email-password' },
        });
        assert.equal(login.status, 200, 'the login name is looked up in `email`');
      } finally {
        await server.close();
      }
    } finally {
      await adapter.close();
    }
  });
});
