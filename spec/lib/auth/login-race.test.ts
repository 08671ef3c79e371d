/**
 * A login racing a password change (security review 9): tokens earned with the old password must
 * not outlive the change. The interleavings are played in order with a held adapter (a real
 * database behind a pass-through that stops one call at a gate), not left to timing: a login
 * held between reading the user and issuing its tokens, and a login that reads the user while
 * the change is being written.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { authEntities, User } from './support/entities.js';
import { BASE_OPTIONS, call, type Json, loginToken, memoryLogger, registerUser } from './support/harness.js';
import { type HeldAdapter, heldAdapter } from './support/held-adapter.js';

for (const target of databaseTargets()) {
  describe(`a login racing a password change on ${target}`, await requireTarget(target), () => {
    let database: TestDatabase;
    let adapter: MikroOrmAdapter;
    let held: HeldAdapter;
    let auth: AuthRouter;
    let server: TestServer;
    before(async () => {
      database = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: database.url,
        entities: authEntities,
        schema: 'create',
      });
      held = heldAdapter(adapter);
      const app = new Application({ title: 'race', adapter, logger: memoryLogger(), health: false });
      auth = new AuthRouter({ ...BASE_OPTIONS, adapter: held.adapter });
      auth.register_routes(app);
      new CrudRouter({
        model: User,
        secure: true,
        auth_dependency: auth.get_auth_dependency(),
      }).register_routes(app);
      server = await serve(app.callback());
    });
    after(async () => {
      await server?.close();
      await adapter?.close();
      await database?.drop();
    });

    /** Whether the access token of a login still opens its user, and its refresh token still refreshes. */
    async function survivors(id: number, body: Json): Promise<{ access: number; refresh: number }> {
      const access = await call(server, 'GET', `/users/${id}`, { token: String(body.access_token) });
      const refresh = await call(server, 'POST', '/refresh', { json: { refresh_token: body.refresh_token } });
      return { access: access.status, refresh: refresh.status };
    }

    it('a login held between reading the user and issuing its tokens gets tokens /change-password ends', async () => {
      const user = await registerUser(server);
      const token = await loginToken(server, user.username);
      const stop = held.afterRead();
      const racing = call(server, 'POST', '/login', {
        json: { username: user.username, password: 'password-1' },
      });
      await stop.reached;
      const changed = await call(server, 'POST', '/change-password', {
        token,
        json: { current_password: 'password-1', new_password: 'password-2' },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      // The clock moves past the change before the held login goes on to issue its tokens.
      await sleep(5);
      stop.open();
      const raced = await racing;
      assert.equal(raced.status, 200, 'the login checked the old password against the row it read');
      assert.deepEqual(await survivors(user.id, raced.body), { access: 401, refresh: 401 });
      assert.equal((await survivors(user.id, changed.body)).access, 200, "the changer's own token works");
    });

    it('a login that reads the user while the change is being written gets tokens the change ends', async () => {
      const user = await registerUser(server);
      const stop = held.beforeWrite('hashed_password');
      const setting = auth.set_password(user.id, 'password-2');
      await stop.reached;
      // The change has taken its time; the login starts after it and reads the row not yet written.
      await sleep(5);
      const raced = await call(server, 'POST', '/login', {
        json: { username: user.username, password: 'password-1' },
      });
      assert.equal(raced.status, 200, 'the old password still matched the stored row');
      stop.open();
      assert.equal(await setting, true);
      assert.deepEqual(await survivors(user.id, raced.body), { access: 401, refresh: 401 });
      assert.ok((await loginToken(server, user.username, 'password-2')).length > 0);
    });
  });
}
