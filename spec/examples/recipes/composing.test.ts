/**
 * The composing recipe (docs/composing.md), over real HTTP: an existing Koa app keeps its own
 * middleware and routes while the auth and CRUD routes answer under `/api`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { addModelApi } from '../../../examples/recipes/composing/add-model-api.js';
import { createExistingApp } from '../../../examples/recipes/composing/existing-app.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';

let database: TestDatabase;
let adapter: MikroOrmAdapter;
let server: TestServer;

before(async () => {
  database = await createTestDatabase('sqlite-file');
  // A table of the existing app, in the same database.
  const existing = new Database(database.url.slice('sqlite:'.length));
  existing.exec(
    'CREATE TABLE orders (id INTEGER PRIMARY KEY, total REAL); INSERT INTO orders (total) VALUES (9.5)',
  );
  existing.close();
  const koa = createExistingApp();
  adapter = await addModelApi(koa, database.url);
  server = await serve(koa.callback());
});
after(async () => {
  await server?.close();
  await adapter?.close();
  await database?.drop();
});

async function signUp(username: string): Promise<{ authorization: string }> {
  const password = 'correct horse battery';
  const registered = await server.request('/api/register', { method: 'POST', json: { username, password } });
  assert.equal(registered.status, 201, await registered.clone().text());
  const login = await server.request('/api/login', { method: 'POST', json: { username, password } });
  const { access_token } = (await login.json()) as { access_token: string };
  return { authorization: `Bearer ${access_token}` };
}

describe('an existing Koa app with koa-model-api under /api', () => {
  it('adds its tables beside the app’s own, dropping nothing', () => {
    const db = new Database(database.url.slice('sqlite:'.length), { readonly: true });
    try {
      const tables = (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
          name: string;
        }[]
      ).map((row) => row.name);
      assert.deepEqual(
        tables.filter((name) => !name.startsWith('sqlite_')),
        ['bookmarks', 'orders', 'users'],
      );
      assert.deepEqual(db.prepare('SELECT total FROM orders').all(), [{ total: 9.5 }]);
    } finally {
      db.close();
    }
  });

  it('keeps its own routes and middleware', async () => {
    const home = await server.request('/', { headers: { 'x-request-id': 'abc-123' } });
    assert.deepEqual(await home.json(), { service: 'bookmarks', requestId: 'abc-123' });
    assert.equal(home.headers.get('x-request-id'), 'abc-123');
    const feedback = await server.request('/feedback', { method: 'POST', json: { text: 'nice' } });
    assert.equal(feedback.status, 202);
  });

  it('serves the auth routes and the CRUD routes under the prefix only', async () => {
    const ann = await signUp('ann');
    const me = await server.request('/api/me', { headers: ann });
    assert.equal(((await me.json()) as { username: string }).username, 'ann');

    const created = await server.request('/api/bookmarks', {
      method: 'POST',
      headers: ann,
      json: { url: 'https://koajs.com' },
    });
    assert.equal(created.status, 201);
    const bookmark = (await created.json()) as { id: number };
    assert.equal(created.headers.get('location'), `/api/bookmarks/${bookmark.id}`);
    assert.equal(
      created.headers.get('x-request-id')?.length,
      36,
      'the app’s middleware runs for API routes too',
    );

    assert.equal((await server.request('/bookmarks', { headers: ann })).status, 404);
    assert.equal((await server.request('/me', { headers: ann })).status, 404);
    for (const path of ['/register', '/login']) {
      assert.equal(
        (await server.request(path, { method: 'POST', json: { username: 'x', password: 'y' } })).status,
        404,
        path,
      );
    }
  });

  it('answers API errors as problem details, keeping the app’s headers', async () => {
    const anonymous = await server.request('/api/bookmarks', { headers: { 'x-request-id': 'req-9' } });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
    assert.equal(anonymous.headers.get('x-request-id'), 'req-9');
    assert.equal(((await anonymous.json()) as { code: string }).code, 'unauthorized');
    assert.equal((await server.request('/api/me')).status, 401);
  });

  it('applies the policies: a user sees and edits only their own bookmarks', async () => {
    const bob = await signUp('bob');
    const carol = await signUp('carol');
    const created = await server.request('/api/bookmarks', {
      method: 'POST',
      headers: bob,
      json: { url: 'https://example.com' },
    });
    const { id } = (await created.json()) as { id: number };
    assert.equal(
      (await server.request(`/api/bookmarks/${id}`, { method: 'PATCH', headers: carol, json: { url: 'x' } }))
        .status,
      403,
    );
    const listed = (await (await server.request('/api/bookmarks', { headers: carol })).json()) as unknown[];
    assert.deepEqual(listed, []);
    const own = (await (await server.request('/api/bookmarks', { headers: bob })).json()) as { id: number }[];
    assert.deepEqual(
      own.map((row) => row.id),
      [id],
    );
  });
});
