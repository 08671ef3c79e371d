/**
 * A database dropped (or not yet restored) under a running application: PostgreSQL fails every
 * new connection with 3D000; MariaDB keeps the connections it pooled before, which still answer
 * `select 1` but find no table (1146), and fails new ones with 1049. Requests answer 503 with
 * Retry-After, as for a server that is down, and readiness fails with them; never a 500. Both modes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Note, User } from '../../../examples/recipes/getting-started/entities.js';
import { Application, CrudRouter } from '../../../lib/index.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';

const silent = { info() {}, warn() {}, error() {} };

for (const target of ['postgresql', 'mariadb'] as const) {
  for (const mode of ['fast', 'plain'] as const) {
    describe(
      `a ${target} database dropped under a running app (${mode} mode)`,
      await requireTarget(target),
      () => {
        let database: TestDatabase;
        let adapter: MikroOrmAdapter;
        let server: TestServer;

        before(async () => {
          database = await createTestDatabase(target);
          // ensureDatabase off: MikroORM would otherwise create a missing database when it connects.
          adapter = await MikroOrmAdapter.connect({
            url: database.url,
            entities: [User, Note],
            schema: 'create',
            ensureDatabase: false,
            ...(mode === 'plain' ? { mode } : {}),
          });
          const app = new Application({ title: 'dropped', adapter, logger: silent });
          new CrudRouter({ model: Note }).register_routes(app);
          server = await serve(app.callback());
          // Pooled connections that outlive the drop (MariaDB keeps them).
          assert.equal((await server.request('/notes')).status, 200);
          assert.equal((await server.request('/health/ready')).status, 200);
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
            ['/notes/1', { method: 'PATCH', json: { title: 'lost' } }],
            ['/notes/1', { method: 'DELETE' }],
          ] as const) {
            const answer = await server.request(path, init);
            assert.equal(
              answer.status,
              503,
              `${init.method ?? 'GET'} ${path}: ${await answer.clone().text()}`,
            );
            assert.equal(answer.headers.get('retry-after'), '5');
          }
          assert.equal((await server.request('/health/ready')).status, 503);
        });
      },
    );
  }
}
