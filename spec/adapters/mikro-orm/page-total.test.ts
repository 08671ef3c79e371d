/**
 * A page and its total in one statement (PostgreSQL): the SQL is composed only when the select
 * list is plain quoted names, and totals equal separate counts on every target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { type CombinedCache, withTotalColumn } from '../../../adapters/mikro-orm/page-total.js';
import type { ListQuery } from '../../../lib/types.js';
import { fixtureModels } from '../../fixtures/mikro-orm/index.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { type FixtureAdapter, openFixtureAdapter } from '../../support/fixture-adapter.js';

const { Category } = fixtureModels;

describe('withTotalColumn', () => {
  const page = 'select "e0"."id", "e0"."name" from "categories" as "e0" where "e0"."id" > ? limit ?';
  const count = 'select count(*) as "count" from "categories" as "e0" where "e0"."name" != ?';

  it('puts the count in the select list, so its placeholders come before the page ones', () => {
    const sql = withTotalColumn(page, count, new Map());
    assert.equal(
      sql,
      'select "e0"."id", "e0"."name", (select count(*) as "count" from "categories" as "e0" where "e0"."name" != ?) as "kma_total" from "categories" as "e0" where "e0"."id" > ? limit ?',
    );
  });

  it('refuses select lists that are not plain quoted names, and anything but a count', () => {
    const cache: CombinedCache = new Map();
    assert.equal(withTotalColumn('select "e0"."a from b" from "t" as "e0"', count, cache), undefined);
    assert.equal(withTotalColumn('select ? as "x", "e0"."id" from "t" as "e0"', count, cache), undefined);
    assert.equal(withTotalColumn('select * from "t"', count, cache), undefined);
    assert.equal(withTotalColumn(page, 'select max("e0"."id") from "t" as "e0"', cache), undefined);
  });

  it('returns the same string for the same pair (templates repeat, so lookups stay cheap)', () => {
    const cache: CombinedCache = new Map();
    assert.equal(withTotalColumn(page, count, cache), withTotalColumn(page, count, cache));
    assert.equal(cache.size, 1);
  });
});

for (const target of databaseTargets()) {
  describe(`page totals on ${target}`, await requireTarget(target), () => {
    let fixture: FixtureAdapter;
    let adapter: MikroOrmAdapter;
    before(async () => {
      fixture = await openFixtureAdapter(target);
      adapter = fixture.adapter;
      for (let i = 1; i <= 25; i++)
        await adapter.create(adapter.openSession(), Category, { name: `c${String(i).padStart(2, '0')}` });
    });
    after(() => fixture?.close());

    const list = (query: Partial<ListQuery>) =>
      adapter.list(adapter.openSession(), Category, {
        filters: [],
        sort: [{ field: 'id', direction: 'asc' }],
        limit: 10,
        offset: 0,
        withTotal: true,
        ...query,
      });

    it('counts every matching row, whatever the page, the offset or the keyset position', async () => {
      const first = await list({});
      assert.equal(first.total, 25);
      assert.deepEqual(
        first.rows.map((row) => row.name),
        ['c01', 'c02', 'c03', 'c04', 'c05', 'c06', 'c07', 'c08', 'c09', 'c10'],
      );
      const filtered = await list({ filters: [{ field: 'name', op: '$gt', value: 'c20' }], offset: 2 });
      assert.equal(filtered.total, 5);
      assert.deepEqual(
        filtered.rows.map((row) => row.name),
        ['c23', 'c24', 'c25'],
      );
      const keyset = await list({ after: [20] });
      assert.equal(keyset.total, 25, 'the total ignores the keyset position');
      assert.equal(keyset.rows.length, 5);
    });

    it('still counts when the page is empty', async () => {
      const beyond = await list({ offset: 100 });
      assert.deepEqual(beyond.rows, []);
      assert.equal(beyond.total, 25);
      const none = await list({ filters: [{ field: 'name', op: '$eq', value: 'nobody' }] });
      assert.deepEqual(none, { rows: [], total: 0 });
    });
  });
}
