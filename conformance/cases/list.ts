/** Cases: list paging, sorting, field selection, refused parameters, total count and links. */
import assert from 'node:assert/strict';
import { expectProblem, expectRows, parseLinks } from '../assertions.js';
import { type CaseContext, type ConformanceCase, labels, ownRows, seed } from '../context.js';
import { query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';

/** Seeds gadgets `<prefix>-<label>` with the given quantities. */
async function seedGadgets(ctx: CaseContext, quantities: Readonly<Record<string, number>>): Promise<void> {
  await seed(
    ctx,
    'Gadget',
    Object.entries(quantities).map(([label, quantity]) => ({ name: `${ctx.prefix}-${label}`, quantity })),
  );
}

async function listLabels(
  ctx: CaseContext,
  params: Readonly<Record<string, string | number>>,
): Promise<string[]> {
  return labels(ctx, expectRows(await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), ...params })}`)));
}

export const listCases = {
  'list-default-limit-100': {
    description: 'a list without limit returns 100 rows; X-Total-Count counts all matching rows',
    async run(ctx) {
      const names = Array.from({ length: 101 }, (_, i) => ({
        name: `${ctx.prefix}-${String(i).padStart(3, '0')}`,
      }));
      await seed(ctx, 'Person', names);
      const result = await ctx.http.get(`/people${query(ownRows(ctx))}`);
      const rows = expectRows(result);
      assert.equal(rows.length, 100);
      assert.equal(result.headers.get('x-total-count'), '101');
      const last = expectRows(await ctx.http.get(`/people${query({ ...ownRows(ctx), offset: 100 })}`));
      assert.equal(last.length, 1);
      assert.ok(!rows.some((row) => row.id === last[0]?.id), 'the 101st row is not on the first page');
    },
  },

  'list-limit-bounds': {
    description: 'limit up to 1000 is accepted; above 1000, or not a number, is 400',
    async run(ctx) {
      expectRows(await ctx.http.get(`/gadgets${query({ limit: 1000 })}`));
      expectRows(await ctx.http.get(`/gadgets${query({ limit: 1 })}`));
      const refused: Record<string, string | number>[] = [
        { limit: 1001 },
        { limit: 'abc' },
        { limit: -1 },
        { offset: -1 },
        { offset: 'x' },
      ];
      for (const params of refused) {
        expectProblem(await ctx.http.get(`/gadgets${query(params)}`), 400, ['invalid_query']);
      }
    },
  },

  'list-offset-and-limit': {
    description: 'offset skips rows in sort order; an offset past the end gives an empty page',
    async run(ctx) {
      await seedGadgets(ctx, { a: 1, b: 2, c: 3, d: 4, e: 5 });
      assert.deepEqual(await listLabels(ctx, { sort: 'quantity', limit: 2, offset: 1 }), ['b', 'c']);
      assert.deepEqual(await listLabels(ctx, { sort: 'quantity', offset: 4 }), ['e']);
      const past = await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), offset: 10 })}`);
      assert.deepEqual(expectRows(past), []);
      assert.equal(past.headers.get('x-total-count'), '5');
    },
  },

  'list-sort-multi-key': {
    description: 'sort=-quantity,name sorts by several keys, each ascending or descending',
    async run(ctx) {
      await seedGadgets(ctx, { a: 3, b: 1, c: 3, d: 2 });
      assert.deepEqual(await listLabels(ctx, { sort: '-quantity,name' }), ['a', 'c', 'd', 'b']);
      assert.deepEqual(await listLabels(ctx, { sort: 'quantity,-name' }), ['b', 'd', 'c', 'a']);
      assert.deepEqual(await listLabels(ctx, { sort: 'name' }), ['a', 'b', 'c', 'd']);
      assert.deepEqual(await listLabels(ctx, { sort: '-name' }), ['d', 'c', 'b', 'a']);
    },
  },

  'list-fields-selection': {
    description: 'fields=a,b returns only those fields of each row',
    async run(ctx) {
      await seedGadgets(ctx, { a: 1, b: 2 });
      const rows = expectRows(
        await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), fields: 'id,name', sort: 'name' })}`),
      );
      assert.equal(rows.length, 2);
      for (const row of rows) assert.deepEqual(Object.keys(row).sort(), ['id', 'name']);
      const [row] = expectRows(
        await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), fields: 'quantity,color', sort: 'name' })}`),
      );
      assert.ok(row !== undefined);
      assert.equal(row.quantity, 1);
      assert.equal(row.color, 'red');
      // The primary key may be added by the framework; no other unselected field may appear.
      assert.deepEqual(
        Object.keys(row)
          .filter((key) => key !== 'id')
          .sort(),
        ['color', 'quantity'],
      );
    },
  },

  'list-rejects-unreadable-fields': {
    description: 'a hidden or unknown field in filter, sort or fields, or an unknown operator, is 400',
    async run(ctx) {
      const refused: Record<string, string>[] = [
        { 'filter[secret]': 'x' },
        { 'filter[secret][$exists]': 'true' },
        { sort: 'secret' },
        { sort: '-secret' },
        { fields: 'secret' },
        { fields: 'name,secret' },
        { 'filter[nope]': '1' },
        { sort: 'nope' },
        { fields: 'nope' },
        { 'filter[name][$regex]': 'x' },
        { 'filter[quantity][$gt]': 'abc' },
        { 'filter[active]': 'maybe' },
        { 'filter[color]': 'purple' },
      ];
      for (const params of refused)
        expectProblem(await ctx.http.get(`/gadgets${query(params)}`), 400, ['invalid_query']);
    },
  },

  'list-total-count-and-links': {
    description:
      'X-Total-Count on every list; Link rel=next/prev while there are more pages, following them pages through',
    async run(ctx) {
      await seedGadgets(ctx, { a: 1, b: 2, c: 3, d: 4, e: 5 });
      const first = await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), sort: 'name', limit: 2 })}`);
      assert.deepEqual(labels(ctx, expectRows(first)), ['a', 'b']);
      assert.equal(first.headers.get('x-total-count'), '5');
      const firstLinks = parseLinks(first.headers.get('link'));
      assert.ok(firstLinks.next !== undefined, 'first page links to the next');
      assert.equal(firstLinks.prev, undefined, 'first page has no prev');

      const second = await ctx.http.get(firstLinks.next);
      assert.deepEqual(labels(ctx, expectRows(second)), ['c', 'd'], 'next keeps filters, sort and limit');
      const secondLinks = parseLinks(second.headers.get('link'));
      assert.ok(
        secondLinks.next !== undefined && secondLinks.prev !== undefined,
        'middle page links both ways',
      );

      const third = await ctx.http.get(secondLinks.next);
      assert.deepEqual(labels(ctx, expectRows(third)), ['e']);
      const thirdLinks = parseLinks(third.headers.get('link'));
      assert.equal(thirdLinks.next, undefined, 'last page has no next');
      assert.ok(thirdLinks.prev !== undefined, 'last page links back');
      assert.deepEqual(labels(ctx, expectRows(await ctx.http.get(thirdLinks.prev))), ['c', 'd']);

      const whole = await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), limit: 10 })}`);
      assert.equal(whole.headers.get('x-total-count'), '5');
      const wholeLinks = parseLinks(whole.headers.get('link'));
      assert.equal(wholeLinks.next, undefined);
      assert.equal(wholeLinks.prev, undefined);
    },
  },

  'list-count-false': {
    description:
      'count=false sends no X-Total-Count and still links to the next page exactly when there is one',
    async run(ctx) {
      await seedGadgets(ctx, { a: 1, b: 2, c: 3, d: 4 });
      const first = await ctx.http.get(
        `/gadgets${query({ ...ownRows(ctx), sort: 'name', limit: 2, count: false })}`,
      );
      assert.deepEqual(labels(ctx, expectRows(first)), ['a', 'b']);
      assert.equal(first.headers.get('x-total-count'), null);
      const next = parseLinks(first.headers.get('link')).next;
      assert.ok(next !== undefined, 'a full page with more rows links to the next');
      const second = await ctx.http.get(next);
      assert.deepEqual(labels(ctx, expectRows(second)), ['c', 'd']);
      assert.equal(second.headers.get('x-total-count'), null, 'the next link keeps count=false');
      const links = parseLinks(second.headers.get('link'));
      assert.equal(links.next, undefined, 'a full last page has no next link');
      assert.ok(links.prev !== undefined);
      const exact = await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), limit: 4, count: false })}`);
      assert.equal(expectRows(exact).length, 4);
      assert.equal(parseLinks(exact.headers.get('link')).next, undefined);
      expectProblem(await ctx.http.get(`/gadgets${query({ count: 'no' })}`), 400, ['invalid_query']);
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
