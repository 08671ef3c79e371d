/**
 * Cases: filters and sort through a many-to-one (`filter[author.name]=…`, `sort=author.name,-id`)
 * and the relation paths the core refuses. Rows with a null relation never match a filter.
 */
import assert from 'node:assert/strict';
import { expectProblem, expectRows, parseLinks } from '../assertions.js';
import type { CaseContext, ConformanceCase } from '../context.js';
import { type JsonObject, query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';
import { createAuthor, createBook, createCategory, listBooks, ownBooks, read, titles } from './library.js';

/** The authors and categories of a seeded shelf. */
interface Shelf {
  readonly ann: JsonObject;
  readonly bob: JsonObject;
  readonly cy: JsonObject;
  readonly fiction: JsonObject;
  readonly poetry: JsonObject;
}

/** Six books over three authors and two categories (three books without one). */
async function seedShelf(ctx: CaseContext): Promise<Shelf> {
  const ann = await createAuthor(ctx, 'ann');
  const bob = await createAuthor(ctx, 'bob');
  const cy = await createAuthor(ctx, 'cy');
  const fiction = await createCategory(ctx, 'fiction');
  const poetry = await createCategory(ctx, 'poetry');
  // Created in an order unlike the author order, so that sorting by key alone would differ.
  await createBook(ctx, 'c1', cy);
  await createBook(ctx, 'a1', ann, { category: fiction.id });
  await createBook(ctx, 'b1', bob, { category: poetry.id });
  await createBook(ctx, 'a2', ann);
  await createBook(ctx, 'b2', bob, { category: fiction.id });
  await createBook(ctx, 'c2', cy);
  return { ann, bob, cy, fiction, poetry };
}

/** Asserts each filter selects exactly these books (compared sorted by title). */
async function expectBooks(
  ctx: CaseContext,
  expectations: readonly [Record<string, string>, string[]][],
): Promise<void> {
  for (const [params, expected] of expectations) {
    const rows = await listBooks(ctx, { ...params, sort: 'title' });
    assert.deepEqual(titles(ctx, rows), [...expected].sort(), `books matching ${JSON.stringify(params)}`);
  }
}

/** Asserts every request is a 400 `invalid_query`. */
async function expectRefused(
  ctx: CaseContext,
  path: string,
  refused: readonly Record<string, string>[],
): Promise<void> {
  for (const params of refused)
    expectProblem(await ctx.http.get(`${path}${query(params)}`), 400, ['invalid_query']);
}

export const relationQueryCases = {
  'relation-filter-many-to-one': {
    description:
      'filter[author.name] with $eq, $ne, $in, $nin, $gt, $like, $ilike selects by the related record; a null relation never matches',
    async run(ctx) {
      const { ann, cy, fiction } = await seedShelf(ctx);
      const p = ctx.prefix;
      await expectBooks(ctx, [
        [{ 'filter[author.name]': `${p}-ann` }, ['a1', 'a2']],
        [{ 'filter[author.name][$eq]': `${p}-bob` }, ['b1', 'b2']],
        [{ 'filter[author.name][$ne]': `${p}-ann` }, ['b1', 'b2', 'c1', 'c2']],
        [{ 'filter[author.name][$in]': `${p}-ann,${p}-cy` }, ['a1', 'a2', 'c1', 'c2']],
        [{ 'filter[author.name][$nin]': `${p}-ann,${p}-bob` }, ['c1', 'c2']],
        [{ 'filter[author.name][$gt]': `${p}-b` }, ['b1', 'b2', 'c1', 'c2']],
        [{ 'filter[author.name][$like]': `${p}-b%` }, ['b1', 'b2']],
        [{ 'filter[author.name][$like]': `${p}-_y` }, ['c1', 'c2']],
        [{ 'filter[author.name][$ilike]': `${p.toUpperCase()}-ANN` }, ['a1', 'a2']],
        [{ 'filter[author.id][$in]': `${ann.id},${cy.id}` }, ['a1', 'a2', 'c1', 'c2']],
        [{ 'filter[author.name]': `${p}-nobody` }, []],
        // Rows whose category is null match no condition on it, not even $ne or $nin.
        [{ 'filter[category.name]': `${p}-fiction` }, ['a1', 'b2']],
        [{ 'filter[category.name][$ne]': `${p}-fiction` }, ['b1']],
        [{ 'filter[category.name][$nin]': `${p}-poetry` }, ['a1', 'b2']],
        [{ 'filter[category.name][$like]': `${p}-%` }, ['a1', 'b1', 'b2']],
        // Relation conditions combine with each other and with the book's own fields.
        [{ 'filter[author.name]': `${p}-bob`, 'filter[category.name]': `${p}-fiction` }, ['b2']],
        [{ 'filter[author.name]': `${p}-ann`, 'filter[category]': String(fiction.id) }, ['a1']],
        [
          { 'filter[author.name][$like]': `${p}-%`, 'filter[title][$gt]': `${p}-b` },
          ['b1', 'b2', 'c1', 'c2'],
        ],
      ]);
      const counted = await ctx.http.get(
        `/books${query({ ...ownBooks(ctx), 'filter[author.name]': `${p}-ann`, limit: 1, include: 'author' })}`,
      );
      const rows = expectRows(counted);
      assert.equal(counted.headers.get('x-total-count'), '2', 'X-Total-Count counts through the relation');
      assert.deepEqual(rows[0]?.author, await read(ctx, `/authors/${ann.id}`), 'with include= as well');
    },
  },

  'relation-sort-many-to-one': {
    description:
      'sort=author.name,-id orders by the related record, then the next keys; offset pages follow it',
    async run(ctx) {
      await seedShelf(ctx);
      const sorted = async (sort: string) => titles(ctx, await listBooks(ctx, { sort }));
      assert.deepEqual(await sorted('author.name,-id'), ['a2', 'a1', 'b2', 'b1', 'c2', 'c1']);
      assert.deepEqual(await sorted('-author.name,id'), ['c1', 'c2', 'b1', 'b2', 'a1', 'a2']);
      assert.deepEqual(await sorted('author.name,title'), ['a1', 'a2', 'b1', 'b2', 'c1', 'c2']);
      assert.deepEqual(await sorted('-author.id,-title'), ['c2', 'c1', 'b2', 'b1', 'a2', 'a1']);
      // Only rows with a category: where NULL sorts is the database's choice.
      const categorised = await listBooks(ctx, {
        'filter[category.name][$like]': `${ctx.prefix}-%`,
        sort: '-category.name,title',
      });
      assert.deepEqual(titles(ctx, categorised), ['b1', 'a1', 'b2']);

      const pages: string[] = [];
      let next: string | undefined =
        `/books${query({ ...ownBooks(ctx), sort: 'author.name,-id', limit: 4 })}`;
      while (next !== undefined) {
        assert.ok(pages.length < 10, 'the Link walk ends');
        const page = await ctx.http.get(next);
        pages.push(...titles(ctx, expectRows(page)));
        assert.equal(page.headers.get('x-total-count'), '6');
        next = parseLinks(page.headers.get('link')).next;
      }
      assert.deepEqual(pages, ['a2', 'a1', 'b2', 'b1', 'c2', 'c1'], 'next links keep the relation sort');
    },
  },

  'relation-filter-sort-refusals-400': {
    description:
      'a relation path to an unknown field, through a collection, two relations deep, or with $exists, in filter or sort, is 400',
    async run(ctx) {
      await expectRefused(ctx, '/books', [
        { 'filter[author.nope]': 'x' },
        { sort: 'author.nope' },
        { 'filter[nope.name]': 'x' },
        { sort: '-nope.name' },
        { 'filter[author.name][$exists]': 'true' },
        { 'filter[category.name][$exists]': 'false' },
        { 'filter[author.name][$regex]': 'x' },
        { 'filter[author.id][$gt]': 'abc' },
        { 'filter[tags.name]': 'x' },
        { sort: 'tags.name' },
        { 'filter[author.books.title]': 'x' },
        { sort: 'author.books.title' },
        { 'filter[title.length]': '1' },
        { fields: 'author.name' },
      ]);
      await expectRefused(ctx, '/authors', [{ 'filter[books.title]': 'x' }, { sort: 'books.title' }]);
      await expectRefused(ctx, '/labels', [{ 'filter[books.title]': 'x' }, { sort: '-books.id' }]);
    },
  },

  'relation-keyset-after-400': {
    description: 'after= with a sort key through a relation is 400; offset paging still takes that sort',
    async run(ctx) {
      await seedShelf(ctx);
      await expectRefused(ctx, '/books', [
        { ...ownBooks(ctx), sort: 'author.name', after: '' },
        { ...ownBooks(ctx), sort: 'author.name,-id', after: '' },
        { ...ownBooks(ctx), sort: 'title,-author.id', after: '' },
        { ...ownBooks(ctx), sort: '-category.name', after: '' },
      ]);
      assert.equal((await listBooks(ctx, { sort: 'author.name', limit: 2 })).length, 2);
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
