/** Cases: keyset paging (`after` cursors in `Link: rel="next"`), and the cursors the core refuses. */
import assert from 'node:assert/strict';
import { expectProblem, expectRecord, expectRows, parseLinks } from '../assertions.js';
import { type CaseContext, type ConformanceCase, createGadget, labels, ownRows } from '../context.js';
import { type JsonObject, query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';

/** Gadgets with many equal values in each of the first sort keys, created through the API. */
const DUPLICATED: readonly [label: string, quantity: number, color: string, active: boolean][] = [
  ['a', 3, 'red', true],
  ['b', 1, 'blue', false],
  ['c', 3, 'red', false],
  ['d', 3, 'blue', true],
  ['e', 2, 'green', true],
  ['f', 3, 'red', true],
  ['g', 1, 'blue', false],
  ['h', 2, 'green', false],
  ['i', 3, 'blue', true],
  ['j', 2, 'red', true],
  ['k', 1, 'blue', false],
  ['l', 3, 'red', false],
  ['m', 2, 'green', true],
];

async function seedDuplicated(ctx: CaseContext): Promise<void> {
  for (const [label, quantity, color, active] of DUPLICATED)
    await createGadget(ctx, label, { quantity, color, active });
}

/** Follows `Link: rel="next"` from `path` to the end; returns every page's rows and headers. */
async function walk(
  ctx: CaseContext,
  path: string,
): Promise<{ pages: JsonObject[][]; totals: (string | null)[]; nexts: string[] }> {
  const pages: JsonObject[][] = [];
  const totals: (string | null)[] = [];
  const nexts: string[] = [];
  let next: string | undefined = path;
  while (next !== undefined) {
    assert.ok(pages.length < 50, `the walk from ${path} does not end`);
    const result = await ctx.http.get(next);
    pages.push(expectRows(result));
    totals.push(result.headers.get('x-total-count'));
    const links = parseLinks(result.headers.get('link'));
    assert.equal(links.prev, undefined, 'a keyset page has no prev link');
    next = links.next;
    if (next !== undefined) {
      assert.match(next, /[?&]after=[A-Za-z0-9_.-]+(&|$)/, 'the next link carries an after cursor');
      nexts.push(next);
    }
  }
  return { pages, totals, nexts };
}

/** The `after` value of a link. */
function cursorOf(link: string): string {
  const value = new URL(link, 'http://x').searchParams.get('after');
  assert.ok(value !== null && value !== '', `after in ${link}`);
  return value;
}

/** A cursor over this case's gadgets (seeded once), taken from the first keyset page's next link. */
async function firstCursor(ctx: CaseContext, sort = 'quantity', seeded = false): Promise<string> {
  if (!seeded) await seedDuplicated(ctx);
  const first = await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), sort, limit: 2, after: '' })}`);
  assert.equal(expectRows(first).length, 2);
  const next = parseLinks(first.headers.get('link')).next;
  assert.ok(next !== undefined, 'the first keyset page links to the next');
  return cursorOf(next);
}

export const keysetCases = {
  'list-keyset-walk-matches-offset': {
    description:
      'after= walks a 3-key mixed-direction sort with duplicates page by page: the same rows in the same order as one offset page, none twice, none missing',
    async run(ctx) {
      await seedDuplicated(ctx);
      const sort = '-quantity,color,-active';
      const whole = expectRows(await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), sort, limit: 100 })}`));
      const expected = labels(ctx, whole);
      assert.equal(expected.length, DUPLICATED.length);
      for (const limit of [1, 2, 3, 5, 13, 20]) {
        const { pages, totals } = await walk(
          ctx,
          `/gadgets${query({ ...ownRows(ctx), sort, limit, after: '' })}`,
        );
        assert.deepEqual(labels(ctx, pages.flat()), expected, `keyset walk with limit ${limit}`);
        // A next link only while rows remain: the last page is not an empty one (except on an exact fit it never is).
        assert.equal(
          pages.length,
          Math.max(1, Math.ceil(DUPLICATED.length / limit)),
          `pages with limit ${limit}`,
        );
        for (const page of pages) assert.ok(page.length <= limit && page.length > 0);
        for (const total of totals)
          assert.equal(total, String(DUPLICATED.length), 'X-Total-Count counts every match');
      }
      // The primary key as an explicit, descending, last key; and without counting.
      const byKey = labels(
        ctx,
        expectRows(
          await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), sort: 'color,-id', limit: 100 })}`),
        ),
      );
      const { pages, totals } = await walk(
        ctx,
        `/gadgets${query({ ...ownRows(ctx), sort: 'color,-id', limit: 4, after: '', count: false })}`,
      );
      assert.deepEqual(labels(ctx, pages.flat()), byKey);
      assert.ok(
        totals.every((total) => total === null),
        'count=false sends no X-Total-Count',
      );
    },
  },

  'list-keyset-fields-and-key-types': {
    description:
      'keyset pages keep the field selection and page over string, integer, enum, boolean and UUID keys',
    async run(ctx) {
      await seedDuplicated(ctx);
      for (const sort of ['name', '-name', 'active,-name', '-color,quantity', 'quantity,active,color']) {
        const whole = labels(
          ctx,
          expectRows(await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), sort, limit: 100 })}`)),
        );
        const { pages } = await walk(
          ctx,
          `/gadgets${query({ ...ownRows(ctx), sort, limit: 4, after: '', fields: 'name,quantity' })}`,
        );
        for (const row of pages.flat()) assert.ok(!('color' in row), `fields kept on keyset pages (${sort})`);
        assert.deepEqual(labels(ctx, pages.flat()), whole, `keyset walk sorted by ${sort}`);
      }
      for (const label of ['x', 'y', 'x', 'z', 'y', 'x'])
        expectRecord(await ctx.http.post('/boxes', { label: `${ctx.prefix}-${label}` }), 201);
      const own = { 'filter[label][$like]': `${ctx.prefix}-%` };
      for (const sort of ['-label', 'id', '-id']) {
        const whole = expectRows(await ctx.http.get(`/boxes${query({ ...own, sort, limit: 100 })}`));
        const { pages } = await walk(ctx, `/boxes${query({ ...own, sort, limit: 2, after: '' })}`);
        assert.deepEqual(
          pages.flat().map((row) => row.id),
          whole.map((row) => row.id),
          `keyset walk over boxes sorted by ${sort}`,
        );
      }
    },
  },

  'list-keyset-cursor-bound-to-sort': {
    description: 'a cursor used with another sort, another filtered field or another resource is 400',
    async run(ctx) {
      const cursor = await firstCursor(ctx);
      const again = await ctx.http.get(
        `/gadgets${query({ ...ownRows(ctx), sort: 'quantity', limit: 2, after: cursor })}`,
      );
      assert.equal(expectRows(again).length, 2, 'the cursor works with the sort and filter it was made for');
      const refused: Record<string, string | number>[] = [
        { ...ownRows(ctx), sort: '-quantity', after: cursor },
        { ...ownRows(ctx), sort: 'quantity,name', after: cursor },
        { ...ownRows(ctx), after: cursor },
        { ...ownRows(ctx), sort: 'quantity', 'filter[active]': 'true', after: cursor },
        { sort: 'quantity', after: cursor },
      ];
      for (const params of refused)
        expectProblem(await ctx.http.get(`/gadgets${query(params)}`), 400, ['invalid_query']);
      // The same sort and filter on another resource: the cursor names the model it was made for.
      const byName = await firstCursor(ctx, 'name', true);
      expectRows(await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), sort: 'name', after: byName })}`));
      expectProblem(
        await ctx.http.get(`/people${query({ ...ownRows(ctx), sort: 'name', after: byName })}`),
        400,
        ['invalid_query'],
      );
    },
  },

  'list-keyset-garbage-cursor-400': {
    description: 'a garbage, truncated or edited cursor is 400, never a 500 or a wrong page',
    async run(ctx) {
      const cursor = await firstCursor(ctx);
      // Edits that do not depend on how the cursor is built: every character changed in turn, cut, extended.
      const flip = (at: number) => {
        const char = cursor.charAt(at);
        const other = char === 'A' ? 'B' : char === '0' ? '1' : /[a-z]/.test(char) ? 'A' : '0';
        return cursor.slice(0, at) + other + cursor.slice(at + 1);
      };
      const garbage = [
        ...Array.from({ length: cursor.length }, (_, at) => flip(at)),
        cursor.slice(0, -1),
        cursor.slice(1),
        cursor.slice(0, Math.floor(cursor.length / 2)),
        `${cursor}A`,
        `${cursor}${cursor}`,
        'garbage',
        '!!!',
        'e30',
        Buffer.from('[1,2]').toString('base64url'),
        'A'.repeat(5000),
      ];
      for (const after of garbage) {
        const result = await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), sort: 'quantity', after })}`);
        expectProblem(result, 400, ['invalid_query']);
      }
    },
  },

  'list-keyset-refusals': {
    description: 'after with offset, or after on a sort by a nullable field, is 400',
    async run(ctx) {
      const cursor = await firstCursor(ctx);
      const refused: Record<string, string | number>[] = [
        { ...ownRows(ctx), sort: 'quantity', after: cursor, offset: 2 },
        { ...ownRows(ctx), sort: 'quantity', after: '', offset: 0 },
        { sort: 'rating', after: '' },
        { sort: 'name,-released', after: '' },
      ];
      for (const params of refused)
        expectProblem(await ctx.http.get(`/gadgets${query(params)}`), 400, ['invalid_query']);
      // Offset paging still sorts by nullable fields.
      expectRows(await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), sort: 'rating' })}`));
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
