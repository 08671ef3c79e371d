/** Cases: resource names, create (201, defaults, dropped and strict fields), validation, round trip. */
import assert from 'node:assert/strict';
import { errorPaths, expectInvalidFields, expectProblem, expectRecord, expectRows } from '../assertions.js';
import { type CaseContext, type ConformanceCase, createGadget } from '../context.js';
import { type JsonObject, query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';

const RESOURCES = ['people', 'categories', 'boxes', 'labels', 'gadgets', 'authors', 'books', 'countries'];

async function countNamed(ctx: CaseContext, name: string): Promise<string | null> {
  const result = await ctx.http.get(`/gadgets${query({ 'filter[name]': name })}`);
  expectRows(result);
  return result.headers.get('x-total-count');
}

/** A value of every field kind of `Gadget`, in the JSON forms a client sends. */
function everyKind(name: string): JsonObject {
  return {
    name,
    description: 'A longer text\nwith a second line and ünïcödé ✓',
    quantity: 7,
    price: '19.99',
    rating: 4.25,
    active: false,
    released: '2024-02-29',
    updated_at: '2024-05-06T07:08:09.000Z',
    alarm: '07:08:09',
    metadata: { a: 1, nested: { list: [1, 'two', null, true], empty: {} } },
    color: 'green',
    serial: '9007199254740993',
  };
}

export const createCases = {
  'resource-names': {
    description: 'each model is served under its table name (plural rule, __tablename__ override)',
    async run(ctx) {
      for (const resource of RESOURCES) expectRows(await ctx.http.get(`/${resource}`));
      // Tag declares __tablename__ = 'labels': the derived name must not be served as well.
      for (const absent of ['tags', 'tag', 'persons', 'person', 'gadget', 'boxs']) {
        expectProblem(await ctx.http.get(`/${absent}`), 404);
      }
    },
  },

  'create-201-location-defaults': {
    description: 'POST answers 201 with Location and the stored record, defaults filled, hidden field absent',
    async run(ctx) {
      const name = `${ctx.prefix}-one`;
      const result = await ctx.http.post('/gadgets', { name, secret: 'do-not-show' });
      const body = expectRecord(result, 201);
      assert.equal(typeof body.id, 'number');
      assert.ok(Number.isInteger(body.id) && (body.id as number) > 0, 'generated integer id');
      const location = result.headers.get('location') ?? '';
      assert.ok(
        new URL(location, ctx.http.baseUrl).pathname.endsWith(`/gadgets/${body.id}`),
        `Location: ${location}`,
      );
      assert.equal(body.name, name);
      assert.equal(body.quantity, 0);
      assert.equal(body.active, true);
      assert.equal(body.color, 'red');
      for (const nullable of [
        'description',
        'price',
        'rating',
        'released',
        'updated_at',
        'alarm',
        'metadata',
        'serial',
      ]) {
        assert.equal(body[nullable], null, `${nullable} is null when not given`);
      }
      assert.ok(!('secret' in body), 'hidden field absent from the create response');
      const fetched = expectRecord(await ctx.http.get(location), 200);
      assert.deepEqual(fetched, body);
      const [listed] = expectRows(await ctx.http.get(`/gadgets${query({ 'filter[name]': name })}`));
      assert.deepEqual(listed, body, 'the list shows the same record, without the hidden field');
    },
  },

  'create-drops-pk-and-unknown-fields': {
    description: 'by default the primary key and unknown fields of a create are dropped silently',
    async run(ctx) {
      const body = await createGadget(ctx, 'dropped', { id: 987654, no_such_field: 'x' });
      assert.notEqual(body.id, 987654, 'the client cannot choose the generated key');
      assert.ok(!('no_such_field' in body));
      expectProblem(await ctx.http.get('/gadgets/987654'), 404);
    },
  },

  'create-strict-rejects-pk-and-unknown-fields': {
    description: 'with strict: true the primary key and unknown fields give 422 naming them',
    async run(ctx) {
      const name = `${ctx.prefix}-strict`;
      const refused = await ctx.strictHttp.post('/gadgets', { id: 987655, name, no_such_field: 'x' });
      const problem = expectProblem(refused, 422, ['validation_failed']);
      assert.ok(errorPaths(problem).includes('id'), 'names the primary key');
      assert.ok(errorPaths(problem).includes('no_such_field'), 'names the unknown field');
      assert.equal(await countNamed(ctx, name), '0', 'nothing was stored');
      expectRecord(await ctx.strictHttp.post('/gadgets', { name }), 201);
    },
  },

  'validation-422-one-entry-per-field': {
    description: '422 lists each invalid field once: missing, wrong type, too long, not in the enum, null',
    async run(ctx) {
      expectInvalidFields(await ctx.http.post('/gadgets', {}), ['name']);
      const invalid = {
        name: 'x'.repeat(101),
        quantity: 'many',
        active: 'yes',
        color: 'purple',
        rating: 'high',
        released: 'not-a-date',
      };
      expectInvalidFields(await ctx.http.post('/gadgets', invalid), [
        'name',
        'quantity',
        'active',
        'color',
        'rating',
        'released',
      ]);
      expectInvalidFields(await ctx.http.post('/gadgets', { name: `${ctx.prefix}-null`, quantity: null }), [
        'quantity',
      ]);
      assert.equal(await countNamed(ctx, `${ctx.prefix}-null`), '0', 'nothing was stored');
      const stored = await createGadget(ctx, 'valid');
      expectInvalidFields(await ctx.http.put(`/gadgets/${stored.id}`, { quantity: 'x', name: null }), [
        'quantity',
        'name',
      ]);
      expectProblem(await ctx.http.send('POST', '/gadgets', { json: [1, 2] }), 422, ['validation_failed']);
    },
  },

  'round-trip-every-field-kind': {
    description: 'every field kind comes back as sent, the same from create, get and list',
    async run(ctx) {
      const input = everyKind(`${ctx.prefix}-all`);
      const created = expectRecord(await ctx.http.post('/gadgets', input), 201);
      const fetched = expectRecord(await ctx.http.get(`/gadgets/${created.id}`), 200);
      assert.deepEqual(fetched, created, 'get equals create');
      const [listed] = expectRows(
        await ctx.http.get(`/gadgets${query({ 'filter[name]': input.name as string })}`),
      );
      assert.deepEqual(listed, created, 'list equals create');
      for (const [key, value] of Object.entries(input)) {
        if (key === 'updated_at') {
          assert.equal(typeof fetched[key], 'string', 'datetime is an ISO string in JSON');
          assert.equal(Date.parse(fetched[key] as string), Date.parse(value as string), 'same instant');
        } else {
          assert.deepEqual(fetched[key], value, `${key} round-trips`);
        }
      }
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
