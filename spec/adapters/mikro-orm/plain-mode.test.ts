/**
 * The plain path's records keep the API's shapes whatever the session holds: a many-to-one whose
 * target the request already loaded (the caller, read by the auth dependency) is still its key,
 * although MikroORM's `populateAfterFlush` marks it populated and `toObject()` would nest it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Author, Book, Category, Tag } from '../../fixtures/mikro-orm/library.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

for (const target of databaseTargets()) {
  describe(`plain path records on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    let adapter: MikroOrmAdapter;

    before(async () => {
      db = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Author, Book, Category, Tag],
        schema: 'create',
        mode: 'plain',
      });
    });
    after(async () => {
      await adapter.close();
      await db.drop();
    });

    it('answers a many-to-one as its key when the target is loaded in the same session', async () => {
      const author = await adapter.create(adapter.openSession(), Author, { name: 'Ann' });
      const session = adapter.openSession();
      // The request's first read loads the author into the session, as the auth dependency does.
      assert.deepEqual(await adapter.get(session, Author, author.id as number), author);
      const book = await adapter.create(session, Book, { title: 'One', author: author.id });
      assert.equal(book.author, author.id);
      const updated = await adapter.update(session, Book, book.id as number, { title: 'Two' });
      assert.equal(updated?.author, author.id);
      const listed = await adapter.list(session, Book, {
        filters: [],
        sort: [],
        limit: 10,
        offset: 0,
        withTotal: false,
      });
      assert.deepEqual(listed.rows, [{ id: book.id, title: 'Two', author: author.id, category: null }]);
    });
  });
}
