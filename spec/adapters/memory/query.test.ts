/** List queries of the MemoryAdapter: SQL filter semantics, PostgreSQL null ordering, paging. */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { likeMatcher } from '../../../adapters/memory/compare.js';
import type { MemoryAdapter, MemorySession } from '../../../adapters/memory/index.js';
import { ApiError } from '../../../lib/errors.js';
import type { FilterCondition, ListQuery, SortKey } from '../../../lib/types.js';
import { createConformanceMemoryAdapter, Gadget } from './conformance-models.js';

const ROWS = [
  {
    name: 'a_1',
    quantity: 1,
    price: '9.5',
    rating: null,
    active: true,
    released: '2024-01-01',
    serial: '10',
    description: 'One',
    metadata: { k: 1 },
  },
  {
    name: 'b%2',
    quantity: 2,
    price: '10',
    rating: 2.5,
    active: false,
    released: null,
    serial: '9',
    description: null,
    metadata: null,
  },
  {
    name: 'c\\3',
    quantity: 2,
    price: null,
    rating: 1.5,
    active: true,
    released: '2023-12-31',
    serial: null,
    description: 'three',
    metadata: [1],
  },
  {
    name: 'D4',
    quantity: 4,
    price: '-1.25',
    rating: 4.5,
    active: false,
    released: '2024-06-01',
    serial: '100',
    description: 'four',
    metadata: null,
  },
];

describe('MemoryAdapter.list', () => {
  let adapter: MemoryAdapter;
  let session: MemorySession;
  before(async () => {
    adapter = createConformanceMemoryAdapter();
    session = adapter.openSession();
    for (const row of ROWS) await adapter.create(session, Gadget, row);
  });

  async function names(
    filters: FilterCondition[],
    sort: SortKey[] = [],
    page: Partial<ListQuery> = {},
  ): Promise<string[]> {
    const result = await adapter.list(session, Gadget, {
      filters,
      sort,
      limit: 100,
      offset: 0,
      withTotal: false,
      ...page,
    });
    return result.rows.map((row) => row.name as string);
  }
  const f = (field: string, op: FilterCondition['op'], value: unknown): FilterCondition => ({
    field,
    op,
    value,
  });

  it('compares with NULL like SQL: never true, except IS NULL / IS NOT NULL', async () => {
    assert.deepEqual(await names([f('description', '$eq', null)]), ['b%2']);
    assert.deepEqual(await names([f('description', '$ne', null)]), ['a_1', 'c\\3', 'D4']);
    assert.deepEqual(await names([f('description', '$ne', 'One')]), ['c\\3', 'D4'], '$ne skips NULL rows');
    assert.deepEqual(await names([f('rating', '$lt', 3)]), ['b%2', 'c\\3']);
    assert.deepEqual(await names([f('rating', '$gt', null)]), [], 'an ordering against NULL is never true');
    assert.deepEqual(await names([f('serial', '$nin', ['10'])]), ['b%2', 'D4'], '$nin skips NULL rows');
    assert.deepEqual(await names([f('serial', '$nin', ['10', null])]), [], 'NOT IN (…, NULL) is never true');
    assert.deepEqual(await names([f('serial', '$in', ['10', null])]), ['a_1']);
    assert.deepEqual(await names([f('metadata', '$exists', true)]), ['a_1', 'c\\3']);
    assert.deepEqual(await names([f('metadata', '$exists', false)]), ['b%2', 'D4']);
  });

  it('compares by field type: decimals and bigints as numbers, dates, booleans, json by value', async () => {
    assert.deepEqual(await names([f('price', '$gte', '9.50')]), ['a_1', 'b%2']);
    assert.deepEqual(await names([f('price', '$lt', 0)]), ['D4']);
    assert.deepEqual(await names([f('serial', '$gt', '9')]), ['a_1', 'D4']);
    assert.deepEqual(await names([f('released', '$lt', '2024-01-01')]), ['c\\3']);
    assert.deepEqual(await names([f('active', '$eq', false)]), ['b%2', 'D4']);
    assert.deepEqual(await names([f('metadata', '$eq', { k: 1 })]), ['a_1']);
    assert.deepEqual(
      await names([f('quantity', '$gte', 2), f('active', '$eq', true)]),
      ['c\\3'],
      'conditions AND together',
    );
  });

  it('matches $like case-sensitively with % _ and backslash escapes', async () => {
    assert.deepEqual(await names([f('name', '$like', '_4')]), ['D4']);
    assert.deepEqual(await names([f('name', '$like', 'd%')]), []);
    assert.deepEqual(await names([f('name', '$like', '%\\_%')]), ['a_1']);
    assert.deepEqual(await names([f('name', '$like', '%\\%%')]), ['b%2']);
    assert.deepEqual(await names([f('name', '$like', '%\\\\%')]), ['c\\3']);
    assert.deepEqual(
      await names([f('description', '$like', '%e')]),
      ['One', 'three'].map((d) => ROWS.find((r) => r.description === d)?.name as string),
    );
    const like = (pattern: string) => likeMatcher(pattern, false);
    assert.ok(like('a.c')('a.c') && !like('a.c')('abc'), 'regex characters are literal');
    assert.ok(like('_')('é') && like('%')('line\nbreak'), '_ is one character; % spans newlines');
    assert.ok(like('_')('😀') && !like('__')('😀'), '_ is one code point, not one UTF-16 unit');
    assert.ok(
      like('\\a%')('a1') && like('a\\')('a\\'),
      'an escaped letter is the letter; a final backslash is literal',
    );
  });

  it('matches $ilike ignoring case, Unicode included, with the same escapes', async () => {
    assert.deepEqual(await names([f('name', '$ilike', 'd%')]), ['D4']);
    assert.deepEqual(await names([f('name', '$ilike', 'A\\_%')]), ['a_1']);
    assert.deepEqual(await names([f('name', '$ilike', 'C\\\\%')]), ['c\\3']);
    assert.deepEqual(await names([f('name', '$ilike', 'x%')]), []);
    assert.deepEqual(await names([f('name', '$ilike', 'B\\%%')]), ['b%2']);
    assert.ok(likeMatcher('ÉTÉ', true)('été') && !likeMatcher('ÉTÉ', false)('été'));
  });

  it('matches in time linear in text × pattern: no regex backtracking on %a%a%a%b', () => {
    const text = 'a'.repeat(200_000);
    const started = performance.now();
    assert.equal(likeMatcher('%a%a%a%b', false)(text), false);
    assert.equal(likeMatcher(`%${'a'.repeat(90)}b`, true)(text), false);
    assert.ok(performance.now() - started < 2_000, `took ${Math.round(performance.now() - started)} ms`);
  });

  it('sorts on several keys, NULLs last ascending and first descending (PostgreSQL)', async () => {
    assert.deepEqual(
      await names(
        [],
        [
          { field: 'quantity', direction: 'desc' },
          { field: 'name', direction: 'asc' },
        ],
      ),
      ['D4', 'b%2', 'c\\3', 'a_1'],
    );
    assert.deepEqual(await names([], [{ field: 'rating', direction: 'asc' }]), ['c\\3', 'b%2', 'D4', 'a_1']);
    assert.deepEqual(await names([], [{ field: 'rating', direction: 'desc' }]), ['a_1', 'D4', 'b%2', 'c\\3']);
    assert.deepEqual(
      await names([], [{ field: 'price', direction: 'asc' }]),
      ['D4', 'a_1', 'b%2', 'c\\3'],
      'decimals by value',
    );
    assert.deepEqual(
      await names([], [{ field: 'name', direction: 'asc' }]),
      ['D4', 'a_1', 'b%2', 'c\\3'],
      'by code point',
    );
    assert.deepEqual(
      await names([], [{ field: 'quantity', direction: 'asc' }]),
      ['a_1', 'b%2', 'c\\3', 'D4'],
      'ties keep insertion order',
    );
  });

  it('pages with limit and offset and counts the filtered rows', async () => {
    const sort: SortKey[] = [{ field: 'id', direction: 'asc' }];
    const page = await adapter.list(session, Gadget, {
      filters: [f('quantity', '$gte', 2)],
      sort,
      limit: 1,
      offset: 1,
      withTotal: true,
    });
    assert.deepEqual(
      page.rows.map((row) => row.name),
      ['c\\3'],
    );
    assert.equal(page.total, 3);
    const none = await adapter.list(session, Gadget, {
      filters: [],
      sort,
      limit: 10,
      offset: 10,
      withTotal: false,
    });
    assert.deepEqual(none, { rows: [] });
  });

  it('refuses unknown fields and values that do not fit the field with 400', async () => {
    for (const filters of [
      [f('nope', '$eq', 1)],
      [f('quantity', '$gt', 'abc')],
      [f('quantity', '$in', 3)],
      [f('name', '$like', 5)],
    ]) {
      await assert.rejects(
        names(filters),
        (error: unknown) => error instanceof ApiError && error.code === 'invalid_query',
      );
    }
    await assert.rejects(
      names([], [{ field: 'nope', direction: 'asc' }]),
      (error: unknown) => error instanceof ApiError && error.status === 400,
    );
  });
});
