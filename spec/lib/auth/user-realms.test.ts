/**
 * Two user models in one process, each with its `AuthRouter` (security review, session 17): with
 * the same key, issuer and audience (the defaults), an access token of one router named a key of
 * the other's table, and the admin routes trusted a `ctx.state.user` another realm's middleware
 * had set. Tokens now carry `user_table`, which a router of other users refuses; the plugin's own
 * routes authenticate by their router unless its dependency already did. A token without the
 * claim (another issuer's) is taken as before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Router } from '@koa/router';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import jwt from 'jsonwebtoken';
import Koa from 'koa';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { MemoryRefreshStore } from '../../../lib/auth/index.js';
import {
  AuthMixin,
  AuthRouter,
  allowedMethods,
  CrudRouter,
  FrameworkModel,
  problemDetails,
} from '../../../lib/index.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';

/** Table `staff`. */
@Entity()
class Staff extends AuthMixin(FrameworkModel) {
  @PrimaryKey()
  id!: number;

  @Property({ length: 50, unique: true })
  username!: string;
}

/** Table `customers`. */
@Entity()
class Customer extends AuthMixin(FrameworkModel) {
  @PrimaryKey()
  id!: number;

  @Property({ length: 50, unique: true })
  username!: string;
}

const SECRET = 'one secret for both routers, as JWT_SECRET gives them';

describe('two user models, two AuthRouters, one key', await requireTarget('sqlite-memory'), () => {
  let database: TestDatabase;
  let adapter: MikroOrmAdapter;
  let server: TestServer;
  let staff: AuthRouter;
  let customers: AuthRouter;

  before(async () => {
    database = await createTestDatabase('sqlite-memory');
    adapter = await MikroOrmAdapter.connect({ url: database.url, entities: [Staff, Customer] });
    await adapter.orm.schema.create();
    // One refresh store for both, as one Redis prefix or one refresh-token model would be.
    const refresh_store = new MemoryRefreshStore();
    staff = new AuthRouter({ user_model: Staff, adapter, secret: SECRET, throttle: false, refresh_store });
    customers = new AuthRouter({
      user_model: Customer,
      adapter,
      secret: SECRET,
      throttle: false,
      refresh_store,
    });
    const koa = new Koa();
    koa.use(problemDetails());
    const staffApi = new Router({ prefix: '/staff' });
    staffApi.use(staff.router.routes());
    staffApi.use(staff.adminRouter.routes());
    staffApi.get('/me', staff.get_auth_dependency(), (ctx) => {
      ctx.body = ctx.state.user?.record;
    });
    const shopApi = new Router({ prefix: '/shop' });
    shopApi.use(customers.router.routes());
    // The staff's admin routes behind the customers' dependency: it sets a customer as the user.
    const mixed = new Router({ prefix: '/mixed' });
    mixed.use(customers.get_auth_dependency());
    mixed.use(staff.adminRouter.routes());
    mixed.use(
      new CrudRouter({
        model: Staff,
        adapter,
        secure: true,
        auth_dependency: staff.get_auth_dependency(),
        policy: { GET: staff.admin_only(), PATCH: staff.admin_only() },
      }).router.routes(),
    );
    // An app's own middleware that narrows the plugin's user (admin rights only with a second
    // factor): its copy is taken as it is by the routes behind it, as a router in front decided.
    const narrowed = new Router({ prefix: '/narrowed' });
    narrowed.use(staff.get_auth_dependency());
    narrowed.use(async (ctx, next) => {
      const user = ctx.state.user;
      if (user !== undefined)
        ctx.state.user = { ...user, isAdmin: user.isAdmin && ctx.get('x-mfa') === 'ok' };
      await next();
    });
    narrowed.use(staff.adminRouter.routes());
    for (const router of [staffApi, shopApi, mixed, narrowed]) {
      koa.use(router.routes());
      koa.use(allowedMethods(router));
    }
    server = await serve(koa.callback());
    // Staff #1 and customer #1 are both administrators; staff #2 is not.
    await staff.ensure_admin({ username: 'boss', password: 'boss-password-1' });
    await customers.ensure_admin({ username: 'shop-admin', password: 'shop-password-1' });
    await staff.ensure_admin({ username: 'plain-staff', password: 'plain-password-1' });
    const em = adapter.orm.em.fork();
    (await em.findOneOrFail(Staff, 2)).is_admin = false;
    await em.flush();
  });
  after(async () => {
    await server?.close();
    await adapter?.close();
    await database?.drop();
  });

  async function token(path: string, username: string, password: string): Promise<string> {
    const login = await server.request(`${path}/login`, { method: 'POST', json: { username, password } });
    assert.equal(login.status, 200, await login.clone().text());
    return ((await login.json()) as { access_token: string }).access_token;
  }

  it('signs the user table into the token, and another table’s router refuses it', async () => {
    const shopToken = await token('/shop', 'shop-admin', 'shop-password-1');
    assert.equal((jwt.decode(shopToken) as { user_table?: string }).user_table, 'customers');
    const headers = { authorization: `Bearer ${shopToken}` };
    const me = await server.request('/staff/me', { headers });
    assert.equal(me.status, 401);
    assert.equal(((await me.json()) as { code: string }).code, 'invalid_token');
    const promote = await server.request('/staff/admin/2/make-admin', { method: 'POST', headers });
    assert.equal(promote.status, 401);
    const staffToken = await token('/staff', 'boss', 'boss-password-1');
    assert.equal(
      (await server.request('/staff/me', { headers: { authorization: `Bearer ${staffToken}` } })).status,
      200,
    );
  });

  it('the admin routes authenticate by their own router behind another realm’s dependency', async () => {
    const shopToken = await token('/shop', 'shop-admin', 'shop-password-1');
    const headers = { authorization: `Bearer ${shopToken}` };
    // The generated routes too: the staff router's dependency decides, not the customers'.
    assert.equal((await server.request('/mixed/staff', { headers })).status, 401);
    const patched = await server.request('/mixed/staff/2', {
      method: 'PATCH',
      headers,
      json: { username: 'x' },
    });
    assert.equal(patched.status, 401);
    for (const action of ['make-admin', 'revoke-sessions']) {
      const answer = await server.request(`/mixed/admin/2/${action}`, { method: 'POST', headers });
      assert.equal(answer.status, 401, `${action}: ${await answer.text()}`);
    }
    const reset = await server.request('/mixed/admin/2/password', {
      method: 'POST',
      headers,
      json: { new_password: 'taken-over-password' },
    });
    assert.equal(reset.status, 401);
    const em = adapter.orm.em.fork();
    assert.equal((await em.findOneOrFail(Staff, 2)).is_admin, false);
    // A staff administrator's own token passes there: its router's dependency authenticates it.
    const staffToken = await token('/staff', 'boss', 'boss-password-1');
    const promoted = await server.request('/mixed/admin/2/make-admin', {
      method: 'POST',
      headers: { authorization: `Bearer ${staffToken}` },
    });
    // The customers' dependency in front refuses the staff token first: that realm's rule.
    assert.equal(promoted.status, 401);
    const direct = await server.request('/staff/admin/2/make-admin', {
      method: 'POST',
      headers: { authorization: `Bearer ${staffToken}` },
    });
    assert.equal(direct.status, 200, await direct.text());
  });

  it('takes a user an app narrowed in front as it is: no second factor, no admin rights', async () => {
    const staffToken = await token('/staff', 'boss', 'boss-password-1');
    const authorization = `Bearer ${staffToken}`;
    const narrowed = await server.request('/narrowed/admin/2/make-admin', {
      method: 'POST',
      headers: { authorization },
    });
    assert.equal(narrowed.status, 403, await narrowed.text());
    const confirmed = await server.request('/narrowed/admin/2/revoke-sessions', {
      method: 'POST',
      headers: { authorization, 'x-mfa': 'ok' },
    });
    assert.equal(confirmed.status, 204, await confirmed.text());
  });

  it('a refresh token of one router is refused by the other, through one shared store', async () => {
    const login = await server.request('/shop/login', {
      method: 'POST',
      json: { username: 'shop-admin', password: 'shop-password-1' },
    });
    const { refresh_token } = (await login.json()) as { refresh_token: string };
    const crossed = await server.request('/staff/refresh', { method: 'POST', json: { refresh_token } });
    assert.equal(crossed.status, 401, await crossed.text());
    // Ending the staff user's sessions leaves the customer with the same key signed in.
    const staffLogin = await server.request('/staff/login', {
      method: 'POST',
      json: { username: 'boss', password: 'boss-password-1' },
    });
    const { access_token } = (await staffLogin.json()) as { access_token: string };
    const ended = await server.request('/staff/logout-all', {
      method: 'POST',
      headers: { authorization: `Bearer ${access_token}` },
    });
    assert.ok(ended.status < 300, await ended.text());
    const again = await server.request('/shop/login', {
      method: 'POST',
      json: { username: 'shop-admin', password: 'shop-password-1' },
    });
    const fresh = ((await again.json()) as { refresh_token: string }).refresh_token;
    // The first shop login's family was revoked by the cross attempt; a fresh one refreshes.
    const refreshed = await server.request('/shop/refresh', {
      method: 'POST',
      json: { refresh_token: fresh },
    });
    assert.equal(refreshed.status, 200, await refreshed.clone().text());
    const token = ((await refreshed.json()) as { access_token: string }).access_token;
    assert.equal((jwt.decode(token) as { sub?: string; user_table?: string }).sub, '1');
    assert.equal((jwt.decode(token) as { user_table?: string }).user_table, 'customers');
  });

  it('takes a token without the claim, as another issuer with the key signs it', async () => {
    const foreign = jwt.sign({ iat_ms: Date.now() }, SECRET, {
      algorithm: 'HS256',
      subject: '1',
      expiresIn: 60,
      issuer: 'koa-model-api',
      audience: 'koa-model-api',
    });
    const me = await server.request('/staff/me', { headers: { authorization: `Bearer ${foreign}` } });
    const text = await me.text();
    assert.equal(me.status, 200, text);
    assert.equal((JSON.parse(text) as { username: string }).username, 'boss');
  });
});
