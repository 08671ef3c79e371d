/**
 * Cases: the query string of the routes other than the list. A read (`GET /{id}`) takes `fields`
 * and `include` as a list does; a create, an update and a delete take none. Every other parameter
 * is refused with the list's 400, never ignored, and `_…` / `utm_…` are ignored everywhere.
 */
import assert from 'node:assert/strict';
import { expectProblem, expectRecord, expectRows, expectStatus } from '../assertions.js';
import { type ConformanceCase, createGadget } from '../context.js';
import { type HttpResult, query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';
import { createAuthor, createBook, embeddedRecord, keysBesideId, read } from './library.js';

/** A 400 `invalid_query` whose detail names the parameter. */
function expectRefused(result: HttpResult, name: string): void {
  const problem = expectProblem(result, 400, ['invalid_query']);
  assert.ok(String(problem.detail).includes(name), `${result.request}: ${String(problem.detail)}`);
}

export const itemQueryCases = {
  'read-fields-selection': {
    description:
      'GET /{id}?fields=a,b returns only those fields (repeatable, dotted names of an include too); unknown or hidden names are 400',
    async run(ctx) {
      const stored = await createGadget(ctx, 'selected', { quantity: 4, color: 'green' });
      const path = `/gadgets/${stored.id}`;
      const some = expectRecord(await ctx.http.get(`${path}${query({ fields: 'quantity,color' })}`), 200);
      assert.deepEqual(keysBesideId(some), ['color', 'quantity']);
      assert.equal(some.quantity, 4);
      assert.equal(some.color, 'green');
      const repeated = expectRecord(await ctx.http.get(`${path}?fields=name&fields=quantity`), 200);
      assert.deepEqual(keysBesideId(repeated), ['name', 'quantity']);
      assert.equal(repeated.name, stored.name);
      for (const fields of ['secret', 'name,secret', 'nope', '', 'name.first']) {
        expectProblem(await ctx.http.get(`${path}${query({ fields })}`), 400, ['invalid_query']);
      }

      const ann = await createAuthor(ctx, 'ann');
      const book = await createBook(ctx, 'book', ann);
      const selected = expectRecord(
        await ctx.http.get(`/books/${book.id}${query({ include: 'author', fields: 'title,author.name' })}`),
        200,
      );
      assert.deepEqual(keysBesideId(selected), ['author', 'title']);
      assert.deepEqual(keysBesideId(embeddedRecord(selected.author, 'author')), ['name']);
      assert.equal(embeddedRecord(selected.author, 'author').name, ann.name);
      // A dotted field without its include is the list's 400.
      expectProblem(await ctx.http.get(`/books/${book.id}${query({ fields: 'title,author.name' })}`), 400, [
        'invalid_query',
      ]);
      assert.deepEqual(await read(ctx, `/books/${book.id}`), book, 'no selection: the whole record');
    },
  },

  'item-routes-refuse-unknown-parameters': {
    description:
      'GET, PUT, PATCH, DELETE /{id} and POST refuse a parameter they do not take with 400 (a delete with a filter deletes nothing); _… and utm_… are ignored',
    async run(ctx) {
      const stored = await createGadget(ctx, 'kept', { quantity: 1 });
      const path = `/gadgets/${stored.id}`;
      const unknown: Record<string, string>[] = [
        { zz: '1' },
        { limit: '0' },
        { offset: '0' },
        { sort: 'name' },
        { 'filter[id]': '999' },
        { 'filter[name][$eq]': 'nomatch' },
        { after: '' },
        { count: 'false' },
      ];
      for (const params of unknown) {
        const [name] = Object.keys(params) as [string];
        expectRefused(await ctx.http.get(`${path}${query(params)}`), name);
        expectRefused(await ctx.http.put(`${path}${query(params)}`, { quantity: 7 }), name);
        expectRefused(await ctx.http.patch(`${path}${query(params)}`, { quantity: 7 }), name);
        expectRefused(await ctx.http.delete(`${path}${query(params)}`), name);
        expectRefused(
          await ctx.http.post(`/gadgets${query(params)}`, { name: `${ctx.prefix}-refused` }),
          name,
        );
      }
      // An update, a delete and a create take no selection either.
      expectRefused(await ctx.http.put(`${path}${query({ fields: 'name' })}`, { quantity: 7 }), 'fields');
      expectRefused(await ctx.http.delete(`${path}${query({ fields: 'name' })}`), 'fields');
      expectRefused(await ctx.http.post(`/gadgets${query({ include: 'x' })}`, { name: 'x' }), 'include');
      assert.deepEqual(await read(ctx, path), stored, 'nothing was changed or deleted');
      assert.deepEqual(
        expectRows(await ctx.http.get(`/gadgets${query({ 'filter[name]': `${ctx.prefix}-refused` })}`)),
        [],
        'nothing was created',
      );

      const ignored = query({ _: '1712345678901', utm_source: 'mail' });
      assert.deepEqual(expectRecord(await ctx.http.get(`${path}${ignored}`), 200), stored);
      expectRecord(await ctx.http.put(`${path}${ignored}`, { quantity: 2 }), 200);
      expectRecord(await ctx.http.patch(`${path}${ignored}`, { quantity: 3 }), 200);
      expectRecord(await ctx.http.post(`/gadgets${ignored}`, { name: `${ctx.prefix}-busted` }), 201);
      expectStatus(await ctx.http.delete(`${path}${ignored}`), 204);
      expectProblem(await ctx.http.get(path), 404);
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
