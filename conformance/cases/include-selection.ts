/**
 * Cases: what shapes an `include=`: dotted `fields=` names, the per-relation cap (the routers'
 * `include_limit`, `INCLUDE_LIMIT` = 3 in this suite) and the names it refuses.
 */
import assert from 'node:assert/strict';
import { expectProblem, expectRecord, expectRows } from '../assertions.js';
import type { ConformanceCase } from '../context.js';
import { type JsonObject, query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';
import { INCLUDE_LIMIT } from '../servers.js';
import {
  createAuthor,
  createBook,
  createCategory,
  createTag,
  embeddedList,
  embeddedRecord,
  ids,
  keysBesideId,
  listAuthors,
  listBooks,
  read,
} from './library.js';

export const includeSelectionCases = {
  'include-fields-dotted-path': {
    description:
      'fields=title,author.name selects fields of an included relation; an included relation appears whatever fields= says; a dotted field without its include is 400',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const fiction = await createCategory(ctx, 'fiction');
      const book = await createBook(ctx, 'book', ann, { category: fiction.id });
      const [row] = await listBooks(ctx, { include: 'author', fields: 'title,author.name' });
      assert.ok(row !== undefined);
      assert.deepEqual(keysBesideId(row), ['author', 'title']);
      const author = embeddedRecord(row.author, 'author');
      assert.deepEqual(keysBesideId(author), ['name'], 'only the selected field of the author (and its key)');
      assert.equal(author.name, ann.name);
      if ('id' in author) assert.equal(author.id, ann.id);

      // A relation without a dotted field in fields= is embedded whole.
      const [both] = await listBooks(ctx, { include: 'author,category', fields: 'title,author.name' });
      assert.ok(both !== undefined);
      assert.deepEqual(keysBesideId(both), ['author', 'category', 'title']);
      assert.deepEqual(keysBesideId(embeddedRecord(both.author, 'author')), ['name']);
      assert.deepEqual(
        both.category,
        await read(ctx, `/categories/${fiction.id}`),
        'no dotted field: all of it',
      );

      const [plain] = await listBooks(ctx, { include: 'author', fields: 'title' });
      assert.deepEqual(
        plain?.author,
        await read(ctx, `/authors/${ann.id}`),
        'included although fields= omits it',
      );

      const authors = expectRows(
        await ctx.http.get(
          `/authors${query({ 'filter[id]': ann.id as number, include: 'books', fields: 'name,books.title' })}`,
        ),
      );
      const books = embeddedList(authors[0]?.books, 'books');
      assert.equal(books.length, 1);
      assert.deepEqual(keysBesideId(books[0] as JsonObject), ['title']);
      assert.equal(books[0]?.title, book.title);

      // Two levels: the selection applies to the relation its path names.
      const [deep] = await listBooks(ctx, { include: 'author.books', fields: 'title,author.books.title' });
      assert.ok(deep !== undefined);
      assert.deepEqual(keysBesideId(deep), ['author', 'title']);
      const deepAuthor = embeddedRecord(deep.author, 'author');
      assert.deepEqual(deepAuthor, { ...(await read(ctx, `/authors/${ann.id}`)), books: deepAuthor.books });
      const deepBooks = embeddedList(deepAuthor.books, 'author.books');
      assert.deepEqual(deepBooks.map(keysBesideId), [['title']]);

      const refused: [string, Record<string, string | number>][] = [
        ['/books', { fields: 'title,author.name' }],
        ['/books', { include: 'author', fields: 'title,author.nope' }],
        ['/books', { include: 'author', fields: 'title,category.name' }],
        ['/books', { include: 'author', fields: 'title,author.books.title' }],
        ['/authors', { fields: 'name,books.title' }],
      ];
      for (const [path, params] of refused)
        expectProblem(await ctx.http.get(`${path}${query(params)}`), 400, ['invalid_query']);
    },
  },

  'include-limit-per-relation': {
    description: `a to-many include embeds at most include_limit (${INCLUDE_LIMIT} here) records per record, the first by key, for each owner of a page`,
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const bob = await createAuthor(ctx, 'bob');
      const tags: JsonObject[] = [];
      for (let i = 1; i <= 5; i++) tags.push(await createTag(ctx, `t${i}`));
      const first = tags[0] as JsonObject;
      const annBooks: JsonObject[] = [];
      const bobBooks: JsonObject[] = [];
      // Interleaved, so that a limit over all owners instead of per owner gives other books.
      for (let i = 1; i <= 5; i++) {
        annBooks.push(await createBook(ctx, `a${i}`, ann, { tags: [first.id] }));
        bobBooks.push(await createBook(ctx, `b${i}`, bob, { tags: [first.id] }));
      }
      const allTags = [...tags].reverse().map((tag) => tag.id);
      expectRecord(await ctx.http.patch(`/books/${annBooks[0]?.id}`, { tags: allTags }), 200);

      const authors = await listAuthors(ctx, { include: 'books' });
      assert.deepEqual(
        ids(embeddedList(authors[0]?.books, 'ann books')),
        ids(annBooks.slice(0, INCLUDE_LIMIT)),
      );
      assert.deepEqual(
        ids(embeddedList(authors[1]?.books, 'bob books')),
        ids(bobBooks.slice(0, INCLUDE_LIMIT)),
      );
      const annOne = await read(ctx, `/authors/${ann.id}${query({ include: 'books' })}`);
      assert.deepEqual(
        ids(embeddedList(annOne.books, 'ann books (read)')),
        ids(annBooks.slice(0, INCLUDE_LIMIT)),
      );

      const book = await read(ctx, `/books/${annBooks[0]?.id}${query({ include: 'tags' })}`);
      assert.deepEqual(ids(embeddedList(book.tags, 'tags')), ids(tags.slice(0, INCLUDE_LIMIT)));
      const tag = await read(ctx, `/labels/${first.id}${query({ include: 'books' })}`);
      assert.deepEqual(
        ids(embeddedList(tag.books, 'tag books')),
        [annBooks[0]?.id, bobBooks[0]?.id, annBooks[1]?.id],
        'the inverse side: the first books by key',
      );
      const deep = await listAuthors(ctx, { include: 'books.tags', 'filter[id]': ann.id as number });
      const deepBooks = embeddedList(deep[0]?.books, 'ann books (depth 2)');
      assert.equal(deepBooks.length, INCLUDE_LIMIT);
      assert.deepEqual(
        ids(embeddedList(deepBooks[0]?.tags, 'depth-2 tags')),
        ids(tags.slice(0, INCLUDE_LIMIT)),
      );
    },
  },

  'include-unknown-400': {
    description:
      'include= naming an unknown name, a plain field, a relation of another model or a path deeper than 2 is 400 naming it',
    async run(ctx) {
      const ann = await createAuthor(ctx, 'ann');
      const book = await createBook(ctx, 'book', ann);
      // [path, include=, the name the detail must quote]
      const refused: [string, string, string][] = [
        ['/books', 'nope', 'nope'],
        ['/books', 'title', 'title'],
        ['/books', 'author.nope', 'nope'],
        ['/books', 'author.name', 'name'],
        ['/books', 'author.books.tags', 'author.books.tags'],
        ['/books', 'tags.books.author', 'tags.books.author'],
        ['/books', 'author,nope', 'nope'],
        [`/books/${book.id}`, 'nope', 'nope'],
        [`/books/${book.id}`, 'author.books.author', 'author.books.author'],
        ['/authors', 'tags', 'tags'],
        ['/authors', 'author', 'author'],
        ['/labels', 'author', 'author'],
        ['/gadgets', 'secret', 'secret'],
      ];
      for (const [path, include, named] of refused) {
        const problem = expectProblem(await ctx.http.get(`${path}${query({ include })}`), 400, [
          'invalid_query',
        ]);
        assert.ok(
          String(problem.detail).includes(`"${named}"`),
          `include=${include}: the detail names "${named}": ${String(problem.detail)}`,
        );
      }
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
