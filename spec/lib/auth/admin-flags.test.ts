/**
 * The admin flag rule on real databases: a user model that declares `is_staff` or `is_superuser`
 * gets no `is_admin` column, and its own flag is the authority for registration, policies,
 * make-admin and ensure_admin.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Application } from '../../../lib/application.js';
import { AuthRouter } from '../../../lib/auth/auth-router.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import type { ModelClass } from '../../../lib/types.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { StaffMember, Superuser, Tag } from './support/entities.js';
import { type AuthFixture, call, loginToken, memoryLogger, SECRET, startAuthApp } from './support/harness.js';

const MODELS: [ModelClass, string][] = [
  [StaffMember, 'is_staff'],
  [Superuser, 'is_superuser'],
];

for (const target of databaseTargets()) {
  describe(`admin flag rule on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    const servers: TestServer[] = [];
    before(async () => {
      fx = await startAuthApp(target);
    });
    after(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await fx?.close();
    });

    async function appFor(
      model: ModelClass,
      strict = false,
    ): Promise<{ auth: AuthRouter; server: TestServer }> {
      const app = new Application({
        title: model.name,
        adapter: fx.adapter,
        logger: memoryLogger(),
        health: false,
      });
      const auth = new AuthRouter({ user_model: model, secret: SECRET, bcrypt_cost: 4, strict });
      auth.register_routes(app);
      auth.register_admin_routes(app);
      new CrudRouter({ model: Tag, policy: { POST: auth.admin_only() } }).register_routes(app);
      const server = await serve(app.callback());
      servers.push(server);
      return { auth, server };
    }

    for (const [model, flag] of MODELS) {
      describe(`${model.name} (declares ${flag})`, () => {
        it(`has ${flag} and no is_admin column`, () => {
          const description = fx.adapter.describe(model);
          assert.equal(description.fieldsByName.has('is_admin'), false);
          assert.equal(description.fieldsByName.get(flag)?.writable, false);
          assert.equal(description.fieldsByName.get('hashed_password')?.hidden, true);
        });

        it(`never lets registration set ${flag}`, async () => {
          const { server } = await appFor(model);
          const response = await call(server, 'POST', '/register', {
            json: { username: `${flag}-self`, password: 'password-1', [flag]: true, is_admin: true },
          });
          assert.equal(response.status, 201);
          assert.deepEqual(response.body, {
            id: response.body.id,
            username: `${flag}-self`,
            verified: false,
            [flag]: false,
          });
          const strict = await appFor(model, true);
          const refused = await call(strict.server, 'POST', '/register', {
            json: { username: `${flag}-strict`, password: 'password-1', [flag]: true, is_admin: true },
          });
          assert.equal(refused.status, 422);
          assert.deepEqual(
            (refused.body.errors as { path: string }[]).map((error) => error.path).sort(),
            ['is_admin', flag].sort(),
          );
        });

        it(`makes admins through ${flag}: ensure_admin, admin_only and make-admin`, async () => {
          const { auth, server } = await appFor(model);
          const created = await auth.ensure_admin({
            adapter: fx.adapter,
            username: `${flag}-root`,
            password: 'root-password',
          });
          assert.equal(created.user[flag], true);
          const rootToken = await loginToken(server, `${flag}-root`, 'root-password');
          assert.equal(
            (await call(server, 'POST', '/tags', { token: rootToken, json: { name: `${flag}-root` } }))
              .status,
            201,
          );

          const member = await call(server, 'POST', '/register', {
            json: { username: `${flag}-member`, password: 'password-1' },
          });
          const memberToken = await loginToken(server, `${flag}-member`);
          assert.equal(
            (await call(server, 'POST', '/tags', { token: memberToken, json: { name: `${flag}-m1` } }))
              .status,
            403,
          );
          const promoted = await call(server, 'POST', `/admin/${member.body.id}/make-admin`, {
            token: rootToken,
          });
          assert.equal(promoted.status, 200);
          assert.equal(promoted.body[flag], true);
          assert.equal('is_admin' in promoted.body, false);
          assert.equal(
            (await call(server, 'POST', '/tags', { token: memberToken, json: { name: `${flag}-m2` } }))
              .status,
            201,
          );
        });

        it('documents make-admin with the model flag', async () => {
          const app = new Application({
            title: 'doc',
            adapter: fx.adapter,
            logger: memoryLogger(),
            health: false,
          });
          new AuthRouter({ user_model: model, secret: SECRET, bcrypt_cost: 4 }).register_admin_routes(app);
          const document = app.openapi.document() as {
            paths: Record<string, { post: { description: string } }>;
          };
          assert.match(document.paths['/admin/{id}/make-admin']?.post.description ?? '', new RegExp(flag));
        });
      });
    }
  });
}
