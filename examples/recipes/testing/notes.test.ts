/** Tests of the notes API as an application's own test file: `node --test dist/notes.test.js`. */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Application } from '../../../lib/index.js';
import { createApp } from './app.js';

describe('the notes API', () => {
  let app: Application;
  let base: string;

  before(async () => {
    // A database of its own (SQLite in memory), a fixed secret, and cheap password hashing.
    app = await createApp({
      url: 'sqlite::memory:',
      secret: 'a test secret of at least thirty-two bytes',
      bcryptCost: 4,
    });
    const server = await app.listen(0); // port 0: any free port
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  // Closes the server and the database: the test process can end.
  after(() => app?.close());

  /** Registers and logs in `username`; the Authorization header of their token. */
  async function signUp(username: string): Promise<{ authorization: string }> {
    const json = { 'content-type': 'application/json' };
    const credentials = JSON.stringify({ username, password: 'correct horse battery' });
    const registered = await fetch(`${base}/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ username, email: `${username}@example.com`, password: 'correct horse battery' }),
    });
    assert.equal(registered.status, 201);
    const login = await fetch(`${base}/login`, { method: 'POST', headers: json, body: credentials });
    const { access_token } = (await login.json()) as { access_token: string };
    return { authorization: `Bearer ${access_token}` };
  }

  it('lets a user create a note and only the owner change it', async () => {
    const ann = await signUp('ann');
    const created = await fetch(`${base}/notes`, {
      method: 'POST',
      headers: { ...ann, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'First note' }),
    });
    assert.equal(created.status, 201);
    const note = (await created.json()) as { id: number };

    const bob = await signUp('bob');
    const refused = await fetch(`${base}/notes/${note.id}`, { method: 'DELETE', headers: bob });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'forbidden');
  });

  it('refuses an anonymous caller with a problem body', async () => {
    const response = await fetch(`${base}/notes`);
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
  });
});
