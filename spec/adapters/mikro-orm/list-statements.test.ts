/**
 * List statements built once per shape give exactly the SQL and parameters the query builder
 * gives for each request, and shapes whose values the builder converts are never templated.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { type ListStatement, ListStatements } from '../../../adapters/mikro-orm/list-statements.js';
import { buildPlan, type ModelPlan, ROOT_ALIAS } from '../../../adapters/mikro-orm/plan.js';
import { listWhereOf, orderByOf } from '../../../adapters/mikro-orm/query.js';
import type { ListQuery, ModelClass } from '../../../lib/types.js';
import { fixtureModels } from '../../fixtures/mikro-orm/index.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { type FixtureAdapter, openFixtureAdapter } from '../../support/fixture-adapter.js';

const page = (overrides: Partial<ListQuery>): ListQuery => ({
  filters: [],
  sort: [{ field: 'id', direction: 'asc' }],
  limit: 20,
  // The builder leaves `offset 0` out, a template always has it: compared with a non-zero offset.
  offset: 5,
  withTotal: false,
  ...overrides,
});

for (const target of databaseTargets()) {
  describe(`list statements on ${target}`, await requireTarget(target), () => {
    let fixture: FixtureAdapter;
    let adapter: MikroOrmAdapter;
    const plans = new Map<ModelClass, ModelPlan>();
    const planOf = (model: ModelClass): ModelPlan => {
      const plan = plans.get(model) ?? buildPlan(adapter.orm, model);
      plans.set(model, plan);
      return plan;
    };
    /** The adapter's builder, counting its calls. */
    const builder =
      (plan: ModelPlan, calls: { n: number }) =>
      (query: ListQuery): ListStatement => {
        calls.n++;
        return (adapter.orm.em.fork() as unknown as SqlEntityManager)
          .createQueryBuilder(plan.entity as never, ROOT_ALIAS)
          .select(plan.select as never)
          .where(listWhereOf(plan, query) as never)
          .orderBy(orderByOf(plan, query.sort) as never)
          .limit(query.limit, query.offset)
          .toQuery();
      };

    before(async () => {
      fixture = await openFixtureAdapter(target);
      adapter = fixture.adapter;
    });
    after(() => fixture?.close());

    it('fills a shape built once with each request values, as the builder would', () => {
      const lists = new ListStatements();
      const plan = planOf(fixtureModels.Gadget);
      const calls = { n: 0 };
      const build = builder(plan, calls);
      const shapes: ((n: number) => ListQuery)[] = [
        (n) => page({ limit: 10 + n, offset: n * 7 + 1 }),
        (n) =>
          page({
            filters: [{ field: 'quantity', op: '$gt', value: n }],
            sort: [
              { field: 'name', direction: 'desc' },
              { field: 'id', direction: 'asc' },
            ],
          }),
        (n) =>
          page({
            filters: [{ field: 'color', op: '$in', value: n % 2 === 0 ? ['red', 'blue'] : ['green', 'red'] }],
          }),
        (n) =>
          page({
            filters: [
              { field: 'name', op: '$ne', value: `x${n}` },
              { field: 'rating', op: '$lte', value: n + 0.5 },
            ],
          }),
        (n) =>
          page({
            filters: [
              { field: 'description', op: '$eq', value: null },
              { field: 'released', op: '$exists', value: true },
            ],
            offset: n + 1,
          }),
        (n) =>
          page({
            sort: [
              { field: 'quantity', direction: 'desc' },
              { field: 'color', direction: 'asc' },
              { field: 'id', direction: 'asc' },
            ],
            after: [n, 'green', n * 3],
          }),
      ];
      for (const shape of shapes) {
        calls.n = 0;
        for (let n = 0; n < 4; n++) {
          const query = shape(n);
          const got = lists.statement(plan, query, true, build);
          const builds = calls.n;
          assert.deepEqual(got, build(query), `request ${n} of ${JSON.stringify(shape(0))}`);
          calls.n = builds;
        }
        assert.equal(calls.n, 1, `one build per shape: ${JSON.stringify(shape(0))}`);
      }
    });

    it('reads the same rows with offset 0, which the template keeps as a parameter', async () => {
      const lists = new ListStatements();
      const plan = planOf(fixtureModels.Person);
      const session = adapter.openSession();
      for (const name of ['p1', 'p2', 'p3']) await adapter.create(session, fixtureModels.Person, { name });
      const build = builder(plan, { n: 0 });
      const query = page({ offset: 0, limit: 2 });
      lists.statement(plan, query, true, build);
      const templated = lists.statement(plan, query, true, build);
      const built = build(query);
      assert.notEqual(templated.sql, built.sql);
      const run = (statement: ListStatement) =>
        adapter.orm.em.getConnection().execute(statement.sql, [...statement.params], 'all');
      assert.deepEqual(await run(templated), await run(built));
      assert.equal(((await run(templated)) as unknown[]).length, 2);
    });

    it('keeps shapes apart: another operator, list length or null test is another template', () => {
      const lists = new ListStatements();
      const plan = planOf(fixtureModels.Gadget);
      const build = builder(plan, { n: 0 });
      for (const query of [
        page({ filters: [{ field: 'quantity', op: '$gt', value: 1 }] }),
        page({ filters: [{ field: 'quantity', op: '$gte', value: 1 }] }),
        page({ filters: [{ field: 'color', op: '$in', value: ['red'] }] }),
        page({ filters: [{ field: 'color', op: '$in', value: ['red', 'green', 'blue'] }] }),
        page({ filters: [{ field: 'name', op: '$eq', value: 'a' }] }),
        page({ filters: [{ field: 'name', op: '$eq', value: null }] }),
        page({ filters: [{ field: 'name', op: '$ne', value: null }] }),
        page({ after: [5] }),
      ]) {
        assert.deepEqual(lists.statement(plan, query, true, build), build(query));
      }
    });

    it('never fills a keyset template with a position of another length (the builder refuses it)', () => {
      const lists = new ListStatements();
      const plan = planOf(fixtureModels.Gadget);
      const build = builder(plan, { n: 0 });
      lists.statement(plan, page({ after: [5] }), true, build);
      assert.throws(() => lists.statement(plan, page({ after: [] }), true, build), /one value per sort key/);
      assert.throws(
        () => lists.statement(plan, page({ after: [5, 6] }), true, build),
        /one value per sort key/,
      );
    });

    it('leaves converted values to the builder every time: dates, booleans, decimals, $like', () => {
      const lists = new ListStatements();
      const plan = planOf(fixtureModels.Gadget);
      const calls = { n: 0 };
      const build = builder(plan, calls);
      const converted: ListQuery[] = [
        page({ filters: [{ field: 'active', op: '$eq', value: true }] }),
        page({ filters: [{ field: 'updated_at', op: '$gt', value: '2025-01-01T00:00:00Z' }] }),
        page({ filters: [{ field: 'price', op: '$lt', value: '9.50' }] }),
        page({ filters: [{ field: 'name', op: '$like', value: 'a%' }] }),
        page({
          sort: [
            { field: 'active', direction: 'asc' },
            { field: 'id', direction: 'asc' },
          ],
          after: [true, 3],
        }),
      ];
      for (const query of converted) {
        calls.n = 0;
        assert.deepEqual(lists.statement(plan, query, true, build), build(query));
        lists.statement(plan, query, true, build);
        assert.equal(calls.n, 3, `built on every request: ${JSON.stringify(query.filters)}`);
      }
    });

    it('templates relation keys and UUID keys', () => {
      const lists = new ListStatements();
      for (const [model, query] of [
        [fixtureModels.Book, page({ filters: [{ field: 'author', op: '$eq', value: 3 }] })],
        [fixtureModels.Box, page({ after: ['6f1c3c1e-8d2a-4c55-9d0e-1f2a3b4c5d6e'] })],
      ] as const) {
        const plan = planOf(model);
        const calls = { n: 0 };
        const build = builder(plan, calls);
        lists.statement(plan, query, true, build);
        assert.deepEqual(lists.statement(plan, query, true, build), build(query));
        assert.equal(calls.n, 2, `${plan.description.name}: built once, then the check's own build`);
      }
    });
  });
}
