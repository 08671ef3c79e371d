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
  allows: ({ model, record }) => {
    if (record === undefined) return true;
    throw ApiError.recordNotFound(model, record[model.primaryKey]);
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
