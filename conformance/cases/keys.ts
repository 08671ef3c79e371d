/** Cases: generated UUID keys, natural string keys given by the client, many-to-one relations. */
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const keyCases = {
  'uuid-primary-key': {
    description: 'a generated UUID key: created, addressed, updated and deleted by its UUID',
    async run(ctx) {
      const chosen = '0b9c6a1e-4f3d-4c2b-9a8e-7d6c5b4a3f21';
      const result = await ctx.http.post('/boxes', { id: chosen, label: `${ctx.prefix}-box` });
      const box = expectRecord(result, 201);
      assert.match(String(box.id), UUID, 'a lower-case UUID');
      assert.notEqual(box.id, chosen, 'the client cannot choose a generated key');
      const location = result.headers.get('location') ?? '';
      assert.ok(
        new URL(location, ctx.http.baseUrl).pathname.endsWith(`/boxes/${box.id}`),
        `Location: ${location}`,
      );
      assert.deepEqual(expectRecord(await ctx.http.get(`/boxes/${box.id}`), 200), box);
      const renamed = expectRecord(
        await ctx.http.put(`/boxes/${box.id}`, { label: `${ctx.prefix}-renamed` }),
        200,
      );
      assert.deepEqual(renamed, { ...box, label: `${ctx.prefix}-renamed` });
      const listed = expectRows(await ctx.http.get(`/boxes${query({ 'filter[id]': box.id as string })}`));
      assert.deepEqual(listed, [renamed]);
      expectStatus(await ctx.http.delete(`/boxes/${box.id}`), 204);
      expectProblem(await ctx.http.get(`/boxes/${box.id}`), 404);
    },
  },

  'natural-string-primary-key': {
    description: 'a string key given by the client on create: required, length-checked, unique, addressable',
    async run(ctx) {
      const result = await ctx.http.post('/countries', { code: 'FR', name: 'France' });
      assert.deepEqual(expectRecord(result, 201), { code: 'FR', name: 'France' });
      const location = result.headers.get('location') ?? '';
      assert.ok(
        new URL(location, ctx.http.baseUrl).pathname.endsWith('/countries/FR'),
        `Location: ${location}`,
      );
      assert.deepEqual(expectRecord(await ctx.http.get('/countries/FR'), 200), {
        code: 'FR',
        name: 'France',
      });
      const duplicate = expectProblem(await ctx.http.post('/countries', { code: 'FR', name: 'Again' }), 409, [
        'conflict',
      ]);
      if (duplicate.errors !== undefined) assert.ok(errorPaths(duplicate).includes('code'));
      expectInvalidFields(await ctx.http.post('/countries', { name: 'Nowhere' }), ['code']);
      expectInvalidFields(await ctx.http.post('/countries', { code: 'FRA', name: 'Too long' }), ['code']);
      const renamed = expectRecord(
        await ctx.http.patch('/countries/FR', { name: 'République française' }),
        200,
      );
      assert.deepEqual(renamed, { code: 'FR', name: 'République française' });
      expectRecord(await ctx.http.post('/countries', { code: 'DE', name: 'Germany' }), 201);
      const listed = expectRows(
        await ctx.http.get(`/countries${query({ 'filter[code][$in]': 'DE,FR', sort: 'code' })}`),
      );
      assert.deepEqual(
        listed.map((row) => row.code),
        ['DE', 'FR'],
      );
      expectStatus(await ctx.http.delete('/countries/FR'), 204);
      expectProblem(await ctx.http.get('/countries/FR'), 404);
    },
  },

  'many-to-one-as-key': {
    description: 'a many-to-one field is read and written as the referenced primary key, and filters by it',
    async run(ctx) {
      const author = expectRecord(await ctx.http.post('/authors', { name: `${ctx.prefix}-ann` }), 201);
      const other = expectRecord(await ctx.http.post('/authors', { name: `${ctx.prefix}-bob` }), 201);
      const book = expectRecord(
        await ctx.http.post('/books', { title: `${ctx.prefix}-book`, author: author.id }),
        201,
      );
      assert.equal(book.author, author.id);
      assert.deepEqual(expectRecord(await ctx.http.get(`/books/${book.id}`), 200), book);
      const listed = expectRows(
        await ctx.http.get(`/books${query({ 'filter[author]': author.id as number })}`),
      );
      assert.deepEqual(listed, [book]);
      const moved = expectRecord(await ctx.http.patch(`/books/${book.id}`, { author: other.id }), 200);
      assert.deepEqual(moved, { ...book, author: other.id });
      assert.deepEqual(
        expectRows(await ctx.http.get(`/books${query({ 'filter[author]': author.id as number })}`)),
        [],
      );
    },
  },

  'many-to-one-bad-reference-422': {
    description: 'a reference to a missing record, a missing required reference or a wrong key type is 422',
    async run(ctx) {
      const title = `${ctx.prefix}-orphan`;
      expectInvalidFields(await ctx.http.post('/books', { title, author: 2_000_000_000 }), ['author']);
      expectInvalidFields(await ctx.http.post('/books', { title }), ['author']);
      expectInvalidFields(await ctx.http.post('/books', { title, author: 'abc' }), ['author']);
      assert.deepEqual(expectRows(await ctx.http.get(`/books${query({ 'filter[title]': title })}`)), []);
      const author = expectRecord(await ctx.http.post('/authors', { name: `${ctx.prefix}-ann` }), 201);
      const book = expectRecord(await ctx.http.post('/books', { title, author: author.id }), 201);
      expectInvalidFields(await ctx.http.put(`/books/${book.id}`, { author: 2_000_000_000 }), ['author']);
      assert.deepEqual(expectRecord(await ctx.http.get(`/books/${book.id}`), 200), book, 'unchanged');
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
