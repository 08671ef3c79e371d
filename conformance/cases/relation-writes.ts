/**
 * Cases: many-to-many writes (`"tags": [1, 4]` on create and update, in one transaction with the
 * record), their 422s, and collections a client may not write (one-to-many, inverse many-to-many).
 */
import assert from 'node:assert/strict';
import {
  errorPaths,
  expectInvalidFields,
  expectProblem,
  expectRecord,
  expectRows,
  expectStatus,
} from '../assertions.js';
import type { ConformanceCase } from '../context.js';
import { query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';
import {
  bookIdsOfTag,
  createAuthor,
  createBook,
  createTag,
  embeddedList,
  ids,
  itemPath,
  listBooks,
  MISSING_ID,
  read,
  tagsOf,
} from './library.js';

export const relationWriteCases = {
  'many-to-many-write-create-and-update': {
    description:
      'tags as an array of keys on create and update: replaces the set, [] clears it, an update without tags keeps it',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const t1 = await createTag(ctx, 't1');
      const t2 = await createTag(ctx, 't2');
      const t3 = await createTag(ctx, 't3');
      const book = await createBook(ctx, 'book', ann, { tags: [t3.id, t1.id] });
      assert.ok(!('tags' in book), 'the response is the record, without the collection');
      assert.deepEqual(await read(ctx, `/books/${book.id}`), book);
      assert.deepEqual(await tagsOf(ctx, book), [
        await read(ctx, `/labels/${t1.id}`),
        await read(ctx, `/labels/${t3.id}`),
      ]);
      assert.deepEqual(await bookIdsOfTag(ctx, t3), [book.id], 'the inverse side sees the link');

      const replaced = expectRecord(await ctx.http.patch(`/books/${book.id}`, { tags: [t2.id] }), 200);
      assert.deepEqual(replaced, book);
      assert.deepEqual(ids(await tagsOf(ctx, book)), [t2.id], 'PATCH replaces the set');
      assert.deepEqual(await bookIdsOfTag(ctx, t1), []);

      const renamed = expectRecord(
        await ctx.http.patch(`/books/${book.id}`, { title: `${ctx.prefix}-renamed` }),
        200,
      );
      assert.equal(renamed.title, `${ctx.prefix}-renamed`);
      assert.deepEqual(ids(await tagsOf(ctx, book)), [t2.id], 'an update without tags keeps them');

      expectRecord(await ctx.http.put(`/books/${book.id}`, { tags: [t1.id, t2.id, t3.id] }), 200);
      assert.deepEqual(ids(await tagsOf(ctx, book)), [t1.id, t2.id, t3.id], 'PUT replaces the set');
      expectRecord(await ctx.http.put(`/books/${book.id}`, { tags: [] }), 200);
      assert.deepEqual(await tagsOf(ctx, book), [], 'an empty array clears the set');
      expectRecord(
        await ctx.http.patch(`/books/${book.id}`, { tags: [t3.id], title: `${ctx.prefix}-both` }),
        200,
      );
      assert.deepEqual(ids(await tagsOf(ctx, book)), [t3.id]);
      assert.equal(
        (await read(ctx, `/books/${book.id}`)).title,
        `${ctx.prefix}-both`,
        'record and links together',
      );

      const bare = await createBook(ctx, 'bare', ann, { tags: [] });
      assert.deepEqual(await tagsOf(ctx, bare), []);
      // A writable collection is not refused by a strict router.
      const strict = expectRecord(
        await ctx.strictHttp.post('/books', { title: `${ctx.prefix}-strict`, author: ann.id, tags: [t2.id] }),
        201,
      );
      assert.deepEqual(ids(await tagsOf(ctx, strict)), [t2.id]);
      expectRecord(await ctx.strictHttp.patch(`/books/${strict.id}`, { tags: [t1.id] }), 200);
      assert.deepEqual(ids(await tagsOf(ctx, strict)), [t1.id]);
    },
  },

  'many-to-many-unknown-keys-422': {
    description:
      'tag keys with no record give 422 naming tags.<index> once per bad index; nothing is written',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const t1 = await createTag(ctx, 't1');
      const t2 = await createTag(ctx, 't2');
      const title = `${ctx.prefix}-refused`;
      expectInvalidFields(
        await ctx.http.post('/books', {
          title,
          author: ann.id,
          tags: [t1.id, MISSING_ID, t2.id, MISSING_ID + 1],
        }),
        [itemPath('tags', 1), itemPath('tags', 3)],
      );
      assert.deepEqual(await listBooks(ctx, {}), [], 'the refused create stored nothing');
      assert.deepEqual(await bookIdsOfTag(ctx, t1), []);

      const book = await createBook(ctx, 'book', ann, { tags: [t1.id] });
      expectInvalidFields(await ctx.http.patch(`/books/${book.id}`, { tags: [MISSING_ID, t2.id] }), [
        itemPath('tags', 0),
      ]);
      expectInvalidFields(await ctx.http.put(`/books/${book.id}`, { tags: [t2.id, MISSING_ID] }), [
        itemPath('tags', 1),
      ]);
      assert.deepEqual(ids(await tagsOf(ctx, book)), [t1.id], 'the links are unchanged');
    },
  },

  'many-to-many-duplicates-and-types-422': {
    description:
      'a repeated tag key, an item not of the key type, a value that is not an array or over 1000 items is 422',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const t1 = await createTag(ctx, 't1');
      const t2 = await createTag(ctx, 't2');
      const title = `${ctx.prefix}-refused`;
      const post = (tags: unknown) => ctx.http.post('/books', { title, author: ann.id, tags });
      expectInvalidFields(await post([t1.id, t2.id, t1.id]), [itemPath('tags', 2)]);
      expectInvalidFields(await post([t1.id, 'x']), [itemPath('tags', 1)]);
      expectInvalidFields(await post([t1.id, 1.5]), [itemPath('tags', 1)]);
      for (const value of ['x', 5, { id: t1.id }, [[t1.id]]]) {
        const problem = expectProblem(await post(value), 422, ['validation_failed']);
        assert.ok(
          errorPaths(problem).every((path) => path.startsWith('tags')),
          `errors name tags: ${JSON.stringify(value)}`,
        );
      }
      const many = Array.from({ length: 1001 }, (_, i) => MISSING_ID + i);
      expectInvalidFields(await post(many), ['tags']);
      assert.deepEqual(await listBooks(ctx, {}), [], 'nothing was stored');

      const book = await createBook(ctx, 'book', ann, { tags: [t2.id] });
      expectInvalidFields(await ctx.http.patch(`/books/${book.id}`, { tags: [t1.id, t1.id] }), [
        itemPath('tags', 1),
      ]);
      assert.deepEqual(ids(await tagsOf(ctx, book)), [t2.id], 'the links are unchanged');
    },
  },

  'many-to-many-failed-write-keeps-links': {
    description:
      'a write refused with tags in it (a dangling author, an unknown tag) leaves the record and its links as they were',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const t1 = await createTag(ctx, 't1');
      const t2 = await createTag(ctx, 't2');
      const t3 = await createTag(ctx, 't3');
      const book = await createBook(ctx, 'book', ann, { tags: [t1.id, t2.id] });
      // The author reference fails in the database: the links of the same write must roll back.
      expectInvalidFields(await ctx.http.patch(`/books/${book.id}`, { author: MISSING_ID, tags: [t3.id] }), [
        'author',
      ]);
      expectInvalidFields(
        await ctx.http.put(`/books/${book.id}`, {
          title: `${ctx.prefix}-changed`,
          tags: [t3.id, MISSING_ID],
        }),
        [itemPath('tags', 1)],
      );
      assert.deepEqual(await read(ctx, `/books/${book.id}`), book, 'the record is unchanged');
      assert.deepEqual(ids(await tagsOf(ctx, book)), [t1.id, t2.id], 'the links are unchanged');
      assert.deepEqual(await bookIdsOfTag(ctx, t3), []);

      expectInvalidFields(
        await ctx.http.post('/books', { title: `${ctx.prefix}-orphan`, author: MISSING_ID, tags: [t3.id] }),
        ['author'],
      );
      assert.deepEqual(await bookIdsOfTag(ctx, t3), [], 'a refused create links nothing');
      assert.deepEqual(ids(await listBooks(ctx, {})), [book.id]);
    },
  },

  'many-to-many-delete-unlinks': {
    description: 'deleting a book with tags is 204 and removes its links; the tags and other links remain',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const t1 = await createTag(ctx, 't1');
      const t2 = await createTag(ctx, 't2');
      const doomed = await createBook(ctx, 'doomed', ann, { tags: [t1.id, t2.id] });
      const kept = await createBook(ctx, 'kept', ann, { tags: [t1.id] });
      expectStatus(await ctx.http.delete(`/books/${doomed.id}`), 204);
      expectProblem(await ctx.http.get(`/books/${doomed.id}`), 404);
      assert.deepEqual(await bookIdsOfTag(ctx, t1), [kept.id]);
      assert.deepEqual(await bookIdsOfTag(ctx, t2), []);
      assert.deepEqual(ids(await tagsOf(ctx, kept)), [t1.id]);
    },
  },

  'unwritable-collections-dropped-or-strict-422': {
    description:
      'a one-to-many (Author.books) or inverse many-to-many (Tag.books) in a body is dropped, or 422 with strict',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const tag = await createTag(ctx, 'tag');
      const book = await createBook(ctx, 'book', ann, { tags: [tag.id] });

      const bob = expectRecord(
        await ctx.http.post('/authors', { name: `${ctx.prefix}-bob`, books: [book.id] }),
        201,
      );
      assert.ok(!('books' in bob));
      const bobBooks = await read(ctx, `/authors/${bob.id}${query({ include: 'books' })}`);
      assert.deepEqual(embeddedList(bobBooks.books, 'bob books'), [], 'books was dropped');
      assert.equal((await read(ctx, `/books/${book.id}`)).author, ann.id, 'the book keeps its author');
      expectRecord(await ctx.http.patch(`/authors/${ann.id}`, { books: [] }), 200);
      expectRecord(await ctx.http.patch(`/labels/${tag.id}`, { books: [] }), 200);
      assert.deepEqual(await bookIdsOfTag(ctx, tag), [book.id], 'the inverse side is not written');

      const refused = [
        await ctx.strictHttp.post('/authors', { name: `${ctx.prefix}-cy`, books: [book.id] }),
        await ctx.strictHttp.patch(`/authors/${ann.id}`, { books: [] }),
        await ctx.strictHttp.post('/labels', { name: `${ctx.prefix}-other`, books: [book.id] }),
        await ctx.strictHttp.put(`/labels/${tag.id}`, { books: [] }),
      ];
      for (const result of refused)
        assert.deepEqual(errorPaths(expectProblem(result, 422, ['validation_failed'])), ['books']);
      assert.deepEqual(
        expectRows(await ctx.http.get(`/authors${query({ 'filter[name]': `${ctx.prefix}-cy` })}`)),
        [],
        'the refused create stored nothing',
      );
      assert.deepEqual(await bookIdsOfTag(ctx, tag), [book.id]);
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
