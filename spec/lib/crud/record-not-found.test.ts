/**
 * `ApiError.recordNotFound(model, id)` is the generated routes' own 404 for an id with no record,
 * so a policy that throws it hides a stored record completely: same status, headers and body.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineMemoryModel, MemoryAdapter } from '../../../adapters/memory/index.js';
import { ApiError, Application, CrudRouter, FrameworkModel, type Policy } from '../../../lib/index.js';
import { serve, type TestServer } from '../../support/http.js';

class Secret extends FrameworkModel {}

/** Hides every stored record, as a policy hiding someone else's draft does. */
const hideAll: Policy = {
  name: 'hide_all',
  requiresUser: false,
  description: 'Nobody sees a record.',
  allows: ({ model, record, id }) => {
    if (record === undefined) return true;
    throw ApiError.recordNotFound(model, id);
  },
};

describe('ApiError.recordNotFound', () => {
  let app: Application;
  let server: TestServer;
  let stored: number;

  before(async () => {
    const adapter = new MemoryAdapter({
      models: [
        defineMemoryModel(Secret, {
          id: { type: 'integer', primary: true, generated: true },
          name: { type: 'string', maxLength: 20 },
        }),
      ],
    });
    app = new Application({ title: 'Secrets', adapter });
    new CrudRouter({
      model: Secret,
      policy: { GET: hideAll, PUT: hideAll, DELETE: hideAll },
    }).register_routes(app);
    server = await serve(app.callback());
    const created = await server.request('/secrets', { method: 'POST', json: { name: 'kept' } });
    stored = ((await created.json()) as { id: number }).id;
  });

  after(async () => {
    await server?.close();
    await app?.close();
  });

  async function answer(id: number, method: string) {
    const response = await server.request(`/secrets/${id}`, {
      method,
      ...(method === 'PUT' || method === 'PATCH' ? { json: { name: 'changed' } } : {}),
    });
    const headers = Object.fromEntries(
      [...response.headers].filter(([name]) => name !== 'date' && name !== 'content-length'),
    );
    // The detail names the id the path carries (JSON-escaped quotes around it).
    const body = (await response.text()).replaceAll(`\\"${id}\\"`, '\\"<id>\\"');
    return { status: response.status, headers, body };
  }

  it('a hidden record answers every method exactly as an id with no record', async () => {
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE']) {
      const hidden = await answer(stored, method);
      assert.equal(hidden.status, 404, method);
      assert.deepEqual(hidden, await answer(stored + 1000, method), method);
    }
  });

  it('says which record, cut like any echo of the request', () => {
    const error = ApiError.recordNotFound({ name: 'Article' }, 2);
    assert.deepEqual(
      [error.status, error.code, error.message],
      [404, 'not_found', 'No Article with id "2".'],
    );
    assert.equal(
      ApiError.recordNotFound({ name: 'Article' }, 'x'.repeat(500)).message,
      `No Article with id "${'x'.repeat(100)}".`,
    );
  });
});

describe('PolicyInput.id', () => {
  it('is the id of the path as the route read it, with the record; absent on list and create', async () => {
    const seen: { method: string; id: unknown; key: unknown }[] = [];
    const recording: Policy = {
      name: 'recording',
      requiresUser: false,
      description: 'Records what it is asked.',
      allows: ({ method, id, record }) => {
        seen.push({ method, id, key: record?.id });
        return true;
      },
    };
    const adapter = new MemoryAdapter({
      models: [
        defineMemoryModel(Secret, {
          id: { type: 'integer', primary: true, generated: true },
          name: { type: 'string', maxLength: 20 },
        }),
      ],
    });
    const app = new Application({ title: 'Ids', adapter });
    const policy = { GET: recording, POST: recording, PUT: recording, PATCH: recording, DELETE: recording };
    new CrudRouter({ model: Secret, policy }).register_routes(app);
    const server = await serve(app.callback());
    try {
      const created = await server.request('/secrets', { method: 'POST', json: { name: 'a' } });
      const id = ((await created.json()) as { id: number }).id;
      await server.request('/secrets');
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'])
        await server.request(`/secrets/${id}`, {
          method,
          ...(method === 'PUT' || method === 'PATCH' ? { json: { name: 'b' } } : {}),
        });
      assert.deepEqual(seen, [
        { method: 'POST', id: undefined, key: undefined },
        { method: 'GET', id: undefined, key: undefined },
        ...['GET', 'PUT', 'PATCH', 'DELETE'].map((method) => ({ method, id, key: id })),
      ]);
    } finally {
      await server.close();
      await app.close();
    }
  });
});
