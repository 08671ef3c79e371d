/**
 * The sessions recipe (docs/authentication.md, "Sessions: refresh and logout") over HTTP on SQLite:
 * the refresh-token model in the database, the client that refreshes once on a 401 and shares one
 * refresh between concurrent callers, logout and logout everywhere; and the guide's blocks are
 * verbatim in the recipe files.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSessionsApp } from '../../../examples/recipes/sessions/app.js';
import { Session } from '../../../examples/recipes/sessions/client.js';
import { RefreshToken, User } from '../../../examples/recipes/sessions/entities.js';
import { CrudRouter } from '../../../lib/index.js';
import { serve, type TestServer } from '../../support/http.js';
import { repoRoot } from '../../support/paths.js';

let built: Awaited<ReturnType<typeof createSessionsApp>>;
let server: TestServer;
let base: string;
let userId: number;

async function post(path: string, body: unknown): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** The pair a session holds (private to the recipe's class; read here to check the server's view). */
function pairOf(session: Session): { access_token: string; refresh_token: string } {
  return (session as unknown as { pair: { access_token: string; refresh_token: string } }).pair;
}

before(async () => {
  built = await createSessionsApp('sqlite::memory:', '');
  new CrudRouter({
    model: User,
    secure: true,
    auth_dependency: built.auth.get_auth_dependency(),
  }).register_routes(built.app);
  server = await serve(built.app.callback());
  base = server.url;
  const registered = await post('/register', { username: 'ada', password: 'lovelace-1815' });
  assert.equal(registered.status, 201);
  userId = ((await registered.json()) as { id: number }).id;
});
after(async () => {
  await server?.close();
  await built?.app.close();
});

describe('the sessions recipe', () => {
  it('keeps refresh tokens in the refresh_tokens table', async () => {
    const session = await Session.login(base, 'ada', 'lovelace-1815');
    const id = pairOf(session).refresh_token.split('.')[0] ?? '';
    const adapter = built.app.adapter;
    assert.ok((await adapter.get(adapter.openSession(), RefreshToken, id)) !== undefined);
  });

  it('refreshes once on a 401 and retries', async () => {
    const session = await Session.login(base, 'ada', 'lovelace-1815');
    const before = pairOf(session).refresh_token;
    pairOf(session).access_token = 'expired-or-garbage';
    const response = await session.fetch(`/users/${userId}`);
    assert.equal(response.status, 200);
    assert.notEqual(pairOf(session).refresh_token, before, 'the refresh token was rotated');
    const replay = await post('/refresh', { refresh_token: before });
    assert.equal(((await replay.json()) as { code: string }).code, 'refresh_token_reused');
  });

  it('shares one refresh between concurrent callers, so the server sees no reuse', async () => {
    const session = await Session.login(base, 'ada', 'lovelace-1815');
    await Promise.all([session.refresh(), session.refresh(), session.refresh()]);
    assert.equal((await session.fetch(`/users/${userId}`)).status, 200);
    await session.refresh();
    assert.equal((await session.fetch(`/users/${userId}`)).status, 200);
  });

  it('logout ends this session only; logoutEverywhere ends every one', async () => {
    const phone = await Session.login(base, 'ada', 'lovelace-1815');
    const laptop = await Session.login(base, 'ada', 'lovelace-1815');
    await phone.logout();
    await assert.rejects(phone.refresh(), /session ended: 401/);
    await laptop.refresh();
    const laptopAccess = pairOf(laptop).access_token;
    await laptop.logoutEverywhere();
    const old = await fetch(`${base}/users/${userId}`, {
      headers: { authorization: `Bearer ${laptopAccess}` },
    });
    assert.equal(old.status, 401);
    await assert.rejects(laptop.refresh(), /session ended: 401/);
  });
});

describe('docs/authentication.md sessions blocks', () => {
  it('are verbatim in the recipe files', () => {
    const root = repoRoot();
    const guide = readFileSync(join(root, 'docs', 'authentication.md'), 'utf8');
    const blocks = [
      ...guide.matchAll(/<!-- recipe: (examples\/recipes\/sessions\/\S+) -->\s*\n```ts\n([\s\S]*?)\n```/g),
    ];
    assert.ok(blocks.length >= 3, 'the guide shows the sessions recipe');
    for (const [, file = '', code = ''] of blocks) {
      const source = readFileSync(join(root, file), 'utf8')
        .replaceAll("'../../../lib/index.js'", "'koa-model-api'")
        .replaceAll("'../../../lib/auth/index.js'", "'koa-model-api/auth'")
        .replaceAll("'../../../adapters/mikro-orm/index.js'", "'koa-model-api/adapters/mikro-orm'");
      assert.ok(source.includes(code), `the block is not verbatim in ${file}:\n${code}`);
    }
  });
});
