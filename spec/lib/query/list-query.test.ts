import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { parseListQuery } from '../../../lib/query/list-query.js';
import { describeFields } from '../../support/model-facts.js';

class Gadget extends FrameworkModel {}
const model = describeFields(Gadget, {
  name: { type: 'string', maxLength: 100 },
  quantity: { type: 'integer', hasDefault: true },
  active: { type: 'boolean' },
  released: { type: 'date', nullable: true },
  color: { type: 'enum', enumValues: ['red', 'green'] },
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

  it('refuses unknown parameters with the list of known ones', () => {
    invalid('page=2', /Unknown query parameter "page"/);
    invalid('filter[name][$eq][x]=1', /Unknown query parameter/);
  });

  it('can skip the total count', () => {
    assert.equal(parseListQuery(model, 'count=false').withTotal, false);
  });
});
