/**
 * The `@koa/router` recipe (docs/composing.md): the auth and CRUD routers mounted in an app's own
 * router under `/api`, over real HTTP on every database target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import type { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { mountApiRouter } from '../../../examples/recipes/composing/api-router.js';
import { Bookmark } from '../../../examples/recipes/composing/entities.js';
import { CrudRouter } from '../../../lib/index.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';

for (const target of databaseTargets()) {
  const available = await requireTarget(target);
  describe(`koa-model-api mounted in an app's own @koa/router on ${target}`, available, () => {
    let database: TestDatabase;
    let adapter: MikroOrmAdapter;
    let server: TestServer;

    before(async () => {
      database = await createTestDatabase(target);
      const koa = new Koa();
      adapter = await mountApiRouter(koa, database.url);
      server = await serve(koa.callback());
    });
    after(async () => {
      await server?.close();
      await adapter?.close();
      await database?.drop();
    });

    async function signUp(username: string): Promise<{ authorization: string }> {
      const password = 'correct horse battery';
      const registered = await server.request('/api/register', {
        method: 'POST',
        json: { username, password },
      });
      assert.equal(registered.status, 201, await registered.clone().text());
      const login = await server.request('/api/login', { method: 'POST', json: { username, password } });
      const { access_token } = (await login.json()) as { access_token: string };
      return { authorization: `Bearer ${access_token}` };
    }

    it('serves the auth, CRUD and the app’s own routes from one router', async () => {
      const headers = await signUp('ann');
      const created = await server.request('/api/bookmarks', {
        method: 'POST',
        headers,
        json: { url: 'https://a.example' },
      });
      assert.equal(created.status, 201, await created.clone().text());
      const bookmark = (await created.json()) as { id: number; owner: number };
      // The path posted to, with the app router's prefix: a client follows it.
      assert.equal(created.headers.get('location'), `/api/bookmarks/${bookmark.id}`);
      const followed = await server.request(created.headers.get('location') as string, { headers });
      assert.equal(followed.status, 200);
      const me = (await (await server.request('/api/me', { headers })).json()) as {
        id: number;
        username: string;
      };
      assert.equal(me.username, 'ann');
      assert.equal(bookmark.owner, me.id);
      const read = await server.request(`/api/bookmarks/${bookmark.id}`, { headers });
      assert.equal(read.status, 200);
    });

    it('keeps the framework’s answers: 401 and 403 problems, 405 problems with Allow, 204 to OPTIONS, 404 elsewhere', async () => {
      const anonymous = await server.request('/api/bookmarks');
      assert.equal(anonymous.status, 401);
      assert.equal(((await anonymous.json()) as { code: string }).code, 'unauthorized');
      const ann = await signUp('ann2');
      const bob = await signUp('bob');
      const created = (await (
        await server.request('/api/bookmarks', {
          method: 'POST',
          headers: ann,
          json: { url: 'https://b.example' },
        })
      ).json()) as { id: number };
      const forbidden = await server.request(`/api/bookmarks/${created.id}`, { headers: bob });
      assert.equal(forbidden.status, 403);
      const deleted = await server.request(`/api/bookmarks/${created.id}`, {
        method: 'DELETE',
        headers: bob,
      });
      assert.equal(deleted.status, 403, 'only the owner (or an admin) deletes a bookmark');
      // The admin routes nest in the same router: served under /api, to administrators only.
      for (const action of ['make-admin', 'revoke-sessions']) {
        const refused = await server.request(`/api/admin/1/${action}`, { method: 'POST', headers: bob });
        assert.equal(refused.status, 403, `${action}: ${refused.status}`);
        assert.equal(((await refused.json()) as { code: string }).code, 'forbidden');
      }
      assert.equal((await server.request('/api/admin/1/make-admin', { method: 'POST' })).status, 401);
      const wrong = await server.request('/api/bookmarks', { method: 'DELETE', headers: ann });
      assert.equal(wrong.status, 405);
      assert.equal(wrong.headers.get('allow'), 'GET, POST, HEAD, OPTIONS');
      assert.match(wrong.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(((await wrong.json()) as { code: string }).code, 'method_not_allowed');
      const login = await server.request('/api/login');
      assert.equal(login.status, 405);
      assert.match(login.headers.get('content-type') ?? '', /^application\/problem\+json/);
      const options = await server.request(`/api/bookmarks/${created.id}`, { method: 'OPTIONS' });
      assert.equal(options.status, 204);
      assert.equal(options.headers.get('allow'), 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      assert.equal((await server.request('/bookmarks', { headers: ann })).status, 404);
    });

    it('serves the routers’ OpenAPI document at /openapi.json and Swagger UI at /docs', async () => {
      const response = await server.request('/openapi.json');
      assert.equal(response.status, 200);
      const document = (await response.json()) as {
        servers: { url: string }[];
        paths: Record<string, Record<string, unknown>>;
        components: { securitySchemes: Record<string, { flows?: { password?: { tokenUrl: string } } }> };
      };
      assert.deepEqual(document.servers, [{ url: '/api' }]);
      // Swagger UI's Authorize posts to the token URL resolved against the host alone: it must
      // carry the server's path, as the login route the app serves does.
      const tokenUrl = document.components.securitySchemes.OAuth2PasswordBearer?.flows?.password?.tokenUrl;
      assert.equal(tokenUrl, '/api/login');
      const token = await server.request(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'username=nobody&password=wrong-password',
      });
      assert.equal(token.status, 401, 'the token URL is the login route');
      for (const path of ['/register', '/login', '/bookmarks', '/bookmarks/{id}', '/admin/{id}/make-admin'])
        assert.ok(path in document.paths, `${path} documented`);
      // Each documented path, under the server URL, is one the app serves: none answers 404.
      const headers = await signUp('docs-reader');
      for (const path of Object.keys(document.paths)) {
        const served = await server.request(`/api${path.replace('{id}', '1')}`, {
          method: 'OPTIONS',
          headers,
        });
        assert.notEqual(served.status, 404, `/api${path}`);
      }
      const page = await server.request('/docs');
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(await page.text(), /openapi\.json/);
      assert.equal((await server.request('/openapi.json', { method: 'POST' })).status, 405);
    });
  });
}

describe('CrudRouter.router', () => {
  it('needs the router’s adapter, since its paths come from the table name', () => {
    assert.throws(() => new CrudRouter({ model: Bookmark }).router, /needs the router's adapter/);
  });
});
