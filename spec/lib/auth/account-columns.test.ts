/**
 * The account columns on a database made before they existed: `schema: 'update'` adds `verified`
 * (defaulted, so existing users read `false`) and the nullable token columns, the existing users
 * log in, and a password reset works as on a fresh database. Needs a database that outlives one
 * connection, so the targets are the file and server ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import { mountAccountRoutes } from '../../../lib/auth/account/account-setup.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { ConsoleMailer } from '../../../lib/auth/mail/mailer.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { createTestDatabase, requireTarget, serverTargets } from '../../support/databases.js';
import { serve } from '../../support/http.js';
import { authEntities, User } from './support/entities.js';
import { BASE_OPTIONS, call, loginToken, memoryLogger } from './support/harness.js';

const ACCOUNT_COLUMNS = [
  'verified',
  'reset_token_hash',
  'reset_token_expires',
  'verify_token_hash',
  'verify_token_expires',
];

for (const target of serverTargets()) {
  describe(`the account columns on an older ${target} database`, await requireTarget(target), () => {
    it("are added by schema: 'update'; old users read verified: false and can reset their password", async () => {
      const database = await createTestDatabase(target);
      try {
        const first = await MikroOrmAdapter.connect({
          url: database.url,
          entities: authEntities,
          schema: 'create',
        });
        const app1 = new Application({ title: 'v1', adapter: first, logger: memoryLogger(), health: false });
        new AuthRouter(BASE_OPTIONS).register_routes(app1);
        let server = await serve(app1.callback());
        const registered = await call(server, 'POST', '/register', {
          json: { username: 'older', email: 'older@example.com', password: 'password-1' },
        });
        assert.equal(registered.status, 201);
        await server.close();
        // The table as the previous release made it.
        for (const column of ACCOUNT_COLUMNS) {
          await first.orm.em.getConnection().execute(`alter table users drop column ${column}`);
        }
        await first.close();

        const second = await MikroOrmAdapter.connect({
          url: database.url,
          entities: authEntities,
          schema: 'update',
        });
        try {
          const app = new Application({
            title: 'v2',
            adapter: second,
            logger: memoryLogger(),
            health: false,
          });
          const auth = new AuthRouter(BASE_OPTIONS);
          auth.register_routes(app);
          new CrudRouter({
            model: User,
            secure: true,
            auth_dependency: auth.get_auth_dependency(),
          }).register_routes(app);
          const mailer = new ConsoleMailer(memoryLogger());
          const account = mountAccountRoutes(app, auth, { mailer });
          server = await serve(app.callback());
          const token = await loginToken(server, 'older');
          const shown = await call(server, 'GET', `/users/${registered.body.id}`, { token });
          assert.equal(shown.body.verified, false);
          const rows = (await second.orm.em
            .getConnection()
            .execute('select reset_token_hash, verify_token_hash from users')) as Record<string, unknown>[];
          assert.deepEqual(rows, [{ reset_token_hash: null, verify_token_hash: null }]);

          assert.equal(
            (await call(server, 'POST', '/forgot-password', { json: { email: 'older@example.com' } })).status,
            202,
          );
          await account.idle();
          const link = /[?&]token=([^\s&]+)/.exec(mailer.sent.at(-1)?.text ?? '')?.[1];
          assert.ok(link !== undefined, 'a reset link was mailed');
          const reset = await call(server, 'POST', '/reset-password', {
            json: { token: decodeURIComponent(link), password: 'password-2' },
          });
          assert.equal(reset.status, 204, JSON.stringify(reset.body));
          assert.equal((await call(server, 'GET', `/users/${registered.body.id}`, { token })).status, 401);
          await loginToken(server, 'older', 'password-2');
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
