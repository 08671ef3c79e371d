/**
 * Cases: every filter operator, on every comparable field kind, with values coerced from the
 * query string. Each case creates four gadgets (alpha, beta, gamma, delta) of its own.
 */
import assert from 'node:assert/strict';
import { expectProblem, expectRows } from '../assertions.js';
import { type CaseContext, type ConformanceCase, createGadget, labels, ownRows } from '../context.js';
import { query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';

async function seedFour(ctx: CaseContext): Promise<void> {
  await createGadget(ctx, 'alpha', {
    quantity: 1,
    price: '1.50',
    rating: 1.5,
    active: true,
    released: '2024-01-10',
    updated_at: '2024-01-10T10:00:00.000Z',
    alarm: '08:00:00',
    color: 'red',
    serial: '10',
    description: 'first',
  });
  await createGadget(ctx, 'beta', {
    quantity: 2,
    price: '10.00',
    rating: 2.5,
    active: false,
    released: '2024-02-10',
    updated_at: '2024-02-10T10:00:00.000Z',
    alarm: '09:30:00',
    color: 'green',
    serial: '200',
  });
  await createGadget(ctx, 'gamma', {
    quantity: 3,
    price: '100.25',
    rating: 3.5,
    active: true,
    released: '2024-03-10',
    updated_at: '2024-03-10T10:00:00.000Z',
    color: 'blue',
    serial: '3000',
    description: 'third',
  });
  await createGadget(ctx, 'delta', { quantity: 4, active: false, color: 'red' });
}

/** The labels of this case's gadgets matching `params`, sorted by name. */
async function matching(ctx: CaseContext, params: Readonly<Record<string, string>>): Promise<string[]> {
  const result = await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), ...params, sort: 'name' })}`);
  return labels(ctx, expectRows(result));
}

/** Asserts each filter gives exactly the expected gadgets, in any order. */
async function expectMatches(
  ctx: CaseContext,
  expectations: readonly [Record<string, string>, string[]][],
): Promise<void> {
  for (const [params, expected] of expectations) {
    // Compared as sets: the order of names differs between collations (MariaDB's ignores case).
    const found = (await matching(ctx, params)).sort();
    assert.deepEqual(found, [...expected].sort(), `filter ${JSON.stringify(params)}`);
  }
}

export const filterCases = {
  'list-filter-comparisons': {
    description:
      '$eq $ne $gt $gte $lt $lte (and filter[f]=v as $eq); comparisons never match NULL; filters combine with AND',
    async run(ctx) {
      await seedFour(ctx);
      await expectMatches(ctx, [
        [{ 'filter[quantity]': '2' }, ['beta']],
        [{ 'filter[quantity][$eq]': '2' }, ['beta']],
        [{ 'filter[quantity][$ne]': '2' }, ['alpha', 'gamma', 'delta']],
        [{ 'filter[quantity][$gt]': '2' }, ['gamma', 'delta']],
        [{ 'filter[quantity][$gte]': '2' }, ['beta', 'gamma', 'delta']],
        [{ 'filter[quantity][$lt]': '2' }, ['alpha']],
        [{ 'filter[quantity][$lte]': '2' }, ['alpha', 'beta']],
        [{ 'filter[color]': 'red' }, ['alpha', 'delta']],
        // SQL semantics: `description <> 'first'` is not true for a NULL description.
        [{ 'filter[description][$ne]': 'first' }, ['gamma']],
        [{ 'filter[rating][$lt]': '3' }, ['alpha', 'beta']],
        [{ 'filter[quantity][$gte]': '2', 'filter[active]': 'false' }, ['beta', 'delta']],
      ]);
    },
  },

  'list-filter-in-nin': {
    description: '$in and $nin take comma-separated lists, coerced to the field type',
    async run(ctx) {
      await seedFour(ctx);
      await expectMatches(ctx, [
        [{ 'filter[quantity][$in]': '1,3' }, ['alpha', 'gamma']],
        [{ 'filter[quantity][$nin]': '1,3' }, ['beta', 'delta']],
        [{ 'filter[color][$in]': 'red,blue' }, ['alpha', 'gamma', 'delta']],
        [{ 'filter[color][$nin]': 'red' }, ['beta', 'gamma']],
        [{ 'filter[quantity][$in]': '7' }, []],
        [{ 'filter[serial][$in]': '10,3000' }, ['alpha', 'gamma']],
      ]);
    },
  },

  'list-filter-like': {
    description: '$like takes SQL patterns: % any run of characters, _ exactly one character',
    async run(ctx) {
      await seedFour(ctx);
      const p = ctx.prefix;
      await expectMatches(ctx, [
        [{ 'filter[name][$like]': `${p}-_e%` }, ['beta', 'delta']],
        [{ 'filter[name][$like]': `${p}-%mm%` }, ['gamma']],
        [{ 'filter[name][$like]': `${p}-_eta` }, ['beta']],
        [{ 'filter[name][$like]': `${p}-beta` }, ['beta']],
        [{ 'filter[name][$like]': `${p}-%` }, ['alpha', 'beta', 'gamma', 'delta']],
        [{ 'filter[name][$like]': `${p}-et%` }, []],
      ]);
    },
  },

  'list-filter-like-case-sensitive': {
    description: '$like is case-sensitive, as in PostgreSQL',
    async run(ctx) {
      await seedFour(ctx);
      await expectMatches(ctx, [
        [{ 'filter[name][$like]': `${ctx.prefix}-ALPHA` }, []],
        [{ 'filter[name][$like]': `${ctx.prefix}-Al%` }, []],
        [{ 'filter[name][$like]': `${ctx.prefix}-al%` }, ['alpha']],
      ]);
    },
  },

  'list-filter-like-escapes': {
    description:
      '$like: a backslash makes the next character literal, so \\% and \\_ match a literal % and _, \\\\ a backslash',
    async run(ctx) {
      for (const label of ['a%b', 'a_b', 'axb', 'a\\b', 'a*b', 'a[b']) await createGadget(ctx, label);
      const p = ctx.prefix;
      await expectMatches(ctx, [
        [{ 'filter[name][$like]': `${p}-a\\%b` }, ['a%b']],
        [{ 'filter[name][$like]': `${p}-a\\_b` }, ['a_b']],
        [{ 'filter[name][$like]': `${p}-a\\\\b` }, ['a\\b']],
        [{ 'filter[name][$like]': `${p}-%\\%%` }, ['a%b']],
        [{ 'filter[name][$like]': `${p}-a_b` }, ['a%b', 'a_b', 'axb', 'a\\b', 'a*b', 'a[b']],
        // An escaped ordinary character is that character; GLOB's and regex characters are plain.
        [{ 'filter[name][$like]': `${p}-\\a\\xb` }, ['axb']],
        [{ 'filter[name][$like]': `${p}-a*b` }, ['a*b']],
        [{ 'filter[name][$like]': `${p}-a[b` }, ['a[b']],
      ]);
    },
  },

  'list-filter-ilike': {
    description: '$ilike is $like ignoring (at least ASCII) case, with the same wildcards and escapes',
    async run(ctx) {
      await seedFour(ctx);
      await createGadget(ctx, 'Per%Cent');
      const p = ctx.prefix;
      const P = p.toUpperCase();
      await expectMatches(ctx, [
        [{ 'filter[name][$ilike]': `${P}-ALPHA` }, ['alpha']],
        [{ 'filter[name][$ilike]': `${p}-_E%` }, ['beta', 'delta', 'Per%Cent']],
        [{ 'filter[name][$ilike]': `${P}-%MM%` }, ['gamma']],
        [{ 'filter[name][$ilike]': `${p}-per\\%cent` }, ['Per%Cent']],
        [{ 'filter[name][$ilike]': `${p}-per\\_cent` }, []],
        [{ 'filter[name][$like]': `${p}-per\\%cent` }, []],
      ]);
    },
  },

  'list-filter-like-caps': {
    description:
      '$like/$ilike patterns over 100 characters or 4 wildcards, ending in a lone backslash, or on an unbounded text field (without the router opting in) are 400',
    async run(ctx) {
      await seedFour(ctx);
      const p = ctx.prefix;
      const refused = async (params: Record<string, string>, detail: RegExp): Promise<void> => {
        const problem = expectProblem(await ctx.http.get(`/gadgets${query({ ...params })}`), 400, [
          'invalid_query',
        ]);
        assert.match(String(problem.detail), detail, JSON.stringify(params));
      };
      await refused({ 'filter[name][$like]': `${p}-${'a'.repeat(101)}` }, /at most 100 .*max_length/);
      await refused({ 'filter[name][$ilike]': `${p}-%a%b%c%d%` }, /5 wildcards.*at most 4/);
      await refused({ 'filter[name][$like]': `${p}-a\\` }, /backslash/);
      await refused({ 'filter[description][$like]': '%first%' }, /"description".*text_fields/);
      await refused({ 'filter[description][$ilike]': 'first' }, /"description".*text_fields/);
      // At the caps exactly, and escaped wildcards do not count.
      await expectMatches(ctx, [
        [{ 'filter[name][$like]': `${p}-%${'x'.repeat(100 - p.length - 3)}%` }, []],
        [{ 'filter[name][$like]': `${p}-_e_%` }, ['beta', 'delta']],
        [{ 'filter[name][$like]': `${p}-\\%\\%\\%\\%\\_%` }, []],
        // Only patterns need the opt-in: other operators on a text field do not.
        [{ 'filter[description]': 'first' }, ['alpha']],
      ]);
    },
  },

  'list-ignores-underscore-and-utm-parameters': {
    description:
      'query parameters starting with _ or utm_ are ignored (cache-busters, tracking); other unknown ones are 400',
    async run(ctx) {
      await seedFour(ctx);
      await expectMatches(ctx, [
        [
          { _: '1712345678901', _ts: 'x', utm_source: 'mail', utm_campaign: 'a b' },
          ['alpha', 'beta', 'gamma', 'delta'],
        ],
      ]);
      for (const name of ['page', 'utm', 'Utm_source', 'x_']) {
        const problem = expectProblem(
          await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), [name]: '1' })}`),
          400,
          ['invalid_query'],
        );
        assert.match(String(problem.detail), new RegExp(`"${name}"`));
      }
    },
  },

  'list-filter-exists-and-null': {
    description: '$exists=false selects NULL values, $exists=true the others',
    async run(ctx) {
      await seedFour(ctx);
      await expectMatches(ctx, [
        [{ 'filter[description][$exists]': 'false' }, ['beta', 'delta']],
        [{ 'filter[description][$exists]': 'true' }, ['alpha', 'gamma']],
        [{ 'filter[price][$exists]': 'false' }, ['delta']],
        [{ 'filter[metadata][$exists]': 'true' }, []],
        [{ 'filter[alarm][$exists]': 'true', 'filter[active]': 'false' }, ['beta']],
      ]);
    },
  },

  'list-filter-value-coercion': {
    description:
      'query values are compared as their field type: boolean, decimal, double, bigint, date, datetime, time',
    async run(ctx) {
      await seedFour(ctx);
      await expectMatches(ctx, [
        [{ 'filter[active]': 'false' }, ['beta', 'delta']],
        [{ 'filter[active][$eq]': 'true' }, ['alpha', 'gamma']],
        // Numeric, not textual: '10.00' and '100.25' are >= 10 while '1.50' is not.
        [{ 'filter[price][$gte]': '10' }, ['beta', 'gamma']],
        [{ 'filter[price][$lt]': '10.5' }, ['alpha', 'beta']],
        [{ 'filter[price]': '10' }, ['beta']],
        [{ 'filter[rating][$gt]': '2' }, ['beta', 'gamma']],
        // Numeric, not textual: '200' and '3000' are not < 25.
        [{ 'filter[serial][$lt]': '25' }, ['alpha']],
        [{ 'filter[serial][$gte]': '200' }, ['beta', 'gamma']],
        [{ 'filter[released][$gte]': '2024-02-01' }, ['beta', 'gamma']],
        [{ 'filter[released][$lt]': '2024-02-10' }, ['alpha']],
        [{ 'filter[released]': '2024-03-10' }, ['gamma']],
        [{ 'filter[updated_at][$gt]': '2024-02-01T00:00:00.000Z' }, ['beta', 'gamma']],
        [{ 'filter[updated_at][$lte]': '2024-02-10T10:00:00.000Z' }, ['alpha', 'beta']],
        [{ 'filter[alarm][$gte]': '09:00:00' }, ['beta']],
        [{ 'filter[name][$gt]': `${ctx.prefix}-c` }, ['gamma', 'delta']],
      ]);
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
