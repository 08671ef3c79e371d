/** The data methods of the MemoryAdapter: generated values, constraints, copies, outages. */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { defineMemoryModel, MemoryAdapter, type MemorySession } from '../../../adapters/memory/index.js';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { RawRecord } from '../../../lib/types.js';
import { Author, Book, Box, Country, createConformanceMemoryAdapter, Gadget } from './conformance-models.js';

/** Asserts the promise rejects with an ApiError of that code whose `errors` name `paths`. */
async function rejectsWith(promise: Promise<unknown>, code: string, paths?: string[]): Promise<ApiError> {
  const error = await promise.then(
    () => assert.fail(`expected ${code}`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ApiError, `ApiError, got ${String(error)}`);
  assert.equal(error.code, code);
  if (paths !== undefined)
    assert.deepEqual((error.errors ?? []).map((entry) => entry.path).sort(), [...paths].sort());
  return error;
}

describe('MemoryAdapter data methods', () => {
  let adapter: MemoryAdapter;
  let session: MemorySession;
  beforeEach(() => {
    adapter = createConformanceMemoryAdapter();
    session = adapter.openSession();
  });

  it('creates with generated ids that are never reused, defaults and NULLs', async () => {
    const first = await adapter.create(session, Gadget, { name: 'a' });
    assert.deepEqual(first, {
      id: 1,
      name: 'a',
      description: null,
      quantity: 0,
      price: null,
      rating: null,
      active: true,
      released: null,
      updated_at: null,
      alarm: null,
      metadata: null,
      color: 'red',
      serial: null,
      secret: null,
    });
    assert.equal(await adapter.delete(session, Gadget, 1), true);
    assert.equal(
      (await adapter.create(session, Gadget, { name: 'b' })).id,
      2,
      'a deleted id is not handed out again',
    );
    assert.equal(
      (await adapter.create(session, Gadget, { name: 'c', id: 10 })).id,
      10,
      'an explicit id is accepted',
    );
    assert.equal(
      (await adapter.create(session, Gadget, { name: 'd' })).id,
      11,
      'and the sequence moves past it',
    );
  });

  it('stores values in the forms a SQL adapter returns', async () => {
    const row = await adapter.create(session, Gadget, {
      name: 'forms',
      price: 12.5,
      serial: 42,
      released: new Date('2024-02-29T23:00:00Z'),
      updated_at: '2024-05-06T07:08:09Z',
      alarm: '07:08',
      metadata: { b: [1, { c: null }] },
    });
    assert.equal(row.price, '12.5');
    assert.equal(row.serial, '42');
    assert.equal(row.released, '2024-02-29');
    assert.ok(row.updated_at instanceof Date);
    assert.equal((row.updated_at as Date).toISOString(), '2024-05-06T07:08:09.000Z');
    assert.equal(row.alarm, '07:08:00');
    assert.deepEqual(row.metadata, { b: [1, { c: null }] });
  });

  it('generates lower-case UUIDs and keeps natural keys as given', async () => {
    const box = await adapter.create(session, Box, { label: 'x' });
    assert.match(String(box.id), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(
      await adapter.get(session, Box, String(box.id).toUpperCase()),
      box,
      'UUIDs compare case-insensitively',
    );
    assert.equal(await adapter.get(session, Box, 'not-a-uuid'), undefined);
    await adapter.create(session, Country, { code: 'FR', name: 'France' });
    assert.deepEqual(await adapter.get(session, Country, 'FR'), { code: 'FR', name: 'France' });
    assert.equal(await adapter.get(session, Country, 'fr'), undefined);
  });

  it('finds integer keys given as numbers or digit strings, and nothing for other text', async () => {
    const row = await adapter.create(session, Gadget, { name: 'k' });
    assert.deepEqual(await adapter.get(session, Gadget, 1), row);
    assert.deepEqual(await adapter.get(session, Gadget, '1'), row);
    for (const id of ['abc', '1.5', 1.5, '']) assert.equal(await adapter.get(session, Gadget, id), undefined);
  });

  it('refuses NOT NULL violations, wrong types and unknown fields with one 422 entry each', async () => {
    await rejectsWith(adapter.create(session, Gadget, {}), 'validation_failed', ['name']);
    await rejectsWith(
      adapter.create(session, Gadget, { name: 'n', quantity: null, active: 'yes', color: 'pink', bogus: 1 }),
      'validation_failed',
      ['quantity', 'active', 'color', 'bogus'],
    );
    await rejectsWith(adapter.create(session, Gadget, { name: 'x'.repeat(101) }), 'validation_failed', [
      'name',
    ]);
    const row = await adapter.create(session, Gadget, { name: 'ok' });
    await rejectsWith(
      adapter.update(session, Gadget, row.id as number, { name: null }),
      'validation_failed',
      ['name'],
    );
    assert.deepEqual(
      await adapter.get(session, Gadget, row.id as number),
      row,
      'a refused update changes nothing',
    );
  });

  it('refuses unique violations with 409 naming the field; NULLs never collide; own value is fine', async () => {
    await adapter.create(session, Gadget, { name: 'same', secret: null });
    const second = await adapter.create(session, Gadget, { name: 'other', secret: null });
    await rejectsWith(adapter.create(session, Gadget, { name: 'same' }), 'conflict', ['name']);
    await rejectsWith(adapter.update(session, Gadget, second.id as number, { name: 'same' }), 'conflict', [
      'name',
    ]);
    assert.equal(
      (await adapter.update(session, Gadget, second.id as number, { name: 'other' }))?.name,
      'other',
    );
    await adapter.create(session, Country, { code: 'DE', name: 'Germany' });
    await rejectsWith(adapter.create(session, Country, { code: 'DE', name: 'Again' }), 'conflict', ['code']);
    const list = await adapter.list(session, Gadget, {
      filters: [],
      sort: [],
      limit: 10,
      offset: 0,
      withTotal: true,
    });
    assert.equal(list.total, 2, 'refused creates stored nothing');
  });

  it('checks many-to-one references on create and update', async () => {
    const author = await adapter.create(session, Author, { name: 'Ann' });
    await rejectsWith(adapter.create(session, Book, { title: 't', author: 99 }), 'validation_failed', [
      'author',
    ]);
    await rejectsWith(adapter.create(session, Book, { title: 't' }), 'validation_failed', ['author']);
    const book = await adapter.create(session, Book, { title: 't', author: author.id });
    assert.equal(book.author, author.id);
    await rejectsWith(adapter.update(session, Book, book.id as number, { author: 99 }), 'validation_failed', [
      'author',
    ]);
  });

  it('restricts deleting a row a required reference points at', async () => {
    const author = await adapter.create(session, Author, { name: 'Ann' });
    const book = await adapter.create(session, Book, { title: 't', author: author.id });
    const error = await rejectsWith(adapter.delete(session, Author, author.id as number), 'conflict');
    assert.match(error.message, /Book\.author/);
    assert.equal(await adapter.delete(session, Book, book.id as number), true);
    assert.equal(await adapter.delete(session, Author, author.id as number), true);
    assert.equal(await adapter.delete(session, Author, author.id as number), false);
  });

  it('sets nullable references to NULL when their target is deleted, and allows self-references', async () => {
    class Node extends FrameworkModel {}
    const memory = new MemoryAdapter({
      models: [
        defineMemoryModel(Node, {
          id: { type: 'integer', primary: true, generated: true },
          parent: { relation: { target: () => Node }, nullable: true },
        }),
      ],
    });
    const s = memory.openSession();
    const root = await memory.create(s, Node, { parent: null });
    const child = await memory.create(s, Node, { parent: root.id });
    assert.deepEqual(
      await memory.create(s, Node, { id: 3, parent: 3 }),
      { id: 3, parent: 3 },
      'a row may refer to itself',
    );
    assert.equal(await memory.delete(s, Node, 3), true);
    assert.equal(await memory.delete(s, Node, root.id as number), true);
    assert.deepEqual(await memory.get(s, Node, child.id as number), { id: child.id, parent: null });
  });

  it('updates only the given fields; a key change is checked and refused while referenced', async () => {
    await adapter.create(session, Country, { code: 'FR', name: 'France' });
    assert.deepEqual(await adapter.update(session, Country, 'FR', { name: 'République' }), {
      code: 'FR',
      name: 'République',
    });
    assert.deepEqual(await adapter.update(session, Country, 'FR', { code: 'FX' }), {
      code: 'FX',
      name: 'République',
    });
    assert.equal(await adapter.get(session, Country, 'FR'), undefined);
    await adapter.create(session, Country, { code: 'DE', name: 'Germany' });
    await rejectsWith(adapter.update(session, Country, 'FX', { code: 'DE' }), 'conflict', ['code']);
    assert.equal(await adapter.update(session, Country, 'ZZ', { name: 'x' }), undefined);
    const author = await adapter.create(session, Author, { name: 'Ann' });
    await adapter.create(session, Book, { title: 't', author: author.id });
    await rejectsWith(adapter.update(session, Author, author.id as number, { id: 77 }), 'conflict');
  });

  it('returns copies: callers can mutate neither the storage nor each other', async () => {
    const input: RawRecord = {
      name: 'copy',
      metadata: { list: [1] },
      updated_at: new Date('2024-01-01T00:00:00Z'),
    };
    const created = await adapter.create(session, Gadget, input);
    (input.metadata as { list: number[] }).list.push(2);
    (input.updated_at as Date).setUTCFullYear(1999);
    (created.metadata as { list: number[] }).list.push(3);
    created.name = 'changed';
    const listed = (
      await adapter.list(session, Gadget, { filters: [], sort: [], limit: 1, offset: 0, withTotal: false })
    ).rows[0];
    assert.ok(listed !== undefined);
    (listed.updated_at as Date).setUTCFullYear(2000);
    const stored = await adapter.get(session, Gadget, created.id as number);
    assert.ok(stored !== undefined);
    assert.deepEqual(stored.metadata, { list: [1] });
    assert.equal(stored.name, 'copy');
    assert.equal((stored.updated_at as Date).toISOString(), '2024-01-01T00:00:00.000Z');
  });

  it('applies default functions per insert', async () => {
    class Stamp extends FrameworkModel {}
    let calls = 0;
    const memory = new MemoryAdapter({
      models: [
        defineMemoryModel(Stamp, {
          id: { type: 'bigint', primary: true, generated: true },
          at: { type: 'datetime', default: () => new Date(Date.UTC(2024, 0, ++calls)) },
          tags: { type: 'json', default: [] },
        }),
      ],
    });
    const s = memory.openSession();
    const a = await memory.create(s, Stamp, {});
    const b = await memory.create(s, Stamp, {});
    assert.deepEqual([a.id, b.id], ['1', '2'], 'bigint sequences are strings');
    assert.deepEqual([(a.at as Date).getUTCDate(), (b.at as Date).getUTCDate()], [1, 2]);
    (a.tags as unknown[]).push('x');
    assert.deepEqual((await memory.get(s, Stamp, '2'))?.tags, [], 'a json default is not shared');
    class Broken extends FrameworkModel {}
    const broken = new MemoryAdapter({
      models: [
        defineMemoryModel(Broken, {
          id: { type: 'integer', primary: true },
          n: { type: 'integer', default: () => 'x' },
        }),
      ],
    });
    await assert.rejects(
      broken.create(broken.openSession(), Broken, { id: 1 }),
      /Broken\.n: the default function's value must be an integer/,
    );
  });

  it('finds by any field, hidden ones included, with the equality of the field type', async () => {
    const row = await adapter.create(session, Gadget, { name: 'secretive', secret: 's3', price: '10.50' });
    assert.deepEqual(await adapter.findBy(session, Gadget, 'secret', 's3'), row);
    assert.deepEqual(
      await adapter.findBy(session, Gadget, 'price', '10.5'),
      row,
      'decimals compare by value',
    );
    assert.equal(await adapter.findBy(session, Gadget, 'name', 'nobody'), undefined);
    assert.equal(
      await adapter.findBy(session, Gadget, 'quantity', 'abc'),
      undefined,
      'a value the column cannot hold',
    );
    await assert.rejects(adapter.findBy(session, Gadget, 'nope', 1), TypeError);
  });

  it('simulates an outage: data methods and ping reject with 503 until available again', async () => {
    const row = await adapter.create(session, Gadget, { name: 'up' });
    adapter.setAvailable(false);
    assert.equal(adapter.available, false);
    const error = await rejectsWith(adapter.ping(), 'service_unavailable');
    assert.equal(error.status, 503);
    assert.equal(error.headers['Retry-After'], '5');
    const query = { filters: [], sort: [], limit: 1, offset: 0, withTotal: true };
    for (const call of [
      adapter.list(session, Gadget, query),
      adapter.get(session, Gadget, 1),
      adapter.findBy(session, Gadget, 'name', 'up'),
      adapter.create(session, Gadget, { name: 'down' }),
      adapter.update(session, Gadget, 1, { name: 'down' }),
      adapter.delete(session, Gadget, 1),
    ]) {
      await rejectsWith(call, 'service_unavailable');
    }
    assert.equal(adapter.describe(Gadget).table, 'gadgets', 'describe needs no connection');
    adapter.setAvailable(true);
    await adapter.ping();
    assert.deepEqual(
      await adapter.get(adapter.openSession(), Gadget, 1),
      row,
      'nothing changed during the outage',
    );
  });

  it('refuses sessions of another adapter; clear() empties tables and sequences; close() ends service', async () => {
    const other = createConformanceMemoryAdapter();
    await assert.rejects(adapter.get(other.openSession(), Gadget, 1), TypeError);
    await adapter.create(session, Gadget, { name: 'x' });
    adapter.clear();
    assert.equal((await adapter.create(session, Gadget, { name: 'x' })).id, 1);
    await adapter.close();
    assert.equal(adapter.available, false);
    await rejectsWith(adapter.get(session, Gadget, 1), 'service_unavailable');
  });
});
