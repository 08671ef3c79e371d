/**
 * A PostgreSQL database dropped (or not yet restored) under a running application: every new
 * connection fails with 3D000. Requests answer 503 with Retry-After, as for a server that is down,
 * and readiness fails with them; never a 500.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Note, User } from '../../../examples/recipes/getting-started/entities.js';
import { Application, CrudRouter } from '../../../lib/index.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';

const silent = { info() {}, warn() {}, error() {} };

describe('a PostgreSQL database dropped under a running app', await requireTarget('postgresql'), () => {
  let database: TestDatabase;
  let adapter: MikroOrmAdapter;
  let server: TestServer;

  before(async () => {
    database = await createTestDatabase('postgresql');
    // ensureDatabase off: MikroORM would otherwise create a missing database when it connects.
    adapter = await MikroOrmAdapter.connect({
      url: database.url,
      entities: [User, Note],
      schema: 'create',
      ensureDatabase: false,
    });
    const app = new Application({ title: 'dropped', adapter, logger: silent });
    new CrudRouter({ model: Note }).register_routes(app);
    server = await serve(app.callback());
    assert.equal((await server.request('/notes')).status, 200);
    await database.drop();
  });
  after(async () => {
    await server?.close();
    await adapter?.close();
    await database?.drop();
  });

  it('answers 503 with Retry-After to reads and writes, and readiness fails', async () => {
    for (const [path, init] of [
      ['/notes', {}],
      ['/notes/1', {}],
      ['/notes', { method: 'POST', json: { title: 'lost', body: 'x', owner: 1 } }],
    ] as const) {
      const answer = await server.request(path, init);
      assert.equal(answer.status, 503, `${init.method ?? 'GET'} ${path}: ${await answer.clone().text()}`);
      assert.equal(answer.headers.get('retry-after'), '5');
    }
    assert.equal((await server.request('/health/ready')).status, 503);
  });
});
