/**
 * The revocation column on a database made before it existed: `schema: 'update'` adds
 * `tokens_valid_after` (nullable, so no default is needed), the existing users log in and use
 * their tokens, and a password change revokes as on a fresh database. Needs a database that
 * outlives one connection, so the targets are the file and server ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { createTestDatabase, requireTarget, serverTargets } from '../../support/databases.js';
import { serve } from '../../support/http.js';
import { authEntities, User } from './support/entities.js';
import { BASE_OPTIONS, call, loginToken, memoryLogger } from './support/harness.js';

/** An app with the auth routes and the users router on `adapter`. */
async function start(adapter: MikroOrmAdapter) {
  const app = new Application({ title: 'revocation', adapter, logger: memoryLogger(), health: false });
  const auth = new AuthRouter(BASE_OPTIONS);
  auth.register_routes(app);
  new CrudRouter({ model: User, secure: true, auth_dependency: auth.get_auth_dependency() }).register_routes(
    app,
  );
  return serve(app.callback());
}

for (const target of serverTargets()) {
  describe(`the revocation column on an older ${target} database`, await requireTarget(target), () => {
    it("is added by schema: 'update', and old users keep working until they change their password", async () => {
      const database = await createTestDatabase(target);
      try {
        const first = await MikroOrmAdapter.connect({
          url: database.url,
          entities: authEntities,
          schema: 'create',
        });
        let server = await start(first);
        const registered = await call(server, 'POST', '/register', {
          json: { username: 'older', email: 'older@example.com', password: 'password-1' },
        });
        assert.equal(registered.status, 201);
        await server.close();
        // The table as the previous release made it: no tokens_valid_after.
        await first.orm.em.getConnection().execute('alter table users drop column tokens_valid_after');
        await first.close();

        const second = await MikroOrmAdapter.connect({
          url: database.url,
          entities: authEntities,
          schema: 'update',
        });
        try {
          server = await start(second);
          const rows = (await second.orm.em
            .getConnection()
            .execute('select tokens_valid_after from users')) as Record<string, unknown>[];
          assert.deepEqual(
            rows.map((row) => row.tokens_valid_after),
            [null],
          );
          const token = await loginToken(server, 'older');
          const path = `/users/${registered.body.id}`;
          assert.equal((await call(server, 'GET', path, { token })).status, 200);
          const changed = await call(server, 'POST', '/change-password', {
            token,
            json: { current_password: 'password-1', new_password: 'password-2' },
          });
          assert.equal(changed.status, 200, JSON.stringify(changed.body));
          assert.equal((await call(server, 'GET', path, { token })).status, 401);
          const fresh = String(changed.body.access_token);
          assert.equal((await call(server, 'GET', path, { token: fresh })).status, 200);
          await server.close();
        } finally {
          await second.close();
        }
      } finally {
        await database.drop();
      }
    });
  });
}
