/**
 * A model's default order (an adapter's `defaultOrder`, MikroORM's entity `orderBy`): lists sort
 * by the request's keys, then by the default keys no request key starts with the field of, then
 * by the primary key; keyset paging refuses default keys it cannot follow and says where they come
 * from; the description refuses keys that name nothing; the OpenAPI document tells the order
 * without naming a hidden field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError, ConfigurationError } from '../../../lib/errors.js';
import { buildModelDescription } from '../../../lib/model/describe.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { OpenApiRegistry } from '../../../lib/openapi/registry.js';
import { parseListQuery } from '../../../lib/query/list-query.js';
import type { ModelDescription, SortKey } from '../../../lib/types.js';
import { crudDoc, field } from '../openapi/fixtures.js';

class Player extends FrameworkModel {}

function players(defaultOrder: readonly SortKey[]): ModelDescription {
  return buildModelDescription({
    model: Player,
    name: 'Player',
    primaryKeys: ['id'],
    fields: [
      field('id', 'integer', { generated: true }),
      field('name', 'string'),
      field('rank', 'integer'),
      field('nickname', 'string', { nullable: true }),
      field('pin', 'string', { hidden: true }),
      field('team', 'integer', { relation: { kind: 'many-to-one', target: 'Team', targetKey: 'id' } }),
      field('address', 'object', { fields: [field('city', 'string')] }),
    ],
    defaultOrder,
  });
}

const byName = players([{ field: 'name', direction: 'asc' }]);

describe('list order with a default order', () => {
  it('sorts by the default order, then the key, when the request names no sort', () => {
    assert.deepEqual(parseListQuery(byName, '').sort, [
      { field: 'name', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
  });

  it("appends it after the request's keys, leaving out a key the request starts with", () => {
    assert.deepEqual(parseListQuery(byName, 'sort=-rank').sort, [
      { field: 'rank', direction: 'desc' },
      { field: 'name', direction: 'asc' },
      { field: 'id', direction: 'asc' },
    ]);
    assert.deepEqual(parseListQuery(byName, 'sort=-name').sort, [
      { field: 'name', direction: 'desc' },
      { field: 'id', direction: 'asc' },
    ]);
    const throughTeam = players([
      { field: 'team.name', direction: 'desc' },
      { field: 'id', direction: 'desc' },
    ]);
    // `team` and `team.name` start with one field, as MikroORM's mergeOrderBy sees them; a default key ends the order.
    assert.deepEqual(parseListQuery(throughTeam, 'sort=team').sort, [
      { field: 'team', direction: 'asc' },
      { field: 'id', direction: 'desc' },
    ]);
  });

  it('pages by keyset over default keys it can follow, bound to them', () => {
    const query = parseListQuery(byName, 'after=');
    assert.equal(query.cursorShape, 'Player|name,id|');
  });

  it('refuses keyset paging over a default key it cannot follow, saying it is the default order', () => {
    const cases: [SortKey, RegExp][] = [
      [{ field: 'nickname', direction: 'asc', nulls: 'last' }, /"nickname", which may be null/],
      [{ field: 'pin', direction: 'asc' }, /"pin", which is hidden/],
      [{ field: 'team.name', direction: 'asc' }, /"team\.name", which is a field of a related record/],
      [
        { field: 'address.city', direction: 'asc' },
        /"address\.city", which is a field of a related record or an embedded object/,
      ],
    ];
    for (const [key, message] of cases) {
      assert.throws(
        () => parseListQuery(players([key]), 'after='),
        (error: unknown) =>
          error instanceof ApiError &&
          error.status === 400 &&
          /default order of Player \(its ORM's orderBy\) sorts by/.test(error.message) &&
          message.test(error.message),
        key.field,
      );
      // Offset paging sorts by it all the same.
      assert.deepEqual(parseListQuery(players([key]), 'offset=10').sort[0], key);
    }
  });

  it('refuses a default order naming no field, an object, or more than one relation step', () => {
    for (const [key, message] of [
      [{ field: 'missing', direction: 'asc' }, /"missing" names no field/],
      [{ field: 'address', direction: 'asc' }, /"address" is an object/],
      [{ field: 'team.owner.name', direction: 'asc' }, /goes further than one relation/],
      [{ field: 'address.zip', direction: 'asc' }, /"address\.zip" names no field/],
      [{ field: 'rank', direction: 'up' }, /has the direction "up"/],
    ] as [SortKey, RegExp][]) {
      assert.throws(
        () => players([key]),
        (error: unknown) => error instanceof ConfigurationError && message.test(error.message),
        key.field,
      );
    }
    assert.throws(
      () =>
        players([
          { field: 'rank', direction: 'asc' },
          { field: 'rank', direction: 'desc' },
        ]),
      /is named twice/,
    );
  });

  it('documents the default order on the sort parameter, naming no hidden field', () => {
    const model = players([
      { field: 'nickname', direction: 'desc', nulls: 'last' },
      { field: 'pin', direction: 'asc' },
      { field: 'team.name', direction: 'asc' },
    ]);
    const registry = new OpenApiRegistry({ title: 'Players' });
    registry.addCrud(crudDoc(model));
    const list = (
      registry.document().paths as Record<string, Record<string, { parameters: Record<string, unknown>[] }>>
    )['/players']?.get;
    const sort = list?.parameters.find((parameter) => parameter.name === 'sort');
    const description = String(sort?.description);
    assert.match(
      description,
      /default order, `-nickname` \(nulls last\), a field it does not show \(ascending\), a field of the related `team` \(ascending\)/,
    );
    assert.match(description, /then by `id`/);
    assert.doesNotMatch(description, /pin/);
  });
});
