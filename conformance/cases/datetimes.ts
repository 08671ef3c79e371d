/**
 * Case: a datetime is an instant. A value sent with an offset is stored as that instant, served in
 * UTC (`Z`), and compared and sorted as an instant: an adapter that keeps the text as sent (as a
 * TEXT column does) sorts `05:04+02:00` after `04:00Z`, although it is an hour earlier.
 */
import assert from 'node:assert/strict';
import { expectRecord, expectRows } from '../assertions.js';
import { type CaseContext, type ConformanceCase, createGadget, labels, ownRows } from '../context.js';
import { query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';

/** An ISO 8601 date-time in UTC, as `Date#toISOString` writes it (fraction optional). */
const UTC_FORM = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Asserts `value` is `instant` written in UTC. */
function expectUtc(value: unknown, instant: string, what: string): void {
  assert.equal(typeof value, 'string', `${what}: a string`);
  assert.match(value as string, UTC_FORM, `${what}: ${String(value)} is in UTC (Z)`);
  assert.equal(Date.parse(value as string), Date.parse(instant), `${what}: ${String(value)} is ${instant}`);
}

/** The labels of this case's gadgets matching `params`, in the order listed. */
async function listed(ctx: CaseContext, params: Readonly<Record<string, string>>): Promise<string[]> {
  return labels(ctx, expectRows(await ctx.http.get(`/gadgets${query({ ...ownRows(ctx), ...params })}`)));
}

export const datetimeCases = {
  'datetime-offset-stored-as-utc-instant': {
    description: 'a datetime sent with an offset is served in UTC, filtered and sorted as the instant',
    async run(ctx) {
      // 03:04:05Z, an hour before `late`, though its text sorts after it.
      const early = await createGadget(ctx, 'early', { updated_at: '2026-01-02T05:04:05+02:00' });
      expectUtc(early.updated_at, '2026-01-02T03:04:05Z', 'create');
      expectUtc(
        expectRecord(await ctx.http.get(`/gadgets/${early.id}`), 200).updated_at,
        '2026-01-02T03:04:05Z',
        'get',
      );
      const late = await createGadget(ctx, 'late', { updated_at: '2026-01-02T04:00:00Z' });
      // -05:00 crosses midnight: 2026-01-01T23:30:00-05:00 is 04:30Z on the 2nd.
      const patched = expectRecord(
        await ctx.http.patch(`/gadgets/${late.id}`, { updated_at: '2026-01-01T23:30:00-05:00' }),
        200,
      );
      expectUtc(patched.updated_at, '2026-01-02T04:30:00Z', 'update');

      assert.deepEqual(await listed(ctx, { sort: 'updated_at' }), ['early', 'late'], 'sorted by instant');
      assert.deepEqual(await listed(ctx, { sort: '-updated_at' }), ['late', 'early'], 'descending');
      const cases: [Record<string, string>, string[]][] = [
        [{ 'filter[updated_at]': '2026-01-02T03:04:05Z' }, ['early']],
        [{ 'filter[updated_at]': '2026-01-02T05:04:05+02:00' }, ['early']],
        [{ 'filter[updated_at][$gt]': '2026-01-02T03:30:00Z' }, ['late']],
        [{ 'filter[updated_at][$lt]': '2026-01-02T06:00:00+02:00' }, ['early']],
        [{ 'filter[updated_at][$gte]': '2026-01-02' }, ['early', 'late']],
        [{ 'filter[updated_at][$lt]': '2026-01-02' }, []],
        [
          { 'filter[updated_at][$in]': '2026-01-01T23:30:00-05:00,2026-01-02T03:04:05.000Z' },
          ['early', 'late'],
        ],
      ];
      for (const [params, expected] of cases) {
        assert.deepEqual(
          await listed(ctx, { ...params, sort: 'updated_at' }),
          expected,
          JSON.stringify(params),
        );
      }
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
