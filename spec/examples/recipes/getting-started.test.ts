/**
 * The getting-started recipe (docs/getting-started.md): the same `createNotesApp` on every database
 * target by URL alone, and its `main` started the way a user runs it, stopped with SIGTERM.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createNotesApp } from '../../../examples/recipes/getting-started/app.js';
import type { Application } from '../../../lib/index.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { recipeFile, runNode } from './support.js';

const password = 'correct horse battery';

async function signUp(server: TestServer, username: string): Promise<{ id: number; token: string }> {
  const registered = await server.request('/register', {
    method: 'POST',
    json: { username, email: `${username}@example.com`, password },
  });
  assert.equal(registered.status, 201, await registered.clone().text());
  const user = (await registered.json()) as { id: number; age: number; is_admin: boolean };
  assert.equal(user.age, 18);
  assert.equal(user.is_admin, false);
  const login = await server.request('/login', { method: 'POST', json: { username, password } });
  assert.equal(login.status, 200);
  const { access_token } = (await login.json()) as { access_token: string };
  return { id: user.id, token: access_token };
}

for (const target of databaseTargets()) {
  describe(`getting started on ${target}`, await requireTarget(target), () => {
    let database: TestDatabase;
    let app: Application;
    let server: TestServer;

    before(async () => {
      database = await createTestDatabase(target);
      app = await createNotesApp(database.url);
      server = await serve(app.callback());
    });
    after(async () => {
      await server?.close();
      await app?.close();
      await database?.drop();
    });

    it('registers, logs in, and keeps notes to their owners', async () => {
      const ann = await signUp(server, 'ann');
      const bob = await signUp(server, 'bob');
      const auth = (token: string) => ({ authorization: `Bearer ${token}` });

      assert.equal((await server.request('/notes')).status, 401);
      const created = await server.request('/notes', {
        method: 'POST',
        headers: auth(ann.token),
        json: { title: 'Hello', owner: bob.id },
      });
      assert.equal(created.status, 201);
      const note = (await created.json()) as { id: number; owner: number; body: string | null };
      assert.equal(note.owner, ann.id, 'the owner comes from the token, not the body');
      assert.equal(note.body, null);
      assert.equal(created.headers.get('location'), `/notes/${note.id}`);

      const refused = await server.request(`/notes/${note.id}`, {
        method: 'PUT',
        headers: auth(bob.token),
        json: { title: 'Mine' },
      });
      assert.equal(refused.status, 403);
      const edited = await server.request(`/notes/${note.id}`, {
        method: 'PATCH',
        headers: auth(ann.token),
        json: { body: 'text' },
      });
      assert.deepEqual(await edited.json(), { id: note.id, title: 'Hello', body: 'text', owner: ann.id });
      assert.equal(
        (await server.request(`/notes/${note.id}`, { method: 'DELETE', headers: auth(ann.token) })).status,
        204,
      );
    });

    it('serves the OpenAPI document and Swagger UI', async () => {
      const document = (await (await server.request('/openapi.json')).json()) as {
        paths: Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(document.paths).sort(), [
        '/change-password',
        '/login',
        '/logout',
        '/logout-all',
        '/notes',
        '/notes/{id}',
        '/refresh',
        '/register',
      ]);
      assert.equal((await server.request('/docs')).status, 200);
    });
  });
}

describe("schema: 'update'", () => {
  it('adds the missing tables and leaves every other table alone', async () => {
    const database = await createTestDatabase('sqlite-file');
    const file = database.url.slice('sqlite:'.length);
    try {
      const before = new Database(file);
      before.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY)');
      before.close();
      await (await createNotesApp(database.url)).close();
      const after = new Database(file, { readonly: true });
      const tables = (
        after
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
          )
          .all() as { name: string }[]
      ).map((row) => row.name);
      after.close();
      assert.deepEqual(tables, ['invoices', 'notes', 'users']);
    } finally {
      await database.drop();
    }
  });
});

describe('getting started main', () => {
  it('listens, reports where, answers /health/ready and exits 0 on SIGTERM', async () => {
    const running = runNode(recipeFile('getting-started/main.js'), {
      DATABASE_URL: 'sqlite::memory:',
      PORT: '0',
    });
    try {
      const [, base] = await running.waitFor(/Notes API on (http:\/\/127\.0\.0\.1:\d+) — docs at \1\/docs/);
      const ready = await fetch(`${base}/health/ready`);
      assert.equal(ready.status, 200);
      assert.equal((await fetch(`${base}/docs`)).status, 200);
    } finally {
      running.child.kill('SIGTERM');
    }
    assert.equal(await running.exited(), 0, running.output());
  });
});
