/** Cases: get, update and delete of one record, and unique constraints. */
import assert from 'node:assert/strict';
import { errorPaths, expectProblem, expectRecord, expectRows, expectStatus } from '../assertions.js';
import { type ConformanceCase, createGadget } from '../context.js';
import { type HttpResult, query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';

const MISSING_ID = 2_000_000_000;

/** A 409 whose `errors`, when given, name the field. */
function expectConflict(result: HttpResult, field: string): void {
  const problem = expectProblem(result, 409, ['conflict']);
  if (problem.errors !== undefined) assert.ok(errorPaths(problem).includes(field), `conflict names ${field}`);
}

export const recordCases = {
  'get-unknown-id-404': {
    description: 'GET of an unknown id, or of an id that is not a value of the key type, is 404',
    async run(ctx) {
      expectProblem(await ctx.http.get(`/gadgets/${MISSING_ID}`), 404);
      for (const id of ['abc', '1.5', '1e3', '-', '99999999999999999999999']) {
        expectProblem(await ctx.http.get(`/gadgets/${id}`), 404);
      }
      expectProblem(await ctx.http.get('/boxes/not-a-uuid'), 404);
      expectProblem(await ctx.http.get('/boxes/00000000-0000-4000-8000-000000000000'), 404);
      expectProblem(await ctx.http.get('/countries/ZZ'), 404);
    },
  },

  'update-keeps-absent-fields': {
    description: 'PUT and PATCH change the fields given and keep the others',
    async run(ctx) {
      const stored = await createGadget(ctx, 'partial', {
        description: 'kept',
        quantity: 3,
        color: 'blue',
        price: '2.50',
      });
      const put = expectRecord(await ctx.http.put(`/gadgets/${stored.id}`, { quantity: 5 }), 200);
      assert.deepEqual(put, { ...stored, quantity: 5 });
      const patched = expectRecord(
        await ctx.http.patch(`/gadgets/${stored.id}`, { description: null, active: false }),
        200,
      );
      assert.deepEqual(patched, { ...stored, quantity: 5, description: null, active: false });
      assert.deepEqual(
        expectRecord(await ctx.http.get(`/gadgets/${stored.id}`), 200),
        patched,
        'the change is stored',
      );
    },
  },

  'update-ignores-primary-key': {
    description: 'an update cannot change the primary key: it is dropped silently, or 422 with strict',
    async run(ctx) {
      const stored = await createGadget(ctx, 'pk', { quantity: 1 });
      const other = (stored.id as number) + 1_000_000;
      const updated = expectRecord(
        await ctx.http.put(`/gadgets/${stored.id}`, { id: other, quantity: 2 }),
        200,
      );
      assert.equal(updated.id, stored.id);
      assert.equal(updated.quantity, 2);
      expectProblem(await ctx.http.get(`/gadgets/${other}`), 404);
      const strict = expectProblem(await ctx.strictHttp.patch(`/gadgets/${stored.id}`, { id: other }), 422, [
        'validation_failed',
      ]);
      assert.deepEqual(errorPaths(strict), ['id']);
    },
  },

  'update-unknown-id-404': {
    description: 'PUT and PATCH of an unknown id are 404 (and create nothing)',
    async run(ctx) {
      const name = `${ctx.prefix}-ghost`;
      expectProblem(await ctx.http.put(`/gadgets/${MISSING_ID}`, { name }), 404);
      expectProblem(await ctx.http.patch(`/gadgets/${MISSING_ID}`, { name }), 404);
      expectProblem(await ctx.http.put('/gadgets/abc', { name }), 404);
      const listed = await ctx.http.get(`/gadgets${query({ 'filter[name]': name })}`);
      assert.deepEqual(expectRows(listed), []);
    },
  },

  'delete-204-then-404': {
    description: 'DELETE answers 204 with no body; the record is gone for GET, PUT, DELETE and lists',
    async run(ctx) {
      const stored = await createGadget(ctx, 'doomed');
      const deleted = await ctx.http.delete(`/gadgets/${stored.id}`);
      expectStatus(deleted, 204);
      assert.equal(deleted.text, '');
      expectProblem(await ctx.http.get(`/gadgets/${stored.id}`), 404);
      expectProblem(await ctx.http.put(`/gadgets/${stored.id}`, { quantity: 1 }), 404);
      expectProblem(await ctx.http.delete(`/gadgets/${stored.id}`), 404);
      expectProblem(await ctx.http.delete(`/gadgets/${MISSING_ID}`), 404);
      assert.deepEqual(
        expectRows(await ctx.http.get(`/gadgets${query({ 'filter[id]': stored.id as number })}`)),
        [],
      );
    },
  },

  'unique-conflict-409-on-create': {
    description: 'a create that repeats a unique value is 409 and stores nothing',
    async run(ctx) {
      const name = `${ctx.prefix}-unique`;
      expectRecord(await ctx.http.post('/categories', { name }), 201);
      expectConflict(await ctx.http.post('/categories', { name }), 'name');
      expectRecord(await ctx.http.post('/labels', { name }), 201);
      expectConflict(await ctx.http.post('/labels', { name }), 'name');
      await createGadget(ctx, 'unique');
      expectConflict(await ctx.http.post('/gadgets', { name: `${ctx.prefix}-unique`, quantity: 9 }), 'name');
      const rows = expectRows(await ctx.http.get(`/categories${query({ 'filter[name]': name })}`));
      assert.equal(rows.length, 1, 'the refused create stored nothing');
    },
  },

  'unique-conflict-409-on-update': {
    description: 'an update to a value another record holds is 409; keeping its own value is fine',
    async run(ctx) {
      const first = expectRecord(await ctx.http.post('/categories', { name: `${ctx.prefix}-first` }), 201);
      const second = expectRecord(await ctx.http.post('/categories', { name: `${ctx.prefix}-second` }), 201);
      expectConflict(await ctx.http.put(`/categories/${second.id}`, { name: first.name }), 'name');
      expectConflict(await ctx.http.patch(`/categories/${second.id}`, { name: first.name }), 'name');
      assert.deepEqual(
        expectRecord(await ctx.http.get(`/categories/${second.id}`), 200),
        second,
        'unchanged',
      );
      assert.deepEqual(
        expectRecord(await ctx.http.put(`/categories/${second.id}`, { name: second.name }), 200),
        second,
      );
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
