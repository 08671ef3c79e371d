/**
 * A keyset walk over a datetime key whose stored values are finer than the millisecond a cursor
 * holds (PostgreSQL and MariaDB keep microseconds): every row once, in `em.find`'s order, ascending
 * and descending, on every target and in both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Stamp } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Stamp],
  routes: new Map<ModelClass, string>([[Stamp, '/stamps']]),
};

/** Follows `Link: rel="next"` from the first page of a keyset walk; every id in page order. */
async function walk(env: FidelityEnv, sort: string): Promise<unknown[]> {
  const ids: unknown[] = [];
  let path: string | undefined = `/stamps?sort=${sort}&limit=3&after=`;
  for (let pages = 0; path !== undefined && pages < 50; pages++) {
    const answer = await env.send('GET', path);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    ids.push(...(answer.body as Json[]).map((row) => row.id));
    const next = /<([^>]+)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
    path = next === undefined ? undefined : next.slice(next.indexOf('/stamps'));
  }
  return ids;
}

await describeFidelity(
  'MikroORM fidelity: keyset walks over a datetime kept to the microsecond',
  (env) => {
    it('walks every row once, in em.find order, ascending and descending', async () => {
      const e = env();
      const em = e.em();
      const base = new Date('2026-03-01T10:00:00.123Z');
      // Twelve rows in four milliseconds; the database then moves them apart by microseconds.
      const rows = Array.from({ length: 12 }, (_, i) =>
        em.create(Stamp, { at: new Date(base.getTime() + (i % 4)) }),
      );
      await em.flush();
      const ids = rows.map((row) => row.id);
      const connection = e.em().getConnection();
      const table = e.meta(Stamp).tableName;
      if (e.target === 'postgresql')
        await connection.execute(`update ${table} set at = at + ((id % 5) * interval '100 microseconds')`);
      else if (e.target === 'mariadb')
        await connection.execute(`update ${table} set at = at + interval ((id % 5) * 100) microsecond`);
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
  },
  undefined,
  { catalogue: CATALOGUE },
);
