/**
 * Relations in the MemoryAdapter's data methods: `links()`, many-to-many writes with their record,
 * what deletes do to links and references, and list filters and sort through a many-to-one.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { defineMemoryModel, MemoryAdapter, type MemorySession } from '../../../adapters/memory/index.js';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { FilterCondition, ListQuery, RawRecord, RelationLink, SortKey } from '../../../lib/types.js';
import { Author, Book, Category, createConformanceMemoryAdapter, Tag } from './conformance-models.js';

/** Asserts the promise rejects with an ApiError of that code whose `errors` name `paths`. */
async function rejectsWith(promise: Promise<unknown>, code: string, paths?: string[]): Promise<void> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ApiError, `ApiError, got ${String(error)}`);
  assert.equal(error.code, code);
  if (paths !== undefined)
    assert.deepEqual((error.errors ?? []).map((entry) => entry.path).sort(), [...paths].sort());
}

/** The links as `[owner, target]` pairs, easier to compare. */
function pairs(links: readonly RelationLink[]): [unknown, unknown][] {
  return links.map((link) => [link.owner, link.target]);
}

describe('MemoryAdapter relations', () => {
  let adapter: MemoryAdapter;
  let session: MemorySession;
  /** Tag ids 1..4 (t1..t4), authors 1 (ann) and 2 (bob), categories 1 (poetry) and 2 (drama). */
  beforeEach(async () => {
    adapter = createConformanceMemoryAdapter();
    session = adapter.openSession();
    for (const name of ['t1', 't2', 't3', 't4']) await adapter.create(session, Tag, { name });
    await adapter.create(session, Author, { name: 'ann' });
    await adapter.create(session, Author, { name: 'bob' });
    await adapter.create(session, Category, { name: 'poetry' });
    await adapter.create(session, Category, { name: 'drama' });
  });

  const tagsOf = async (...books: number[]): Promise<[unknown, unknown][]> =>
    pairs(await adapter.links(session, Book, 'tags', books, 100));

  describe('links()', () => {
    it('gives each owner’s links ordered by target key, at most perOwner, owners without links absent', async () => {
      await adapter.create(session, Book, { title: 'a', author: 1, tags: [4, 1, 3] });
      await adapter.create(session, Book, { title: 'b', author: 1, tags: [2] });
      await adapter.create(session, Book, { title: 'c', author: 2 });
      assert.deepEqual(await tagsOf(1, 2, 3), [
        [1, 1],
        [1, 3],
        [1, 4],
        [2, 2],
      ]);
      assert.deepEqual(pairs(await adapter.links(session, Book, 'tags', [2, 1], 2)), [
        [2, 2],
        [1, 1],
        [1, 3],
      ]);
      assert.deepEqual(
        pairs(await adapter.links(session, Book, 'tags', ['1', 99, 'x'], 1)),
        [[1, 1]],
        'keys come back in the stored type; unknown owners have no links',
      );
      assert.deepEqual(await adapter.links(session, Book, 'tags', [], 10), []);
    });

    it('reads a one-to-many through the target’s foreign key and an inverse many-to-many backwards', async () => {
      await adapter.create(session, Book, { title: 'a', author: 2, tags: [3] });
      await adapter.create(session, Book, { title: 'b', author: 1, tags: [3, 1] });
      await adapter.create(session, Book, { title: 'c', author: 2 });
      assert.deepEqual(pairs(await adapter.links(session, Author, 'books', [1, 2], 10)), [
        [1, 2],
        [2, 1],
        [2, 3],
      ]);
      assert.deepEqual(pairs(await adapter.links(session, Author, 'books', [2], 1)), [[2, 1]]);
      assert.deepEqual(pairs(await adapter.links(session, Tag, 'books', [3, 1, 2], 10)), [
        [3, 1],
        [3, 2],
        [1, 2],
      ]);
    });

    it('orders string keys by code point and returns them as strings', async () => {
      class Shelf extends FrameworkModel {}
      class Label extends FrameworkModel {}
      const memory = new MemoryAdapter({
        models: [
          defineMemoryModel(
            Shelf,
            { id: { type: 'string', primary: true } },
            { collections: { labels: { kind: 'many-to-many', target: () => Label } } },
          ),
          defineMemoryModel(Label, { code: { type: 'string', primary: true } }),
        ],
      });
      const own = memory.openSession();
      for (const code of ['b', 'B', 'a', '10', '9']) await memory.create(own, Label, { code });
      await memory.create(own, Shelf, { id: 's', labels: ['b', 'a', '9', 'B', '10'] });
      assert.deepEqual(pairs(await memory.links(own, Shelf, 'labels', ['s'], 10)), [
        ['s', '10'],
        ['s', '9'],
        ['s', 'B'],
        ['s', 'a'],
        ['s', 'b'],
      ]);
    });

    it('refuses an unknown collection as a programming error', async () => {
      await assert.rejects(adapter.links(session, Book, 'nope', [1], 1), TypeError);
    });
  });

  describe('many-to-many writes', () => {
    it('creates a record with its links; the row never holds the collection', async () => {
      const book = await adapter.create(session, Book, { title: 'a', author: 1, tags: [2, 1] });
      assert.deepEqual(book, { id: 1, title: 'a', author: 1, category: null });
      assert.deepEqual(await adapter.get(session, Book, 1), book);
      assert.deepEqual(await tagsOf(1), [
        [1, 1],
        [1, 2],
      ]);
      const listed = await adapter.list(session, Book, {
        filters: [],
        sort: [],
        limit: 10,
        offset: 0,
        withTotal: false,
      });
      assert.equal('tags' in (listed.rows[0] as RawRecord), false);
    });

    it('replaces the set on update, clears it with [], and leaves it when absent', async () => {
      await adapter.create(session, Book, { title: 'a', author: 1, tags: [1, 2] });
      const updated = await adapter.update(session, Book, 1, { tags: [3, 2] });
      assert.deepEqual(updated, { id: 1, title: 'a', author: 1, category: null });
      assert.deepEqual(await tagsOf(1), [
        [1, 2],
        [1, 3],
      ]);
      await adapter.update(session, Book, 1, { title: 'renamed' });
      assert.deepEqual(await tagsOf(1), [
        [1, 2],
        [1, 3],
      ]);
      await adapter.update(session, Book, 1, { tags: [] });
      assert.deepEqual(await tagsOf(1), []);
      assert.equal(await adapter.update(session, Book, 99, { tags: [1] }), undefined);
    });

    it('refuses bad keys by index and then writes neither the record nor its links', async () => {
      await rejectsWith(
        adapter.create(session, Book, { title: 'a', author: 1, tags: [1, 99, 'x', 1, null] }),
        'validation_failed',
        ['tags[1]', 'tags[2]', 'tags[3]', 'tags[4]'],
      );
      assert.equal(await adapter.get(session, Book, 1), undefined);
      await adapter.create(session, Book, { title: 'a', author: 1, tags: [1] });
      await rejectsWith(
        adapter.update(session, Book, 1, { title: 'b', tags: [2, 99] }),
        'validation_failed',
        ['tags[1]'],
      );
      assert.equal((await adapter.get(session, Book, 1))?.title, 'a');
      assert.deepEqual(await tagsOf(1), [[1, 1]]);
      await rejectsWith(adapter.update(session, Book, 1, { tags: 2 }), 'validation_failed', ['tags']);
    });

    it('leaves the links unchanged when the record write fails', async () => {
      await adapter.create(session, Book, { title: 'a', author: 1, tags: [1] });
      await adapter.create(session, Book, { title: 'b', author: 1, tags: [4] });
      await rejectsWith(adapter.create(session, Book, { title: 'c', tags: [2] }), 'validation_failed', [
        'author',
      ]);
      await rejectsWith(adapter.update(session, Book, 1, { author: 99, tags: [2, 3] }), 'validation_failed', [
        'author',
      ]);
      await rejectsWith(adapter.update(session, Book, 1, { id: 2, tags: [3] }), 'conflict', ['id']);
      assert.deepEqual(await tagsOf(1, 2, 3), [
        [1, 1],
        [2, 4],
      ]);
      assert.deepEqual(pairs(await adapter.links(session, Tag, 'books', [2, 3], 10)), []);
    });

    it('refuses a read-only collection in the data, naming it', async () => {
      await rejectsWith(adapter.update(session, Tag, 1, { books: [] }), 'validation_failed', ['books']);
      await rejectsWith(adapter.update(session, Author, 1, { books: [] }), 'validation_failed', ['books']);
    });

    it('moves the links with a changed key (ON UPDATE CASCADE)', async () => {
      await adapter.create(session, Book, { title: 'a', author: 1, tags: [1, 2] });
      await adapter.update(session, Book, 1, { id: 7 });
      assert.deepEqual(await tagsOf(1, 7), [
        [7, 1],
        [7, 2],
      ]);
      await adapter.update(session, Tag, 2, { id: 9 });
      assert.deepEqual(await tagsOf(7), [
        [7, 1],
        [7, 9],
      ]);
    });
  });

  it('lets a self-referencing many-to-many link a row to itself, and unlinks both sides on delete', async () => {
    class Person extends FrameworkModel {}
    const memory = new MemoryAdapter({
      models: [
        defineMemoryModel(
          Person,
          { id: { type: 'integer', primary: true } },
          {
            collections: {
              follows: { kind: 'many-to-many', target: () => Person },
              followers: { kind: 'many-to-many', target: () => Person, mappedBy: 'follows' },
            },
          },
        ),
      ],
    });
    const own = memory.openSession();
    await memory.create(own, Person, { id: 1, follows: [1] });
    await memory.create(own, Person, { id: 2, follows: [1] });
    await memory.update(own, Person, 1, { follows: [1, 2] });
    assert.deepEqual(pairs(await memory.links(own, Person, 'followers', [1, 2], 10)), [
      [1, 1],
      [1, 2],
      [2, 1],
    ]);
    await rejectsWith(memory.update(own, Person, 1, { id: 3, follows: [1] }), 'validation_failed', [
      'follows[0]',
    ]);
    assert.equal(await memory.delete(own, Person, 1), true);
    assert.deepEqual(pairs(await memory.links(own, Person, 'follows', [2], 10)), []);
    assert.deepEqual(pairs(await memory.links(own, Person, 'followers', [2], 10)), []);
  });

  describe('deletes', () => {
    it('removes a deleted record’s links, on either side', async () => {
      await adapter.create(session, Book, { title: 'a', author: 1, tags: [1, 2] });
      await adapter.create(session, Book, { title: 'b', author: 1, tags: [2, 3] });
      assert.equal(await adapter.delete(session, Book, 1), true);
      assert.deepEqual(pairs(await adapter.links(session, Tag, 'books', [1, 2, 3], 10)), [
        [2, 2],
        [3, 2],
      ]);
      assert.equal(await adapter.delete(session, Tag, 2), true);
      assert.deepEqual(await tagsOf(2), [[2, 3]]);
      // A new book reusing no id: the old links never reappear.
      await adapter.create(session, Book, { title: 'c', author: 1, id: 1 });
      assert.deepEqual(await tagsOf(1), []);
    });

    it('treats one-to-many targets like many-to-one references: required restricts, nullable is set to NULL', async () => {
      await adapter.create(session, Book, { title: 'a', author: 1, category: 1 });
      await rejectsWith(adapter.delete(session, Author, 1), 'conflict');
      assert.deepEqual(pairs(await adapter.links(session, Author, 'books', [1], 10)), [[1, 1]]);
      assert.equal(await adapter.delete(session, Category, 1), true);
      assert.equal((await adapter.get(session, Book, 1))?.category, null);
      assert.equal(await adapter.delete(session, Book, 1), true);
      assert.deepEqual(pairs(await adapter.links(session, Author, 'books', [1], 10)), []);
      assert.equal(await adapter.delete(session, Author, 1), true);
    });
  });

  describe('list through a many-to-one', () => {
    beforeEach(async () => {
      await adapter.create(session, Book, { title: 'a', author: 2, category: 2 });
      await adapter.create(session, Book, { title: 'b', author: 1, category: null });
      await adapter.create(session, Book, { title: 'c', author: 1, category: 1 });
      await adapter.create(session, Book, { title: 'd', author: 2, category: null });
    });

    async function titles(filters: FilterCondition[], sort: SortKey[] = [], page: Partial<ListQuery> = {}) {
      const result = await adapter.list(session, Book, {
        filters,
        sort,
        limit: 100,
        offset: 0,
        withTotal: true,
        ...page,
      });
      return result.rows.map((row) => row.title);
    }
    const f = (field: string, op: FilterCondition['op'], value: unknown): FilterCondition => ({
      field,
      op,
      value,
    });

    it('filters by a field of the related record', async () => {
      assert.deepEqual(await titles([f('author.name', '$eq', 'ann')]), ['b', 'c']);
      assert.deepEqual(await titles([f('category.name', '$in', ['drama', 'poetry'])]), ['a', 'c']);
      assert.deepEqual(await titles([f('category.name', '$like', 'po%'), f('author.name', '$eq', 'ann')]), [
        'c',
      ]);
      assert.deepEqual(await titles([f('author.id', '$gt', 1)]), ['a', 'd']);
    });

    it('never matches a row whose relation is NULL, whatever the operator', async () => {
      assert.deepEqual(await titles([f('category.name', '$ne', 'drama')]), ['c']);
      assert.deepEqual(await titles([f('category.name', '$nin', ['drama'])]), ['c']);
      assert.deepEqual(await titles([f('category.name', '$eq', null)]), []);
      assert.deepEqual(await titles([f('category.id', '$ne', null)]), ['a', 'c']);
    });

    it('sorts by the related value, a NULL relation like a NULL value (last ascending, first descending)', async () => {
      const asc = { field: 'category.name', direction: 'asc' } as const;
      const desc = { field: 'category.name', direction: 'desc' } as const;
      const byId = { field: 'id', direction: 'asc' } as const;
      assert.deepEqual(await titles([], [asc, byId]), ['a', 'c', 'b', 'd']);
      assert.deepEqual(await titles([], [desc, byId]), ['b', 'd', 'c', 'a']);
      assert.deepEqual(await titles([], [{ field: 'author.name', direction: 'desc' }, byId]), [
        'a',
        'd',
        'b',
        'c',
      ]);
      assert.deepEqual(await titles([], [asc, byId], { offset: 1, limit: 2 }), ['c', 'b']);
    });

    it('refuses a path that is not one step through a many-to-one to a field, with 400', async () => {
      for (const field of ['author.nope', 'title.length', 'nope.name', 'author.', '.name']) {
        await rejectsWith(titles([f(field, '$eq', 'x')]), 'invalid_query');
        await rejectsWith(titles([], [{ field, direction: 'asc' }]), 'invalid_query');
      }
      await rejectsWith(titles([f('author.id', '$eq', 'x')]), 'invalid_query');
    });
  });
});
