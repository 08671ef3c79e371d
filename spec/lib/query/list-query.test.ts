import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../lib/errors.js';
import { buildModelDescription } from '../../../lib/model/describe.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { cursorShape, encodeCursor } from '../../../lib/query/cursor.js';
import { parseListQuery } from '../../../lib/query/list-query.js';
import { describeFields } from '../../support/model-facts.js';
import { field, placeDescription } from '../openapi/fixtures.js';

class Gadget extends FrameworkModel {}
const model = describeFields(Gadget, {
  name: { type: 'string', maxLength: 100 },
  quantity: { type: 'integer', hasDefault: true },
  active: { type: 'boolean' },
  released: { type: 'date', nullable: true },
  color: { type: 'enum', enumValues: ['red', 'green'] },
  // A native enum: the adapter says the database keeps it otherwise than as text.
  finish: { type: 'enum', enumValues: ['matt', 'gloss'], patterns: false },
  metadata: { type: 'json', nullable: true },
  secret: { type: 'string', hidden: true, nullable: true },
});

function invalid(search: string, pattern: RegExp): void {
  assert.throws(
    () => parseListQuery(model, search),
    (error: unknown) => error instanceof ApiError && error.status === 400 && pattern.test(error.message),
    search,
  );
}

describe('parseListQuery', () => {
  it('defaults to 100 rows from offset 0, sorted by the key, with a total', () => {
    const query = parseListQuery(model, '');
    assert.deepEqual(query, {
      filters: [],
      sort: [{ field: 'id', direction: 'asc' }],
      limit: 100,
      offset: 0,
      withTotal: true,
    });
  });

  it('reads limit, offset, multi-key sort and field selection', () => {
    const query = parseListQuery(model, 'limit=20&offset=40&sort=-quantity,name&fields=name,quantity');
    assert.equal(query.limit, 20);
    assert.equal(query.offset, 40);
    assert.deepEqual(query.sort, [
      { field: 'quantity', direction: 'desc' },
      { field: 'name', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
    assert.deepEqual(query.fields, ['name', 'quantity']);
  });

  it('coerces filter values to the field type for every operator', () => {
    const query = parseListQuery(
      model,
      'filter[quantity][$gte]=5&filter[name]=a%20b&filter[active]=true&filter[color][$in]=red,green&filter[name][$like]=a%25&filter[released][$exists]=false',
    );
    assert.deepEqual(query.filters, [
      { field: 'quantity', op: '$gte', value: 5 },
      { field: 'name', op: '$eq', value: 'a b' },
      { field: 'active', op: '$eq', value: true },
      { field: 'color', op: '$in', value: ['red', 'green'] },
      { field: 'name', op: '$like', value: 'a%' },
      { field: 'released', op: '$exists', value: false },
    ]);
  });

  it('refuses limits out of range and malformed numbers', () => {
    invalid('limit=1001', /between 1 and 1000/);
    invalid('limit=0', /between 1 and 1000/);
    invalid('limit=-1', /non-negative integer/);
    invalid('offset=-5', /non-negative integer/);
    invalid('offset=1e3', /non-negative integer/);
    invalid('limit=1&limit=2', /more than once/);
  });

  it('refuses hidden and unknown fields in filter, sort and fields', () => {
    invalid('filter[secret]=x', /no readable field "secret"/);
    invalid('sort=secret', /no readable field "secret"/);
    invalid('fields=id,secret', /no readable field "secret"/);
    invalid('filter[nope]=1', /no readable field "nope"/);
    invalid('sort=-nope', /no readable field "nope"/);
  });

  it('refuses values of the wrong type, unknown operators and misplaced operators', () => {
    invalid('filter[quantity]=abc', /not a valid integer/);
    invalid('filter[quantity]=99999999999', /not a valid integer/);
    invalid('filter[active]=yes', /not a valid boolean/);
    invalid('filter[color]=purple', /not a valid enum/);
    invalid('filter[released]=yesterday', /not a valid date/);
    invalid('filter[name][$regex]=x', /unknown operator/);
    invalid('filter[quantity][$like]=1', /text fields only/);
    invalid('filter[active][$gt]=true', /does not apply to boolean/);
    invalid('filter[metadata]=1', /only be tested with \$exists/);
    invalid('filter[name][$exists]=maybe', /true or false/);
    invalid('sort=metadata', /cannot be sorted/);
  });

  it('compares a key of a custom type (a JSON key) for equality with the text given, as its {id} path', () => {
    class Depot extends FrameworkModel {}
    const depots = buildModelDescription({
      model: Depot,
      name: 'Depot',
      primaryKeys: ['code'],
      fields: [
        field('code', 'json'),
        field('parent', 'json', { relation: { kind: 'many-to-one', target: 'Depot', targetKey: 'code' } }),
        field('meta', 'json'),
      ],
    });
    assert.deepEqual(parseListQuery(depots, 'filter[code]=oslo&filter[parent][$in]=a,b').filters, [
      { field: 'code', op: '$eq', value: 'oslo' },
      { field: 'parent', op: '$in', value: ['a', 'b'] },
    ]);
    assert.equal(parseListQuery(depots, 'filter[parent][$ne]=oslo').filters[0]?.op, '$ne');
    for (const [search, message] of [
      ['filter[code][$gt]=a', /does not apply to json/],
      ['filter[parent][$like]=a%25', /text fields only/],
      ['filter[meta]=1', /only be tested with \$exists/],
    ] as const)
      assert.throws(
        () => parseListQuery(depots, search),
        (error: unknown) => error instanceof ApiError && message.test(error.message),
        search,
      );
  });

  it('refuses unknown parameters with the list of known ones', () => {
    invalid('page=2', /Unknown query parameter "page"/);
    invalid('filter[name][$eq][x]=1', /Unknown query parameter/);
  });

  it('ignores parameters starting with _ or utm_, and nothing else', () => {
    assert.deepEqual(parseListQuery(model, '_=1712&_=again&utm_source=x&utm_medium=y').filters, []);
    invalid('utm=1', /Unknown query parameter "utm".*_ or utm_ are ignored/);
    invalid('UTM_source=1', /Unknown query parameter "UTM_source"/);
  });

  it('takes $ilike like $like, and caps pattern length and wildcards', () => {
    assert.deepEqual(parseListQuery(model, 'filter[name][$ilike]=A%25').filters, [
      { field: 'name', op: '$ilike', value: 'A%' },
    ]);
    invalid(`filter[name][$like]=${'a'.repeat(101)}`, /101 characters long; at most 100.*like\.max_length/);
    invalid('filter[name][$ilike]=%25a%25b%25c_d_', /5 wildcards.*at most 4.*like\.max_wildcards/);
    invalid('filter[name][$like]=ab%5C', /ends in a backslash/);
    invalid('filter[quantity][$ilike]=1', /text fields only/);
    invalid('filter[finish][$like]=m%25', /filter\[finish\]\[\$like\] applies to text fields only/);
    invalid('filter[finish][$ilike]=m%25', /text fields only/);
    assert.equal(parseListQuery(model, 'filter[color][$like]=r%25').filters.length, 1);
    assert.equal(parseListQuery(model, 'filter[finish]=matt').filters.length, 1);
    // Escaped wildcards are not wildcards.
    assert.equal(parseListQuery(model, `filter[name][$like]=${'%5C%25'.repeat(10)}`).filters.length, 1);
    const like = { maxLength: 8, maxWildcards: 1, textFields: new Set<string>() };
    assert.equal(parseListQuery(model, 'filter[name][$like]=abcdefg%25', { like }).filters.length, 1);
    assert.throws(() => parseListQuery(model, 'filter[name][$like]=abcdefgh%25', { like }), /at most 8/);
    assert.throws(() => parseListQuery(model, 'filter[name][$like]=a%25b_', { like }), /at most 1/);
  });

  it('refuses a NUL byte in every value a query carries, patterns included', () => {
    invalid('filter[name][$like]=a%00%25', /\$like\]: the pattern contains a NUL character/);
    invalid('filter[name][$ilike]=%00', /\$ilike\]: the pattern contains a NUL character/);
    invalid('filter[name]=a%00', /is not a valid string value/);
    invalid('filter[name][$gt]=a%00', /is not a valid string value/);
    invalid('filter[name][$in]=a,b%00', /is not a valid string value/);
    invalid('filter[color][$nin]=red%00', /is not a valid enum value/);
    invalid('filter[released][$exists]=true%00', /must be true or false/);
    invalid('sort=name%00', /no readable field/);
    invalid('filter[na%00me]=a', /no readable field/);
    // A cursor whose checksum holds, with a NUL in its value: refused as any made-up value is.
    const sort = parseListQuery(model, 'sort=name').sort;
    const cursor = encodeCursor(model, cursorShape(model, sort, []), sort, { name: 'a\u0000', id: 1 });
    invalid(`sort=name&after=${cursor}`, /the cursor is not valid/);
  });

  it('lets patterns reach unbounded text fields only where the router opts in', () => {
    class Note extends FrameworkModel {}
    const notes = describeFields(Note, { title: { type: 'string', maxLength: 50 }, body: { type: 'text' } });
    const search = 'filter[body][$like]=%25x%25';
    assert.throws(
      () => parseListQuery(notes, search),
      (error: unknown) =>
        error instanceof ApiError &&
        error.status === 400 &&
        /"body" is an unbounded text field.*like\.text_fields/.test(error.message),
    );
    assert.equal(parseListQuery(notes, 'filter[body]=x').filters.length, 1, 'other operators need no opt-in');
    const limits = { maxLength: 100, maxWildcards: 4 };
    for (const textFields of [true as const, new Set(['body'])]) {
      assert.equal(parseListQuery(notes, search, { like: { ...limits, textFields } }).filters.length, 1);
    }
  });

  it('can skip the total count', () => {
    assert.equal(parseListQuery(model, 'count=false').withTotal, false);
  });
});

describe('parseListQuery: embedded objects, arrays, computed, lazy and non-queryable fields', () => {
  const place = placeDescription();

  function refused(search: string, pattern: RegExp): string {
    try {
      parseListQuery(place, search);
    } catch (error) {
      assert.ok(error instanceof ApiError && error.status === 400, search);
      assert.match(error.message, pattern, search);
      return error.message;
    }
    assert.fail(`expected a 400 for ${search}`);
  }

  it('filters a nested scalar by dotted path, coerced to the nested type', () => {
    const query = parseListQuery(
      place,
      'filter[address.city][$eq]=Oslo&filter[address.geo.lat][$gt]=59.5&filter[billing.since][$lte]=2024-01-01' +
        '&filter[address.zip][$exists]=true&filter[address.city][$like]=Os%25&filter[address.street]=Kaigata%201',
    );
    assert.deepEqual(query.filters, [
      { field: 'address.city', op: '$eq', value: 'Oslo' },
      { field: 'address.geo.lat', op: '$gt', value: 59.5 },
      { field: 'billing.since', op: '$lte', value: '2024-01-01' },
      { field: 'address.zip', op: '$exists', value: true },
      { field: 'address.city', op: '$like', value: 'Os%' },
      { field: 'address.street', op: '$eq', value: 'Kaigata 1' },
    ]);
    assert.deepEqual(parseListQuery(place, 'filter[address.geo.lng][$in]=1,2.5').filters, [
      { field: 'address.geo.lng', op: '$in', value: [1, 2.5] },
    ]);
  });

  it('refuses a nested value of the wrong type, naming the parameter', () => {
    refused(
      'filter[address.geo.lat]=north',
      /^filter\[address\.geo\.lat\]: "north" is not a valid number value/,
    );
    refused('filter[billing.since][$gt]=soon', /not a valid date/);
  });

  it('answers a hidden field anywhere on the path like an unknown one', () => {
    const hidden = refused('filter[address.token]=t', /Place has no readable field "address\.token"/);
    assert.equal(
      refused('filter[address.nope]=t', /no readable field/),
      hidden.replace('address.token', 'address.nope'),
    );
    refused('filter[secret.x]=1', /no readable field "secret\.x"/);
    refused('filter[name.first]=1', /no readable field "name\.first"/);
    refused('filter[address.]=1', /no readable field/);
    refused('filter[.city]=1', /no readable field/);
  });

  it('refuses non-queryable fields, objects and arrays in filters', () => {
    refused('filter[address.notes]=x', /"address\.notes" cannot be filtered/);
    refused('filter[score][$gt]=1', /"score" cannot be filtered/);
    refused('filter[tags]=sea', /"tags" cannot be filtered/);
    refused(
      'filter[address]=Oslo',
      /"address" cannot be filtered; filter one of its fields by dotted path, e\.g\. filter\[address\.street\]/,
    );
    refused('filter[address.geo][$exists]=true', /"address\.geo" cannot be filtered/);
  });

  it('sorts by top-level queryable fields only', () => {
    assert.deepEqual(parseListQuery(place, 'sort=-label').sort, [
      { field: 'label', direction: 'desc' },
      { field: 'id', direction: 'asc' },
    ]);
    refused(
      'sort=address.city',
      /sort: "address\.city" is a nested path; sort takes top-level fields of Place only/,
    );
    refused('sort=address', /sort: "address" cannot be sorted/);
    refused('sort=-tags', /sort: "tags" cannot be sorted/);
    refused('sort=score', /sort: "score" cannot be sorted/);
    refused('sort=secret.x', /no readable field "secret\.x"/);
  });

  it('selects lazy, computed and non-queryable top-level fields, and nothing nested', () => {
    const query = parseListQuery(place, 'fields=description,score,tags,address,label');
    assert.deepEqual(query.fields, ['description', 'score', 'tags', 'address', 'label']);
    refused('fields=address.city', /fields: "address\.city" is a nested path/);
    refused('fields=name,secret', /no readable field "secret"/);
  });

  it('refuses keyset paging by a lazy field, whose value a row carries only when asked', () => {
    class Note extends FrameworkModel {}
    const notes = buildModelDescription({
      model: Note,
      name: 'Note',
      primaryKeys: ['id'],
      fields: [field('id', 'integer', { generated: true }), field('body', 'text', { lazy: true })],
    });
    assert.deepEqual(parseListQuery(notes, 'sort=body').sort[0], { field: 'body', direction: 'asc' });
    assert.throws(
      () => parseListQuery(notes, 'sort=body&after='),
      (error: unknown) => error instanceof ApiError && /"body" is loaded only on request/.test(error.message),
    );
    assert.equal(parseListQuery(place, 'sort=opened_at&after=').cursorShape, 'Place|opened_at,id|');
  });

  it('binds a keyset cursor to dotted filters like to any other', () => {
    const first = parseListQuery(place, 'after=&filter[address.city]=Oslo');
    const second = parseListQuery(place, 'after=&filter[address.street]=Oslo');
    assert.ok(first.cursorShape?.includes('address.city$eq'));
    assert.notEqual(first.cursorShape, second.cursorShape);
  });
});

describe('parseListQuery and a field whose filters the database limits (filterLimit)', () => {
  class Sensor extends FrameworkModel {}
  const reason = 'the database reads a null there as 0';
  const limited = describeFields(Sensor, {
    level: {
      type: 'integer',
      nullable: true,
      filterLimit: { operators: ['$eq', '$in'], values: [0], reason },
    },
    on: {
      type: 'boolean',
      nullable: true,
      filterLimit: { operators: ['$eq', '$exists'], values: [false], reason },
    },
    stamp: { type: 'datetime', nullable: true, filterLimit: { operators: [], reason } },
    amount: {
      type: 'decimal',
      nullable: true,
      filterLimit: { operators: ['$eq', '$in'], values: [0], reason },
    },
  });
  const refused = (search: string, pattern: RegExp) =>
    assert.throws(
      () => parseListQuery(limited, search),
      (error: unknown) =>
        error instanceof ApiError && error.code === 'invalid_query' && pattern.test(error.message),
      search,
    );

  it('takes the operators and values it allows', () => {
    const query = parseListQuery(limited, 'filter[level]=5&filter[level][$in]=1,2&filter[on][$exists]=false');
    assert.deepEqual(query.filters, [
      { field: 'level', op: '$eq', value: 5 },
      { field: 'level', op: '$in', value: [1, 2] },
      // `false` is refused as a compared value, not as $exists' flag.
      { field: 'on', op: '$exists', value: false },
    ]);
  });

  it('refuses another operator with the reason and the operators it takes', () => {
    refused(
      'filter[level][$gt]=1',
      /^filter\[level\]\[\$gt\]: the database reads a null there as 0 \(this field takes \$eq \$in\)\.$/,
    );
    refused('filter[stamp][$exists]=true', /filter\[stamp\]\[\$exists\]: .*\(this field takes no filter\)/);
  });

  it('refuses a value a null would equal, in a list too', () => {
    refused(
      'filter[level]=0',
      /^filter\[level\]: 0 would also match the records where it is null; the database reads/,
    );
    refused('filter[level][$in]=1,0', /^filter\[level\]: 0 would also match/);
    refused('filter[on]=false', /^filter\[on\]: false would also match/);
    // A decimal's value is text: "0.00" is the refused 0 all the same.
    refused('filter[amount]=0.00', /^filter\[amount\]: "0\.00" would also match/);
    refused('filter[amount][$in]=1,0', /^filter\[amount\]: "0" would also match/);
    assert.deepEqual(parseListQuery(limited, 'filter[amount]=0.5').filters, [
      { field: 'amount', op: '$eq', value: '0.5' },
    ]);
  });
});
