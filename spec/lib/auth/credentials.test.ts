/**
 * Credentials through HTTP on every database target (issue 15): the generated user routes never
 * set a password, `POST /change-password` needs the current one and revokes every older token,
 * an administrator's `POST /admin/{id}/password` and `revoke_sessions` revoke too, and an email
 * change through the user routes needs the current password (except an admin changing another user).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Application } from '../../../lib/application.js';
import { UNUSABLE_PASSWORD } from '../../../lib/auth/credentials.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { serve } from '../../support/http.js';
import { User } from './support/entities.js';
import {
  type AuthFixture,
  adminWithToken,
  call,
  loginToken,
  memoryLogger,
  startAuthApp,
  userWithToken,
} from './support/harness.js';

type Actor = { id: number; username: string; token: string };

/** The stored row of a user, read through the adapter (hidden columns included). */
async function storedUser(fx: AuthFixture, id: number): Promise<Record<string, unknown>> {
  const row = await fx.adapter.get(fx.adapter.openSession(), User, id);
  assert.ok(row !== undefined, `user ${id} exists`);
  return row;
}

/** GET /users/{id} with a token: the status tells whether the token is accepted. */
async function tokenStatus(fx: AuthFixture, actor: { id: number }, token: string): Promise<number> {
  return (await call(fx.server, 'GET', `/users/${actor.id}`, { token })).status;
}

for (const target of databaseTargets()) {
  describe(`credentials on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    let admin: Actor;
    before(async () => {
      fx = await startAuthApp(target);
      admin = await adminWithToken(fx);
    });
    after(() => fx?.close());

    describe('the generated user routes', () => {
      it('drop a password in a PATCH or PUT body: the stored hash and the old password stay', async () => {
        const alice = await userWithToken(fx.server);
        const before = (await storedUser(fx, alice.id)).hashed_password;
        const patched = await call(fx.server, 'PATCH', `/users/${alice.id}`, {
          token: alice.token,
          json: { password: 'taken-over-password', age: 33 },
        });
        assert.equal(patched.status, 200, JSON.stringify(patched.body));
        assert.equal(patched.body.age, 33);
        const put = await call(fx.server, 'PUT', `/users/${alice.id}`, {
          token: alice.token,
          json: {
            username: alice.username,
            email: `${alice.username}@example.com`,
            password: 'taken-over-password',
            hashed_password: '$2b$04$abcdefghijklmnopqrstuuKyCZ1EY2yYlO4qYHZbP5R3Jf2S9nZyS',
          },
        });
        assert.equal(put.status, 200, JSON.stringify(put.body));
        assert.equal((await storedUser(fx, alice.id)).hashed_password, before);
        const wrong = await call(fx.server, 'POST', '/login', {
          json: { username: alice.username, password: 'taken-over-password' },
        });
        assert.equal(wrong.status, 401);
        assert.ok((await loginToken(fx.server, alice.username)).length > 0, 'the old password still works');
        assert.equal(await tokenStatus(fx, alice, alice.token), 200, 'no revocation happened');
      });

      it('refuse a password in the body with 422 on a strict router', async () => {
        const app = new Application({
          title: 'strict',
          adapter: fx.adapter,
          logger: memoryLogger(),
          health: false,
        });
        new CrudRouter({
          model: User,
          strict: true,
          secure: true,
          auth_dependency: fx.auth.get_auth_dependency(),
          policy: { PUT: fx.auth.owner_or_admin(User) },
        }).register_routes(app);
        const server = await serve(app.callback());
        try {
          const bob = await userWithToken(fx.server);
          const response = await server.request(`/users/${bob.id}`, {
            method: 'PATCH',
            headers: { authorization: `Bearer ${bob.token}` },
            json: { password: 'taken-over-password' },
          });
          assert.equal(response.status, 422);
          const body = (await response.json()) as { errors?: { path: string }[] };
          assert.deepEqual(
            body.errors?.map((e) => e.path),
            ['password'],
          );
        } finally {
          await server.close();
        }
      });

      it('create a user with an unusable password until an administrator sets one', async () => {
        const created = await call(fx.server, 'POST', '/users', {
          token: admin.token,
          json: {
            username: `made_${target}`,
            email: `made_${target}@example.com`,
            password: 'made-password',
          },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal('hashed_password' in created.body, false);
        const id = Number(created.body.id);
        assert.equal((await storedUser(fx, id)).hashed_password, UNUSABLE_PASSWORD);
        const refused = await call(fx.server, 'POST', '/login', {
          json: { username: `made_${target}`, password: 'made-password' },
        });
        assert.equal(refused.status, 401);
        const set = await call(fx.server, 'POST', `/admin/${id}/password`, {
          token: admin.token,
          json: { new_password: 'a-new-made-password' },
        });
        assert.equal(set.status, 200, JSON.stringify(set.body));
        assert.equal('hashed_password' in set.body, false);
        assert.ok((await loginToken(fx.server, `made_${target}`, 'a-new-made-password')).length > 0);
      });
    });

    describe('POST /change-password', () => {
      it('needs a bearer token', async () => {
        const response = await call(fx.server, 'POST', '/change-password', {
          json: { current_password: 'password-1', new_password: 'password-2' },
        });
        assert.equal(response.status, 401);
        assert.equal(response.headers.get('cache-control'), 'no-store');
      });

      it('refuses a wrong current password with 403 invalid_current_password and changes nothing', async () => {
        const carol = await userWithToken(fx.server);
        const response = await call(fx.server, 'POST', '/change-password', {
          token: carol.token,
          json: { current_password: 'not-the-password', new_password: 'brand-new-password' },
        });
        assert.equal(response.status, 403);
        assert.equal(response.body.code, 'invalid_current_password');
        assert.equal(response.headers.get('cache-control'), 'no-store');
        assert.equal(await tokenStatus(fx, carol, carol.token), 200, 'the token still works');
        assert.ok((await loginToken(fx.server, carol.username)).length > 0, 'the password is unchanged');
      });

      it('applies the password rule to the new password (8 characters, 72 bytes) and requires both fields', async () => {
        const dave = await userWithToken(fx.server);
        for (const bad of ['short7!', 'é'.repeat(37), 'a'.repeat(73), 12345678]) {
          const response = await call(fx.server, 'POST', '/change-password', {
            token: dave.token,
            json: { current_password: 'password-1', new_password: bad },
          });
          assert.equal(response.status, 422, String(bad));
          assert.deepEqual(
            (response.body.errors as { path: string }[]).map((e) => e.path),
            ['new_password'],
          );
        }
        const missing = await call(fx.server, 'POST', '/change-password', {
          token: dave.token,
          json: { new_password: 'long-enough-password' },
        });
        assert.equal(missing.status, 422);
        assert.deepEqual(missing.body.errors, [{ path: 'current_password', message: 'is required' }]);
        const notObject = await call(fx.server, 'POST', '/change-password', { token: dave.token, json: [1] });
        assert.equal(notObject.status, 422);
        assert.equal(await tokenStatus(fx, dave, dave.token), 200, 'nothing was revoked');
      });

      it('changes the password, revokes every older token at once and answers with a working token', async () => {
        const erin = await userWithToken(fx.server);
        const otherSession = await loginToken(fx.server, erin.username);
        const response = await call(fx.server, 'POST', '/change-password', {
          token: erin.token,
          json: { current_password: 'password-1', new_password: 'erin-new-password' },
        });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        assert.equal(response.body.token_type, 'bearer');
        assert.equal(response.headers.get('cache-control'), 'no-store');
        for (const old of [erin.token, otherSession]) {
          const refused = await call(fx.server, 'GET', `/users/${erin.id}`, { token: old });
          assert.equal(refused.status, 401);
          assert.equal(refused.body.code, 'invalid_token');
          assert.match(String(refused.body.detail), /revoked/);
          assert.match(String(refused.headers.get('www-authenticate')), /^Bearer/);
        }
        assert.equal(await tokenStatus(fx, erin, String(response.body.access_token)), 200);
        const oldPassword = await call(fx.server, 'POST', '/login', {
          json: { username: erin.username, password: 'password-1' },
        });
        assert.equal(oldPassword.status, 401);
        const fresh = await loginToken(fx.server, erin.username, 'erin-new-password');
        assert.equal(await tokenStatus(fx, erin, fresh), 200, 'a token issued after the change works');
        assert.match(String((await storedUser(fx, erin.id)).tokens_valid_after), /^\d{4}-\d\d-\d\dT/);
      });
    });

    describe('revocation by an administrator', () => {
      it('POST /admin/{id}/password: admins only, not on themselves, 404 for nobody, revokes the target', async () => {
        const frank = await userWithToken(fx.server);
        const grace = await userWithToken(fx.server);
        const body = { new_password: 'set-by-the-admin' };
        const byUser = await call(fx.server, 'POST', `/admin/${grace.id}/password`, {
          token: frank.token,
          json: body,
        });
        assert.equal(byUser.status, 403);
        const anonymous = await call(fx.server, 'POST', `/admin/${grace.id}/password`, { json: body });
        assert.equal(anonymous.status, 401);
        const own = await call(fx.server, 'POST', `/admin/${admin.id}/password`, {
          token: admin.token,
          json: body,
        });
        assert.equal(own.status, 403);
        const nobody = await call(fx.server, 'POST', '/admin/999999999/password', {
          token: admin.token,
          json: body,
        });
        assert.equal(nobody.status, 404);
        const weak = await call(fx.server, 'POST', `/admin/${grace.id}/password`, {
          token: admin.token,
          json: { new_password: 'short' },
        });
        assert.equal(weak.status, 422);
        assert.equal(await tokenStatus(fx, grace, grace.token), 200);
        const done = await call(fx.server, 'POST', `/admin/${grace.id}/password`, {
          token: admin.token,
          json: body,
        });
        assert.equal(done.status, 200);
        assert.equal(await tokenStatus(fx, grace, grace.token), 401);
        assert.equal(await tokenStatus(fx, frank, frank.token), 200, 'other users keep their tokens');
        assert.equal(await tokenStatus(fx, admin, admin.token), 200);
        assert.ok((await loginToken(fx.server, grace.username, 'set-by-the-admin')).length > 0);
      });

      it("POST /admin/{id}/revoke-sessions: admins only, 404 for nobody, ends the target's sessions and keeps the password", async () => {
        const ivan = await userWithToken(fx.server);
        const judy = await userWithToken(fx.server);
        const byUser = await call(fx.server, 'POST', `/admin/${judy.id}/revoke-sessions`, {
          token: ivan.token,
        });
        assert.equal(byUser.status, 403);
        const anonymous = await call(fx.server, 'POST', `/admin/${judy.id}/revoke-sessions`);
        assert.equal(anonymous.status, 401);
        const nobody = await call(fx.server, 'POST', '/admin/999999999/revoke-sessions', {
          token: admin.token,
        });
        assert.equal(nobody.status, 404);
        assert.equal(await tokenStatus(fx, judy, judy.token), 200);
        const done = await call(fx.server, 'POST', `/admin/${judy.id}/revoke-sessions`, {
          token: admin.token,
        });
        assert.equal(done.status, 204);
        assert.equal(await tokenStatus(fx, judy, judy.token), 401);
        assert.equal(await tokenStatus(fx, ivan, ivan.token), 200, 'other users keep their tokens');
        assert.equal(await tokenStatus(fx, admin, admin.token), 200, "the admin's own token stays valid");
        const again = await loginToken(fx.server, judy.username);
        assert.equal(await tokenStatus(fx, judy, again), 200, 'the password is unchanged: a new login works');
      });

      it('revoke_sessions and set_password end the sessions from code', async () => {
        const heidi = await userWithToken(fx.server);
        assert.equal(await fx.auth.revoke_sessions(heidi.id), true);
        assert.equal(await tokenStatus(fx, heidi, heidi.token), 401);
        const again = await loginToken(fx.server, heidi.username);
        assert.equal(await tokenStatus(fx, heidi, again), 200, 'a later login works');
        assert.equal(await fx.auth.setPassword(heidi.id, 'set-from-code'), true);
        assert.equal(await tokenStatus(fx, heidi, again), 401);
        assert.ok((await loginToken(fx.server, heidi.username, 'set-from-code')).length > 0);
        assert.equal(await fx.auth.revokeSessions(999_999_999), false);
        await assert.rejects(
          fx.auth.set_password(heidi.id, 'short'),
          (error: Error & { status?: number }) => {
            return error.status === 422;
          },
        );
      });
    });

    describe('changing the email through the user routes', () => {
      it('needs the current password: 422 without, 403 when wrong, 200 when right (and it is not stored)', async () => {
        const ivan = await userWithToken(fx.server);
        const path = `/users/${ivan.id}`;
        const email = `${ivan.username}.new@example.com`;
        const without = await call(fx.server, 'PATCH', path, { token: ivan.token, json: { email } });
        assert.equal(without.status, 422);
        assert.deepEqual(without.body.errors, [
          { path: 'current_password', message: 'is required to change email' },
        ]);
        const wrong = await call(fx.server, 'PATCH', path, {
          token: ivan.token,
          json: { email, current_password: 'not-the-password' },
        });
        assert.equal(wrong.status, 403);
        assert.equal(wrong.body.code, 'invalid_current_password');
        assert.equal((await storedUser(fx, ivan.id)).email, `${ivan.username}@example.com`);
        const right = await call(fx.server, 'PATCH', path, {
          token: ivan.token,
          json: { email, current_password: 'password-1' },
        });
        assert.equal(right.status, 200, JSON.stringify(right.body));
        assert.equal(right.body.email, email);
        assert.equal('current_password' in right.body, false);
        assert.equal((await storedUser(fx, ivan.id)).email, email);
        // The same email again (a PUT repeats every field) needs no password.
        const same = await call(fx.server, 'PUT', path, {
          token: ivan.token,
          json: { username: ivan.username, email, age: 40 },
        });
        assert.equal(same.status, 200, JSON.stringify(same.body));
        assert.equal(same.body.age, 40);
      });

      it("lets an administrator change another user's email without it, but not their own", async () => {
        const judy = await userWithToken(fx.server);
        const other = await call(fx.server, 'PATCH', `/users/${judy.id}`, {
          token: admin.token,
          json: { email: `${judy.username}.fixed@example.com` },
        });
        assert.equal(other.status, 200, JSON.stringify(other.body));
        assert.equal(other.body.email, `${judy.username}.fixed@example.com`);
        const own = await call(fx.server, 'PATCH', `/users/${admin.id}`, {
          token: admin.token,
          json: { email: `${admin.username}.moved@example.com` },
        });
        assert.equal(own.status, 422);
        const ownRight = await call(fx.server, 'PATCH', `/users/${admin.id}`, {
          token: admin.token,
          json: { email: `${admin.username}.moved@example.com`, current_password: 'admin-password' },
        });
        assert.equal(ownRight.status, 200, JSON.stringify(ownRight.body));
      });
    });

    describe("an administrator's account through the user routes", () => {
      it('is not deleted by anyone, itself included; other users are', async () => {
        const second = await adminWithToken(fx);
        for (const [who, token] of [
          ['another administrator', second.token],
          ['itself', admin.token],
        ] as const) {
          const refused = await call(fx.server, 'DELETE', `/users/${admin.id}`, { token });
          assert.equal(refused.status, 403, `${who}: ${JSON.stringify(refused.body)}`);
          assert.equal(refused.body.code, 'forbidden');
        }
        assert.ok((await storedUser(fx, admin.id)) !== undefined);
        const kim = await userWithToken(fx.server);
        assert.equal(
          (await call(fx.server, 'DELETE', `/users/${kim.id}`, { token: admin.token })).status,
          204,
        );
        const document = (await call(fx.server, 'GET', '/openapi.json')).body as {
          paths: Record<string, Record<string, { description?: string; responses: Record<string, unknown> }>>;
        };
        const remove = document.paths['/users/{id}']?.delete;
        assert.ok(remove?.responses['403'] !== undefined);
        assert.match(String(remove?.description), /administrator's account is not deleted/);
      });

      it("is renamed only with its own current_password; another user's name an administrator fixes", async () => {
        const second = await adminWithToken(fx);
        const path = `/users/${admin.id}`;
        const renamed = { username: `${admin.username}-taken` };
        for (const token of [second.token, admin.token]) {
          const without = await call(fx.server, 'PATCH', path, { token, json: renamed });
          assert.equal(without.status, 422, JSON.stringify(without.body));
          assert.deepEqual(without.body.errors, [
            { path: 'current_password', message: 'is required to change the username of an administrator' },
          ]);
        }
        const wrong = await call(fx.server, 'PATCH', path, {
          token: second.token,
          json: { ...renamed, current_password: 'admin-password-guess' },
        });
        assert.equal(wrong.status, 403);
        assert.equal((await storedUser(fx, admin.id)).username, admin.username);
        // Repeating the stored name, in another case too, renames nothing: no password needed.
        for (const username of [admin.username, admin.username.toUpperCase()]) {
          const same = await call(fx.server, 'PATCH', path, { token: admin.token, json: { username } });
          assert.equal(same.status, 200, `${username}: ${JSON.stringify(same.body)}`);
        }
        const lena = await userWithToken(fx.server);
        const fixed = await call(fx.server, 'PATCH', `/users/${lena.id}`, {
          token: admin.token,
          json: { username: `${lena.username}-fixed` },
        });
        assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
      });
    });

    it('documents the new routes and current_password in OpenAPI', async () => {
      const document = (await call(fx.server, 'GET', '/openapi.json')).body as {
        paths: Record<string, Record<string, { security?: unknown[] }>>;
      };
      assert.ok(document.paths['/change-password']?.post?.security !== undefined);
      assert.ok(document.paths['/admin/{id}/password']?.post !== undefined);
    });
  });
}
