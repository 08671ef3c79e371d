/**
 * A keyset walk over a datetime key whose stored values are finer than the millisecond a cursor
 * holds (PostgreSQL and MariaDB keep microseconds): every row once, in `em.find`'s order, ascending
 * and descending, on every target and in both modes; also when the cursor's row is edited between
 * pages; and a forged cursor naming a row the caller cannot see starts its page at the cursor's
 * value, not at that row's.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { cursorShape, encodeCursor } from '../../../../lib/query/cursor.js';
import type { ModelClass, SortKey } from '../../../../lib/types.js';
import { Stamp, VeiledStamp } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Stamp, VeiledStamp],
  routes: new Map<ModelClass, string>([
    [Stamp, '/stamps'],
    [VeiledStamp, '/veiled_stamps'],
  ]),
};

/** The path and query of a link, relative or absolute. */
function pathOf(link: string): string {
  const url = new URL(link, 'http://localhost');
  return `${url.pathname}${url.search}`;
}

/** One page: its ids, and the path of the next page (`Link: rel="next"`), if any. */
async function page(env: FidelityEnv, path: string): Promise<{ ids: unknown[]; next: string | undefined }> {
  const answer = await env.send('GET', path);
  assert.equal(answer.status, 200, `GET ${path}: ${JSON.stringify(answer.body)}`);
  const next = /<([^>]+)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
  return {
    ids: (answer.body as Json[]).map((row) => row.id),
    next: next === undefined ? undefined : pathOf(next),
  };
}

/** Follows `Link: rel="next"` from `path` to the end of a keyset walk; every id in page order. */
async function walkFrom(env: FidelityEnv, path: string | undefined): Promise<unknown[]> {
  const ids: unknown[] = [];
  for (let pages = 0; path !== undefined && pages < 50; pages++) {
    const answer = await page(env, path);
    ids.push(...answer.ids);
    path = answer.next;
  }
  return ids;
}

/** Every id of a keyset walk over all stamps, in page order. */
function walk(env: FidelityEnv, sort: string): Promise<unknown[]> {
  return walkFrom(env, `/stamps?sort=${sort}&limit=3&after=`);
}

/** A second of its own per mode and case: both modes of a target share one database. */
function secondOf(env: FidelityEnv, slot: number): Date {
  return new Date(Date.UTC(2031, 0, 1, 0, env.mode === 'fast' ? 0 : 1, slot));
}

/** The filter that keeps a walk within one second. */
function within(second: Date): string {
  const end = new Date(second.getTime() + 1000);
  return `filter[at][$gte]=${second.toISOString()}&filter[at][$lt]=${end.toISOString()}`;
}

/** Moves the rows with these keys by 900 µs where the column keeps microseconds. */
async function addMicroseconds(env: FidelityEnv, model: ModelClass, ids: readonly number[]): Promise<void> {
  const table = env.meta(model).tableName;
  const connection = env.em().getConnection();
  const list = ids.join(', ');
  if (env.target === 'postgresql')
    await connection.execute(
      `update ${table} set at = at + interval '900 microseconds' where id in (${list})`,
    );
  else if (env.target === 'mariadb')
    await connection.execute(`update ${table} set at = at + interval 900 microsecond where id in (${list})`);
}

await describeFidelity(
  'MikroORM fidelity: keyset walks over a datetime kept to the microsecond',
  (env) => {
    it('walks every row once, in em.find order, ascending and descending', async () => {
      const e = env();
      const em = e.em();
      const base = new Date('2026-03-01T10:00:00.123Z');
      // Twelve rows in four milliseconds; the database then moves them apart by microseconds, up to
      // 900: a cursor holds its row's value cut to the millisecond, never rounded up to the next.
      const rows = Array.from({ length: 12 }, (_, i) =>
        em.create(Stamp, { at: new Date(base.getTime() + (i % 4)) }),
      );
      await em.flush();
      const ids = rows.map((row) => row.id);
      const connection = e.em().getConnection();
      const table = e.meta(Stamp).tableName;
      if (e.target === 'postgresql')
        await connection.execute(`update ${table} set at = at + ((id % 5) * interval '225 microseconds')`);
      else if (e.target === 'mariadb')
        await connection.execute(`update ${table} set at = at + interval ((id % 5) * 225) microsecond`);
      for (const [sort, direction] of [
        ['at', 'asc'],
        ['-at', 'desc'],
      ] as const) {
        const expected = (
          (await e
            .em()
            .find(Stamp, { id: { $in: ids } }, { orderBy: [{ at: direction }, { id: 'asc' }] })) as Stamp[]
        ).map((row) => row.id);
        const walked = (await walk(e, sort)).filter((id) => ids.includes(id as number));
        assert.deepEqual(walked, expected, `sort=${sort}`);
      }
    });

    it('neither drops nor repeats rows when the cursor row is edited between pages', async () => {
      const e = env();
      for (const [slot, sort, direction] of [
        [0, 'at', 'asc'],
        [1, '-at', 'desc'],
      ] as const) {
        const second = secondOf(e, slot);
        const em = e.em();
        // Rows 10 ms apart, each 900 µs past its millisecond where the column keeps microseconds.
        const rows = Array.from({ length: 8 }, (_, i) =>
          em.create(Stamp, { at: new Date(second.getTime() + 10 * i) }),
        );
        await em.flush();
        const ids = rows.map((row) => row.id);
        await addMicroseconds(e, Stamp, ids);
        const order = await e.mikroIds(Stamp, { id: { $in: ids } }, [{ at: direction }, { id: 'asc' }]);
        const first = await page(e, `/stamps?sort=${sort}&limit=3&after=&${within(second)}`);
        const edited = first.ids[2];
        assert.ok(first.next !== undefined && edited !== undefined, `sort=${sort}: a second page`);
        // The cursor's row moves out of the walk's second, past every row of it.
        const put = await e.send('PUT', `/stamps/${edited}`, { at: '2099-01-01T00:00:00.000Z' });
        assert.equal(put.status, 200, JSON.stringify(put.body));
        const rest = await walkFrom(e, first.next);
        assert.deepEqual([...first.ids, ...rest], order, `sort=${sort}`);
      }
    });

    it('starts a forged cursor naming a row the caller cannot see at the cursor value', async () => {
      const e = env();
      const second = secondOf(e, 2);
      const em = e.em();
      const at = (ms: number) => new Date(second.getTime() + ms);
      const visible = [0, 10, 20].map((ms) => em.create(VeiledStamp, { at: at(ms) }));
      // Hidden by the default filter, between the second and third visible rows.
      const hidden = em.create(VeiledStamp, { at: at(15), veiled: true });
      await em.flush();
      await addMicroseconds(
        e,
        VeiledStamp,
        [...visible, hidden].map((row) => row.id),
      );
      const model = e.adapter.describe(VeiledStamp);
      const filters = [
        { field: 'at', op: '$gte', value: second.toISOString() },
        { field: 'at', op: '$lt', value: at(1000).toISOString() },
      ] as const;
      for (const [sort, direction, value] of [
        ['at', 'asc', '1970-01-01T00:00:00.000Z'],
        ['-at', 'desc', '2999-01-01T00:00:00.000Z'],
      ] as const) {
        const keys: SortKey[] = [
          { field: 'at', direction },
          { field: 'id', direction: 'asc' },
        ];
        const cursor = encodeCursor(model, cursorShape(model, keys, filters), keys, {
          at: value,
          id: hidden.id,
        });
        const ids = visible.map((row) => row.id);
        const listed = await page(
          e,
          `/veiled_stamps?sort=${sort}&limit=10&${within(second)}&after=${cursor}`,
        );
        assert.deepEqual(listed.ids, direction === 'asc' ? ids : ids.reverse(), `sort=${sort}`);
      }
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
