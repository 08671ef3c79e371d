/**
 * Policies and mass assignment through the generated routes: ownership set from the token,
 * owner_or_admin, admin-only writes on an unsecured router, and password hashing through a
 * CrudRouter on the user model, on every database target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { Post } from './support/entities.js';
import {
  type AuthFixture,
  adminWithToken,
  call,
  loginToken,
  startAuthApp,
  userWithToken,
} from './support/harness.js';

for (const target of databaseTargets()) {
  describe(`auth policies on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    let alice: { id: number; username: string; token: string };
    let bob: { id: number; username: string; token: string };
    let admin: { id: number; username: string; token: string };
    before(async () => {
      fx = await startAuthApp(target);
      alice = await userWithToken(fx.server);
      bob = await userWithToken(fx.server);
      admin = await adminWithToken(fx);
    });
    after(() => fx?.close());

    it('sets the owner of a new record from the token, whatever the body says', async () => {
      const response = await call(fx.server, 'POST', '/posts', {
        token: alice.token,
        json: { title: 'mine', owner: bob.id },
      });
      assert.equal(response.status, 201);
      assert.equal(response.body.owner, alice.id);
    });

    it('lets the owner and admins change a record, refuses others with 403, and never moves the owner', async () => {
      const post = (await call(fx.server, 'POST', '/posts', { token: alice.token, json: { title: 'draft' } }))
        .body;
      const byBob = await call(fx.server, 'PUT', `/posts/${post.id}`, {
        token: bob.token,
        json: { title: 'bob was here' },
      });
      assert.equal(byBob.status, 403);
      assert.equal(byBob.body.code, 'forbidden');
      const byAlice = await call(fx.server, 'PUT', `/posts/${post.id}`, {
        token: alice.token,
        json: { title: 'final', owner: bob.id },
      });
      assert.equal(byAlice.status, 200);
      assert.deepEqual([byAlice.body.title, byAlice.body.owner], ['final', alice.id]);
      const byAdmin = await call(fx.server, 'PATCH', `/posts/${post.id}`, {
        token: admin.token,
        json: { title: 'edited' },
      });
      assert.equal(byAdmin.status, 200);
      assert.equal(byAdmin.body.owner, alice.id);
      assert.equal((await call(fx.server, 'DELETE', `/posts/${post.id}`, { token: bob.token })).status, 403);
      assert.equal(
        (await call(fx.server, 'DELETE', `/posts/${post.id}`, { token: alice.token })).status,
        204,
      );
    });

    it('answers 401 before 403 and before 404 on a secured router', async () => {
      assert.equal((await call(fx.server, 'PUT', '/posts/999999', { json: { title: 'x' } })).status, 401);
      assert.equal(
        (await call(fx.server, 'PUT', '/posts/999999', { token: bob.token, json: { title: 'x' } })).status,
        404,
      );
    });

    it('lets users change their own record only; admin flags and the hash stay out of reach', async () => {
      const other = await call(fx.server, 'PUT', `/users/${bob.id}`, {
        token: alice.token,
        json: { age: 30 },
      });
      assert.equal(other.status, 403);
      const own = await call(fx.server, 'PUT', `/users/${alice.id}`, {
        token: alice.token,
        json: {
          age: 31,
          is_admin: true,
          is_superuser: true,
          is_staff: true,
          is_master: true,
          hashed_password: 'x',
          id: 12345,
        },
      });
      assert.equal(own.status, 200);
      assert.deepEqual([own.body.id, own.body.age, own.body.is_admin], [alice.id, 31, false]);
      assert.equal('hashed_password' in own.body, false);
      assert.ok((await loginToken(fx.server, alice.username)).length > 0, 'the password still works');
    });

    it('lets an admin create a user through the CrudRouter, with no password and no admin flag', async () => {
      const created = await call(fx.server, 'POST', '/users', {
        token: admin.token,
        json: { username: 'made', email: 'made@example.com', password: 'made-password', is_admin: true },
      });
      assert.equal(created.status, 201);
      assert.equal(created.body.is_admin, false);
      // A password never travels through the user routes: no password logs this user in.
      const login = await call(fx.server, 'POST', '/login', {
        json: { username: 'made', password: 'made-password' },
      });
      assert.equal(login.status, 401);
      const byUser = await call(fx.server, 'POST', '/users', {
        token: alice.token,
        json: { username: 'nope', email: 'nope@example.com', password: 'nope-password' },
      });
      assert.equal(byUser.status, 403);
    });

    it('on an unsecured router whose policies need the owner, a create takes the owner from the token and needs one', async () => {
      // Reads are public, PUT and DELETE are the owner's: the create must know its caller to set the
      // (required, not client-writable) owner. Once with the router's auth_dependency, once with
      // only the policies' own authentication (security review 9's Memo router).
      const policy = { PUT: fx.auth.owner_or_admin(Post), DELETE: fx.auth.owner_or_admin(Post) };
      new CrudRouter({
        model: Post,
        prefix: '/open',
        auth_dependency: fx.auth.get_auth_dependency(),
        policy,
      }).register_routes(fx.app);
      new CrudRouter({ model: Post, prefix: '/bare', policy }).register_routes(fx.app);
      for (const prefix of ['/open', '/bare']) {
        const created = await call(fx.server, 'POST', `${prefix}/posts`, {
          token: alice.token,
          json: { title: 'open', owner: bob.id },
        });
        assert.equal(created.status, 201, `${prefix}: ${JSON.stringify(created.body)}`);
        assert.equal(created.body.owner, alice.id);
        const anonymous = await call(fx.server, 'POST', `${prefix}/posts`, { json: { title: 'anon' } });
        assert.equal(anonymous.status, 401, `${prefix}: ${JSON.stringify(anonymous.body)}`);
        assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
        const invalid = await call(fx.server, 'POST', `${prefix}/posts`, {
          token: 'garbage',
          json: { title: 'bad' },
        });
        assert.equal(invalid.status, 401);
        assert.equal((await call(fx.server, 'GET', `${prefix}/posts/${created.body.id}`)).status, 200);
        const path = `${prefix}/posts/${created.body.id}`;
        const foreign = await call(fx.server, 'PUT', path, { token: bob.token, json: { title: 'bob' } });
        assert.equal(foreign.status, 403);
        const own = await call(fx.server, 'PUT', path, { token: alice.token, json: { title: 'edited' } });
        assert.equal(own.status, 200);
        assert.equal(own.body.owner, alice.id);
      }
      const document = (await call(fx.server, 'GET', '/openapi.json')).body as {
        paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
      };
      for (const prefix of ['/open', '/bare']) {
        const operations = document.paths[`${prefix}/posts`];
        const optional = (security: unknown[] | undefined): boolean =>
          security === undefined || security.some((entry) => Object.keys(entry as object).length === 0);
        assert.ok(operations?.post?.security !== undefined, `${prefix}: POST documents its token`);
        assert.equal(optional(operations?.post?.security), false, `${prefix}: and requires it`);
        assert.ok(operations?.post?.responses['401'] !== undefined);
        assert.ok(optional(operations?.get?.security), `${prefix}: reads stay public`);
      }
    });

    it('gives an unsecured router admin-only writes: anyone reads, 401 anonymous, 403 users, admins write', async () => {
      assert.equal((await call(fx.server, 'GET', '/tags')).status, 200);
      const anonymous = await call(fx.server, 'POST', '/tags', { json: { name: 'anon' } });
      assert.equal(anonymous.status, 401);
      assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
      assert.equal(
        (await call(fx.server, 'POST', '/tags', { token: alice.token, json: { name: 'user' } })).status,
        403,
      );
      const created = await call(fx.server, 'POST', '/tags', { token: admin.token, json: { name: 'admin' } });
      assert.equal(created.status, 201);
      const invalid = await call(fx.server, 'POST', '/tags', { token: 'garbage', json: { name: 'bad' } });
      assert.equal(invalid.status, 401);
      assert.equal(
        (await call(fx.server, 'DELETE', `/tags/${created.body.id}`, { token: admin.token })).status,
        204,
      );
    });
  });
}
