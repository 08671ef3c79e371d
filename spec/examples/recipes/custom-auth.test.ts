/**
 * The custom-authentication recipe (docs/custom-auth.md), over HTTP on the in-memory adapter: API
 * keys as the auth dependency, and the "published or owner" policy.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWriter } from '../../../examples/recipes/custom-auth/api-key.js';
import { createArticlesApp } from '../../../examples/recipes/custom-auth/app.js';
import { createArticlesAdapter } from '../../../examples/recipes/custom-auth/models.js';
import type { Application } from '../../../lib/index.js';
import { serve, type TestServer } from '../../support/http.js';

type KeyHeader = { 'x-api-key': string };

let app: Application;
let server: TestServer;
let keys: { ann: KeyHeader; bob: KeyHeader; root: KeyHeader };
let annId: number;

before(async () => {
  const adapter = createArticlesAdapter();
  app = createArticlesApp(adapter);
  server = await serve(app.callback());
  const [ann, bob, root] = [
    await createWriter(adapter, 'Ann'),
    await createWriter(adapter, 'Bob'),
    await createWriter(adapter, 'Root', true),
  ];
  annId = ann.id;
  keys = {
    ann: { 'x-api-key': ann.apiKey },
    bob: { 'x-api-key': bob.apiKey },
    root: { 'x-api-key': root.apiKey },
  };
});
after(async () => {
  await server?.close();
  await app?.close();
});

async function status(path: string, init: Parameters<TestServer['request']>[1] = {}): Promise<number> {
  return (await server.request(path, init)).status;
}

describe('API keys as the authentication dependency', () => {
  it('a missing key is 401, a wrong key is 401 invalid_token', async () => {
    const missing = await server.request('/writers');
    assert.equal(missing.status, 401);
    assert.equal(((await missing.json()) as { code: string }).code, 'unauthorized');
    const wrong = await server.request('/writers', { headers: { 'x-api-key': 'nope' } });
    assert.equal(((await wrong.json()) as { code: string }).code, 'invalid_token');
  });

  it('a valid key signs the writer in; the key hash and admin flag stay out of reach', async () => {
    const writers = (await (await server.request('/writers', { headers: keys.bob })).json()) as Record<
      string,
      unknown
    >[];
    assert.deepEqual(
      writers.map((writer) => writer.name),
      ['Ann', 'Bob', 'Root'],
    );
    assert.equal('api_key_hash' in (writers[0] ?? {}), false);
    assert.equal(await status('/writers', { method: 'POST', headers: keys.bob, json: { name: 'Eve' } }), 403);
    const created = await server.request('/writers', {
      method: 'POST',
      headers: keys.root,
      json: { name: 'Eve', is_admin: true },
    });
    assert.equal(((await created.json()) as { is_admin: boolean }).is_admin, false);
  });

  it('documents the scheme on the operations that need a key', async () => {
    const document = (await (await server.request('/openapi.json')).json()) as {
      components: { securitySchemes: Record<string, unknown> };
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    assert.deepEqual(document.components.securitySchemes, {
      ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
    });
    assert.deepEqual(document.paths['/articles']?.post?.security, [{ ApiKey: [] }]);
    // Reading articles needs no key; including their owner (the writers router) takes one.
    assert.deepEqual(document.paths['/articles']?.get?.security, [{}, { ApiKey: [] }]);
  });
});

describe('the published-or-owner policy', () => {
  let draft: number;
  let published: number;

  before(async () => {
    const created = await server.request('/articles', {
      method: 'POST',
      headers: keys.ann,
      json: { title: 'Draft', owner: 999 },
    });
    assert.equal(created.status, 201);
    const row = (await created.json()) as { id: number; owner: number; published: boolean };
    assert.deepEqual([row.owner, row.published], [annId, false]);
    draft = row.id;
    const other = await server.request('/articles', {
      method: 'POST',
      headers: keys.ann,
      json: { title: 'News', published: true },
    });
    published = ((await other.json()) as { id: number }).id;
  });

  it('anyone reads a published article; only signed-in writers create', async () => {
    assert.equal(await status(`/articles/${published}`), 200);
    assert.equal(await status('/articles', { method: 'POST', json: { title: 'x' } }), 401);
  });

  it('a draft is readable by its owner and admins, and does not exist for anyone else', async () => {
    assert.equal(await status(`/articles/${draft}`, { headers: keys.ann }), 200);
    assert.equal(await status(`/articles/${draft}`, { headers: keys.root }), 200);
    assert.equal(await status(`/articles/${draft}`, { headers: keys.bob }), 404);
    assert.equal(await status(`/articles/${draft}`), 404);
  });

  it("someone else's draft answers exactly as a missing id on GET, PUT, PATCH and DELETE", async () => {
    const missing = 999_999;
    const answer = async (id: number, method: string, headers?: KeyHeader) => {
      const response = await server.request(`/articles/${id}`, {
        method,
        ...(headers === undefined ? {} : { headers }),
        ...(method === 'PUT' || method === 'PATCH' ? { json: { title: 'Taken over' } } : {}),
      });
      // The id is the one difference a client may see: it is in the path it sent.
      const body = (await response.text()).replaceAll(`\\"${id}\\"`, '\\"<id>\\"');
      return { status: response.status, type: response.headers.get('content-type'), body };
    };
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      for (const headers of [keys.bob, undefined]) {
        if (headers === undefined && method !== 'GET') continue; // writes need a key: 401 for both
        const hidden = await answer(draft, method, headers);
        assert.equal(hidden.status, 404, `${method} of someone else's draft`);
        assert.deepEqual(hidden, await answer(missing, method, headers), `${method}: draft vs missing id`);
      }
    }
    // Hidden, not gone; and a published article of someone else is still a 403 to change.
    assert.equal(await status(`/articles/${draft}`, { headers: keys.ann }), 200);
    assert.equal(
      await status(`/articles/${published}`, { method: 'PATCH', headers: keys.bob, json: { title: 'X' } }),
      403,
    );
  });

  it('lists show published articles, all of them to admins', async () => {
    const titles = async (headers?: Record<string, string>) =>
      (
        (await (await server.request('/articles', headers === undefined ? {} : { headers })).json()) as {
          title: string;
        }[]
      ).map((a) => a.title);
    assert.deepEqual(await titles(), ['News']);
    assert.deepEqual(await titles(keys.ann), ['News']);
    assert.deepEqual(await titles(keys.root), ['Draft', 'News']);
  });

  it('only the owner (or an admin) edits, and publishing makes it public', async () => {
    assert.equal(
      await status(`/articles/${draft}`, { method: 'PATCH', headers: keys.bob, json: { published: true } }),
      404,
    );
    assert.equal(
      await status(`/articles/${draft}`, { method: 'PATCH', headers: keys.ann, json: { published: true } }),
      200,
    );
    assert.equal(await status(`/articles/${draft}`), 200);
    assert.equal(await status(`/articles/${draft}`, { method: 'DELETE', headers: keys.root }), 204);
  });
});
