/**
 * A user created again with the key of a deleted one (a username primary key; an id a database
 * reuses) starts with every earlier token revoked: the deleted user's access and refresh tokens
 * do not pass for the new account (security review, session 16). Through /register, a `CrudRouter`
 * create on the user model, and `ensure_admin`; every database target.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application } from '../../../lib/application.js';
import { AuthMixin } from '../../../lib/auth/auth-mixin.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { call, memoryLogger, SECRET } from './support/harness.js';

/** Table `members`: the login name is the key, so a deleted member's key is free to take again. */
@Entity()
class Member extends AuthMixin(FrameworkModel) {
  @PrimaryKey({ type: 'string', length: 50 })
  username!: string;

  @Property({ type: 'string', length: 254, unique: true })
  email!: string;
}

const PASSWORD = 'password-1';

for (const target of databaseTargets()) {
  describe(`a deleted user's key taken again on ${target}`, await requireTarget(target), () => {
    let database: TestDatabase;
    let adapter: MikroOrmAdapter;
    let auth: AuthRouter;
    let server: TestServer;
    let admin: string;

    before(async () => {
      database = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({ url: database.url, entities: [Member], schema: 'create' });
      const app = new Application({ title: 'Members', adapter, logger: memoryLogger(), health: false });
      auth = new AuthRouter({ user_model: Member, secret: SECRET, bcrypt_cost: 4, throttle: false });
      auth.register_routes(app);
      new CrudRouter({
        model: Member,
        secure: true,
        auth_dependency: auth.get_auth_dependency(),
        policy: { POST: auth.admin_only(), PUT: auth.owner_or_admin(Member), DELETE: auth.admin_only() },
      }).register_routes(app);
      server = await serve(app.callback());
      await auth.ensure_admin({
        db: adapter.openSession(),
        username: 'root',
        password: PASSWORD,
        email: 'root@example.com',
      });
      admin = await accessToken('root');
    });
    after(async () => {
      await server?.close();
      await adapter?.close();
      await database?.drop();
    });

    async function tokens(username: string): Promise<{ access_token: string; refresh_token: string }> {
      const answer = await call(server, 'POST', '/login', { json: { username, password: PASSWORD } });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body as { access_token: string; refresh_token: string };
    }
    const accessToken = async (username: string) => (await tokens(username)).access_token;

    /** Logs `name` in, deletes the member, runs `recreate`; the old tokens are then refused, new ones work. */
    async function assertOldTokensRefused(
      name: string,
      recreate: () => Promise<void>,
      logsIn = true,
      administrator = false,
    ): Promise<void> {
      const old = await tokens(name);
      assert.equal((await call(server, 'GET', `/members/${name}`, { token: old.access_token })).status, 200);
      const removed = await call(server, 'DELETE', `/members/${name}`, { token: admin });
      if (administrator) {
        // An administrator's account is not deleted through the API: from code, as documented.
        assert.equal(removed.status, 403);
        assert.equal(await adapter.delete(adapter.openSession(), Member, name), true);
      } else assert.equal(removed.status, 204);
      // A new user's tokens count from the start of its creation's second (tokens dated in whole
      // seconds keep working): the account is made again in a later second than the old tokens'.
      await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 5));
      await recreate();
      const read = await call(server, 'GET', `/members/${name}`, { token: old.access_token });
      assert.deepEqual([read.status, read.body.code], [401, 'invalid_token'], JSON.stringify(read.body));
      const refreshed = await call(server, 'POST', '/refresh', {
        json: { refresh_token: old.refresh_token },
      });
      assert.equal(refreshed.status, 401, JSON.stringify(refreshed.body));
      // The new account's own tokens work.
      if (logsIn)
        assert.equal(
          (await call(server, 'GET', `/members/${name}`, { token: await accessToken(name) })).status,
          200,
        );
    }

    it('through /register', async () => {
      const register = () =>
        call(server, 'POST', '/register', {
          json: { username: 'ceo', email: 'ceo@example.com', password: PASSWORD },
        });
      assert.equal((await register()).status, 201);
      await assertOldTokensRefused('ceo', async () => {
        assert.equal((await register()).status, 201);
      });
    });

    it("through the user model's CrudRouter (an admin's create; such a user has no password yet)", async () => {
      const create = async () => {
        const created = await call(server, 'POST', '/members', {
          token: admin,
          json: { username: 'cfo', email: 'cfo@example.com' },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
      };
      // The first cfo registers, so as to hold tokens; the second is an admin's create.
      const registered = await call(server, 'POST', '/register', {
        json: { username: 'cfo', email: 'cfo@example.com', password: PASSWORD },
      });
      assert.equal(registered.status, 201);
      await assertOldTokensRefused('cfo', create, false);
    });

    it('through ensure_admin', async () => {
      const ensure = () =>
        auth.ensure_admin({
          db: adapter.openSession(),
          username: 'ops',
          password: PASSWORD,
          email: 'ops@example.com',
        });
      await ensure();
      await assertOldTokensRefused(
        'ops',
        async () => {
          await ensure();
        },
        true,
        true,
      );
    });
  });
}
