/**
 * Cases: `include=` on list and read routes, one and two levels deep. An embedded record must
 * equal what `GET` of that record answers; to-many relations come ordered by target key.
 */
import assert from 'node:assert/strict';
import { expectRecord, expectRows } from '../assertions.js';
import type { ConformanceCase } from '../context.js';
import { type JsonObject, query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';
import {
  createAuthor,
  createBook,
  createCategory,
  createTag,
  embeddedList,
  listAuthors,
  listBooks,
  read,
  readAll,
} from './library.js';

export const includeCases = {
  'include-many-to-one': {
    description:
      'include=author replaces the key by the author on list and read routes, equal to GET of that author',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const bob = await createAuthor(ctx, 'bob');
      const one = await createBook(ctx, 'one', ann);
      const two = await createBook(ctx, 'two', bob);
      const three = await createBook(ctx, 'three', ann);
      const [annRead, bobRead] = await readAll(ctx, '/authors', [ann, bob]);
      assert.deepEqual(
        await read(ctx, `/books/${one.id}${query({ include: 'author' })}`),
        { ...one, author: annRead },
        'read route',
      );
      assert.deepEqual(
        await listBooks(ctx, { include: 'author', sort: 'id' }),
        [
          { ...one, author: annRead },
          { ...two, author: bobRead },
          { ...three, author: annRead },
        ],
        'list route: each row its own author, a repeated author embedded each time',
      );
      // Without include= the relation stays the key.
      assert.deepEqual(await read(ctx, `/books/${one.id}`), one);
      assert.equal(one.author, ann.id);
    },
  },

  'include-many-to-one-null': {
    description:
      'an included many-to-one whose key is null is null; include may list several names or repeat',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const fiction = await createCategory(ctx, 'fiction');
      const filed = await createBook(ctx, 'filed', ann, { category: fiction.id });
      const loose = await createBook(ctx, 'loose', ann);
      assert.equal(filed.category, fiction.id);
      assert.equal(loose.category, null, 'a nullable many-to-one is null when not given');
      const [annRead, fictionRead] = [
        await read(ctx, `/authors/${ann.id}`),
        await read(ctx, `/categories/${fiction.id}`),
      ];
      assert.deepEqual(await read(ctx, `/books/${loose.id}${query({ include: 'category' })}`), loose);
      const expected = [
        { ...filed, author: annRead, category: fictionRead },
        { ...loose, author: annRead, category: null },
      ];
      assert.deepEqual(await listBooks(ctx, { include: 'author,category', sort: 'id' }), expected);
      const repeated = expectRows(
        await ctx.http.get(
          `/books${query({ 'filter[title][$like]': `${ctx.prefix}-%`, sort: 'id' })}&include=author&include=category`,
        ),
      );
      assert.deepEqual(repeated, expected, 'include= given twice');
    },
  },

  'include-one-to-many-ordered-by-key': {
    description:
      'include=books on authors embeds each author’s books ordered by key (an empty array for none), each equal to GET of that book',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const bob = await createAuthor(ctx, 'bob');
      const cy = await createAuthor(ctx, 'cy');
      // Titles run against key order, and one book changes author: only the key decides the order.
      const z = await createBook(ctx, 'z', bob);
      const y = await createBook(ctx, 'y', ann);
      const w = await createBook(ctx, 'w', bob);
      const x = await createBook(ctx, 'x', ann);
      expectRecord(await ctx.http.patch(`/books/${z.id}`, { author: ann.id }), 200);
      const [zRead, yRead, wRead, xRead] = await readAll(ctx, '/books', [z, y, w, x]);
      const annRead = await read(ctx, `/authors/${ann.id}`);
      assert.deepEqual(await read(ctx, `/authors/${ann.id}${query({ include: 'books' })}`), {
        ...annRead,
        books: [zRead, yRead, xRead],
      });
      const rows = await listAuthors(ctx, { include: 'books' });
      assert.deepEqual(
        rows.map((row) => row.id),
        [ann.id, bob.id, cy.id],
      );
      assert.deepEqual(embeddedList(rows[0]?.books, 'ann books'), [zRead, yRead, xRead]);
      assert.deepEqual(embeddedList(rows[1]?.books, 'bob books'), [wRead]);
      assert.deepEqual(embeddedList(rows[2]?.books, 'cy books'), [], 'an author without books: []');
      assert.ok(!('books' in annRead), 'a collection is not part of the record without include=');
    },
  },

  'include-many-to-many-both-sides': {
    description:
      'include=tags on books and include=books on tags (the inverse side) embed the linked records ordered by key',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const t1 = await createTag(ctx, 't1');
      const t2 = await createTag(ctx, 't2');
      const t3 = await createTag(ctx, 't3');
      const t4 = await createTag(ctx, 't4');
      // Written against key order: the embedded order comes from the keys, not from the write.
      const first = await createBook(ctx, 'first', ann, { tags: [t3.id, t1.id] });
      const second = await createBook(ctx, 'second', ann, { tags: [t1.id] });
      const third = await createBook(ctx, 'third', ann);
      const [r1, r2, r3, r4] = await readAll(ctx, '/labels', [t1, t2, t3, t4]);
      const [firstRead, secondRead, thirdRead] = await readAll(ctx, '/books', [first, second, third]);
      assert.deepEqual(await read(ctx, `/books/${first.id}${query({ include: 'tags' })}`), {
        ...firstRead,
        tags: [r1, r3],
      });
      assert.deepEqual(await listBooks(ctx, { include: 'tags', sort: 'id' }), [
        { ...firstRead, tags: [r1, r3] },
        { ...secondRead, tags: [r1] },
        { ...thirdRead, tags: [] },
      ]);
      assert.deepEqual(await read(ctx, `/labels/${t1.id}${query({ include: 'books' })}`), {
        ...r1,
        books: [firstRead, secondRead],
      });
      const tags = expectRows(
        await ctx.http.get(
          `/labels${query({ 'filter[name][$like]': `${ctx.prefix}-%`, sort: 'id', include: 'books' })}`,
        ),
      );
      assert.deepEqual(tags, [
        { ...r1, books: [firstRead, secondRead] },
        { ...r2, books: [] },
        { ...r3, books: [firstRead] },
        { ...r4, books: [] },
      ]);
      const both = await read(ctx, `/books/${first.id}${query({ include: 'tags,author' })}`);
      assert.deepEqual(both, { ...firstRead, author: await read(ctx, `/authors/${ann.id}`), tags: [r1, r3] });
      assert.ok(
        !('tags' in (firstRead as JsonObject)) && !('books' in (r1 as JsonObject)),
        'no collection without include=',
      );
    },
  },

  'include-depth-2': {
    description:
      'a dotted include (authors?include=books.tags, books?include=author.books, books?include=tags.books) embeds two levels',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const bob = await createAuthor(ctx, 'bob');
      const t1 = await createTag(ctx, 't1');
      const t2 = await createTag(ctx, 't2');
      const a1 = await createBook(ctx, 'a1', ann, { tags: [t2.id, t1.id] });
      const a2 = await createBook(ctx, 'a2', ann);
      const b1 = await createBook(ctx, 'b1', bob, { tags: [t2.id] });
      const [annRead, bobRead] = await readAll(ctx, '/authors', [ann, bob]);
      const [a1Read, a2Read, b1Read] = await readAll(ctx, '/books', [a1, a2, b1]);
      const [t1Read, t2Read] = await readAll(ctx, '/labels', [t1, t2]);

      const annDeep = {
        ...annRead,
        books: [
          { ...a1Read, tags: [t1Read, t2Read] },
          { ...a2Read, tags: [] },
        ],
      };
      const bobDeep = { ...bobRead, books: [{ ...b1Read, tags: [t2Read] }] };
      assert.deepEqual(await listAuthors(ctx, { include: 'books.tags' }), [annDeep, bobDeep]);
      assert.deepEqual(await read(ctx, `/authors/${ann.id}${query({ include: 'books.tags' })}`), annDeep);

      const annWithBooks = { ...annRead, books: [a1Read, a2Read] };
      assert.deepEqual(await listBooks(ctx, { include: 'author.books', sort: 'id' }), [
        { ...a1Read, author: annWithBooks },
        { ...a2Read, author: annWithBooks },
        { ...b1Read, author: { ...bobRead, books: [b1Read] } },
      ]);
      assert.deepEqual(await read(ctx, `/books/${a1.id}${query({ include: 'tags.books,author' })}`), {
        ...a1Read,
        author: annRead,
        tags: [
          { ...t1Read, books: [a1Read] },
          { ...t2Read, books: [a1Read, b1Read] },
        ],
      });
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
