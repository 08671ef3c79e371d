import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { cursorShape, decodeCursor, encodeCursor, MAX_CURSOR_LENGTH } from '../../../lib/query/cursor.js';
import { parseListQuery } from '../../../lib/query/list-query.js';
import type { SortKey } from '../../../lib/types.js';
import { describeFields } from '../../support/model-facts.js';

class Event extends FrameworkModel {}
const model = describeFields(Event, {
  title: { type: 'string' },
  starts: { type: 'datetime' },
  day: { type: 'date' },
  seats: { type: 'bigint' },
  price: { type: 'decimal' },
  score: { type: 'number' },
  open: { type: 'boolean' },
  kind: { type: 'enum', enumValues: ['talk', 'workshop'] },
  note: { type: 'string', nullable: true },
  ratio: { type: 'number', singlePrecision: true },
});
class Other extends FrameworkModel {}
const other = describeFields(Other, { title: { type: 'string' } });

const sort: SortKey[] = [
  { field: 'starts', direction: 'desc' },
  { field: 'day', direction: 'asc' },
  { field: 'seats', direction: 'asc' },
  { field: 'price', direction: 'desc' },
  { field: 'score', direction: 'asc' },
  { field: 'open', direction: 'asc' },
  { field: 'kind', direction: 'desc' },
  { field: 'title', direction: 'asc' },
  { field: 'id', direction: 'asc' },
];
const row = {
  id: 7,
  title: 'Keysets, explained',
  starts: new Date('2026-03-01T09:30:00.250Z'),
  day: '2026-03-01',
  seats: 9007199254740993n,
  price: 12.5,
  score: 0.1 + 0.2,
  open: 1,
  kind: 'talk',
};

function refused(run: () => unknown, pattern: RegExp): void {
  assert.throws(
    run,
    (error: unknown) => error instanceof ApiError && error.status === 400 && pattern.test(error.message),
  );
}

describe('keyset cursors', () => {
  const shape = cursorShape(model, sort, []);

  it('round-trips every sortable kind to the form a query value has', () => {
    const cursor = encodeCursor(model, shape, sort, row);
    assert.match(cursor, /^[A-Za-z0-9_-]+\.[0-9a-z]+$/);
    assert.deepEqual(decodeCursor(model, shape, sort, cursor), [
      '2026-03-01T09:30:00.250Z',
      '2026-03-01',
      '9007199254740993',
      '12.5',
      0.1 + 0.2,
      true,
      'talk',
      'Keysets, explained',
      7,
    ]);
  });

  it('binds a cursor to the model, the sort keys, their directions and the filtered fields', () => {
    const cursor = encodeCursor(model, shape, sort, row);
    const flipped = sort.map((key, i) => (i === 0 ? { ...key, direction: 'asc' as const } : key));
    refused(
      () => decodeCursor(model, cursorShape(model, flipped, []), flipped, cursor),
      /another sort or filter/,
    );
    const filtered = cursorShape(model, sort, [{ field: 'open', op: '$eq', value: true }]);
    refused(() => decodeCursor(model, filtered, sort, cursor), /another sort or filter/);
    const titleSort: SortKey[] = [
      { field: 'title', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ];
    const titleCursor = encodeCursor(model, cursorShape(model, titleSort, []), titleSort, row);
    refused(
      () => decodeCursor(other, cursorShape(other, titleSort, []), titleSort, titleCursor),
      /another sort/,
    );
    // Filter values are not part of the shape: the same filter with another value keeps the cursor.
    const tuesday = cursorShape(model, sort, [{ field: 'open', op: '$eq', value: false }]);
    assert.equal(tuesday, filtered);
    // The order of the filters does not matter either.
    assert.equal(
      cursorShape(model, sort, [
        { field: 'open', op: '$eq', value: true },
        { field: 'seats', op: '$gt', value: '1' },
      ]),
      cursorShape(model, sort, [
        { field: 'seats', op: '$gt', value: '2' },
        { field: 'open', op: '$eq', value: false },
      ]),
    );
  });

  it('refuses garbage, truncated, edited and oversized cursors with 400', () => {
    const cursor = encodeCursor(model, shape, sort, row);
    const [text, check] = cursor.split('.') as [string, string];
    const values = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[];
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const edited = `${encode(['2027-01-01T00:00:00.000Z', ...values.slice(1)])}.${check}`;
    for (const bad of [
      'x',
      '%%%',
      text,
      `.${check}`,
      `${text}.`,
      `bm90IGpzb24.${check}`,
      cursor.slice(0, 20),
      `${cursor}0`,
      edited,
      `${encode({})}.${check}`,
      'A'.repeat(MAX_CURSOR_LENGTH + 1),
    ]) {
      refused(() => decodeCursor(model, shape, sort, bad), /after:/);
    }
  });

  it('refuses a cursor whose checksum matches but whose values are not values of the fields', () => {
    // Someone who recomputes the checksum still cannot smuggle a value of the wrong type.
    const short: SortKey[] = [
      { field: 'seats', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ];
    const shortShape = cursorShape(model, short, []);
    const good = encodeCursor(model, shortShape, short, { seats: 'twelve', id: 1 });
    refused(() => decodeCursor(model, shortShape, short, good), /not valid/);
    const nulls = encodeCursor(model, shortShape, short, { seats: null, id: 1 });
    refused(() => decodeCursor(model, shortShape, short, nulls), /not valid/);
  });
});

describe('parseListQuery with after', () => {
  it('starts a keyset walk with an empty after and decodes a cursor of the same list', () => {
    const start = parseListQuery(model, 'sort=-starts,title&after=');
    assert.equal(start.after, undefined);
    assert.equal(typeof start.cursorShape, 'string');
    const cursor = encodeCursor(model, start.cursorShape as string, start.sort, row);
    const next = parseListQuery(model, `sort=-starts,title&after=${cursor}&limit=5`);
    assert.deepEqual(next.after, ['2026-03-01T09:30:00.250Z', 'Keysets, explained', 7]);
    assert.equal(next.offset, 0);
    assert.equal(next.limit, 5);
  });

  it('leaves lists without after as they were', () => {
    const query = parseListQuery(model, 'sort=title');
    assert.equal('after' in query, false);
    assert.equal('cursorShape' in query, false);
  });

  it('refuses after with offset, after on nullable sort keys, and after given twice', () => {
    refused(() => parseListQuery(model, 'after=&offset=0'), /cannot be combined/);
    refused(() => parseListQuery(model, 'offset=20&after='), /cannot be combined/);
    refused(() => parseListQuery(model, 'sort=note&after='), /"note" may be null/);
    refused(() => parseListQuery(model, 'after=&after='), /more than once/);
    assert.doesNotThrow(() => parseListQuery(model, 'sort=note'));
  });

  it('refuses after on single-precision sort keys, whose stored values a cursor misses', () => {
    refused(() => parseListQuery(model, 'sort=ratio&after='), /"ratio" is stored in single precision/);
    refused(() => parseListQuery(model, 'sort=score,-ratio&after='), /single precision/);
    assert.doesNotThrow(() => parseListQuery(model, 'sort=ratio'));
    assert.doesNotThrow(() => parseListQuery(model, 'sort=score&after='));
  });

  it('refuses a cursor used with another sort or filter', () => {
    const start = parseListQuery(model, 'sort=title&after=');
    const cursor = encodeCursor(model, start.cursorShape as string, start.sort, row);
    refused(() => parseListQuery(model, `sort=-title&after=${cursor}`), /another sort or filter/);
    refused(
      () => parseListQuery(model, `sort=title&filter[open]=true&after=${cursor}`),
      /another sort or filter/,
    );
    assert.doesNotThrow(() => parseListQuery(model, `sort=title&count=false&fields=id&after=${cursor}`));
  });
});
