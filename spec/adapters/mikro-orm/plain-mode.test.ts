/**
 * The plain path's records keep the API's shapes whatever the session holds: a many-to-one whose
 * target the request already loaded (the caller, read by the auth dependency) is still its key,
 * although MikroORM's `populateAfterFlush` marks it populated and `toObject()` would nest it.
 * A write sends what a MikroORM application sends (counted with MikroORM's query logger): the
 * answer is the entity after flush, and only a model whose entity after flush may differ from its
 * row (adapters/mikro-orm/read-back.ts) reads the row back, with one select.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Priced } from '../../fixtures/mikro-orm/fidelity.js';
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
    const lines: string[] = [];

    before(async () => {
      db = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Author, Book, Category, Tag, Priced],
        schema: 'create',
        mode: 'plain',
        logger: (message: string) => lines.push(message),
        colors: false,
      });
    });

    /** The statements `run` sends, by first word; query logging is on only meanwhile. */
    async function counted<T>(run: () => Promise<T>): Promise<[T, string[]]> {
      // Through the configuration: MikroORM resets the logger's mode from it on every `config.set`.
      const { config } = adapter.orm;
      lines.length = 0;
      config.set('debug', ['query']);
      try {
        const result = await run();
        return [result, lines.map((line) => (/(?:\[query\]\s*)?(\w+)/.exec(line)?.[1] ?? '').toLowerCase())];
      } finally {
        config.set('debug', false);
      }
    }
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

    it('a create and an update send what a MikroORM application sends: no read after the write', async () => {
      const author = await adapter.create(adapter.openSession(), Author, { name: 'Counted' });
      const [book, created] = await counted(() =>
        adapter.create(adapter.openSession(), Book, { title: 'One', author: author.id }),
      );
      assert.deepEqual(created, ['begin', 'insert', 'commit']);
      assert.deepEqual(book, { id: book.id, title: 'One', author: author.id, category: null });
      const [updated, changed] = await counted(() =>
        adapter.update(adapter.openSession(), Book, book.id as number, { title: 'Two' }),
      );
      assert.deepEqual(changed, ['select', 'begin', 'update', 'commit']);
      assert.deepEqual(updated, { ...book, title: 'Two' });
      assert.deepEqual(await adapter.get(adapter.openSession(), Book, book.id as number), updated);
    });

    it('a model whose entity after flush may differ from its row (a decimal) reads it back with one select, in the write transaction', async () => {
      const [priced, created] = await counted(() =>
        adapter.create(adapter.openSession(), Priced, { price: '3.4' }),
      );
      // In the insert's transaction: an answer that cannot be read leaves no row behind.
      assert.deepEqual(created, ['begin', 'insert', 'select', 'commit']);
      // As the database stores it: PostgreSQL and MariaDB at the column's scale, SQLite as a number.
      assert.equal(priced.price, target.startsWith('sqlite') ? '3.4' : '3.40');
      const [, changed] = await counted(() =>
        adapter.update(adapter.openSession(), Priced, priced.id as number, { price: '0.5' }),
      );
      assert.deepEqual(changed, ['begin', 'select', 'update', 'select', 'commit']);
    });
  });
}
