/**
 * A single-precision float (MikroORM `type: 'float'`: PostgreSQL `real`, MariaDB `float`): the database compares
 * the stored value (0.1f is 0.100000001490116), the driver hands back the shortest double that reads
 * as it (0.1). Filters give what `em.find` gives in both modes, and keyset paging refuses it as a
 * sort key (a cursor holding 0.1 would repeat or skip rows), on every target.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Reading, ReadingSite } from '../../../fixtures/mikro-orm/column-kinds.js';
import { type Catalogue, describeFidelity, idsOf } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Reading, ReadingSite],
  routes: new Map<ModelClass, string>([
    [Reading, '/readings'],
    [ReadingSite, '/reading_sites'],
  ]),
};

/** Query-string filters on `value` and the `em.find` condition each stands for. */
const FILTERS: readonly (readonly [string, object])[] = [
  ['filter[value]=0.1', { value: 0.1 }],
  ['filter[value][$ne]=0.1', { value: { $ne: 0.1 } }],
  ['filter[value][$gt]=0.1', { value: { $gt: 0.1 } }],
  ['filter[value][$gte]=0.1', { value: { $gte: 0.1 } }],
  ['filter[value][$lt]=0.5', { value: { $lt: 0.5 } }],
  ['filter[value][$lte]=0.1', { value: { $lte: 0.1 } }],
  ['filter[value][$in]=0.1,0.5', { value: { $in: [0.1, 0.5] } }],
  ['filter[value][$nin]=0.1', { value: { $nin: [0.1] } }],
];

await describeFidelity(
  'MikroORM fidelity: single-precision float columns',
  (env) => {
    it('filters give what em.find gives', async () => {
      const e = env();
      for (const [query, where] of FILTERS) {
        const expected = await e.mikroIds(Reading, where, { id: 'asc' });
        const listed = idsOf(await e.get(`/readings?${query}&sort=id&limit=100`));
        assert.deepEqual(listed, expected, query);
      }
    });

    it('filters through a relation give what em.find gives', async () => {
      const e = env();
      for (const [query, where] of FILTERS) {
        const expected = await e.mikroIds(ReadingSite, { reading: where }, { id: 'asc' });
        const path = query.replace('filter[value]', 'filter[reading.value]');
        const listed = idsOf(await e.get(`/reading_sites?${path}&sort=id&limit=100`));
        assert.deepEqual(listed, expected, path);
      }
    });

    it('a value the driver hands over rounded, sent back, leaves the stored float as MikroORM leaves it', async () => {
      // MariaDB hands 123456.75 (exact in a float) over as 123457: a PUT of the GET body is no change
      // for MikroORM's unit of work, and the row keeps its value; filters find it as em.find does.
      const e = env();
      const created = await e.send('POST', '/readings', { value: 123456.75, exact: 1 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as { id: number }).id;
      const read = await e.send('GET', `/readings/${id}`);
      const before = await e.mikroJson(Reading, id);
      assert.deepEqual(read.body, before);
      const put = await e.send('PUT', `/readings/${id}`, read.body);
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.deepEqual(put.body, before);
      for (const [query, where] of [
        ['filter[value]=123456.75', { value: 123456.75 }],
        ['filter[value]=123457', { value: 123457 }],
      ] as const) {
        const expected = await e.mikroIds(Reading, where, { id: 'asc' });
        assert.deepEqual(idsOf(await e.get(`/readings?${query}&sort=id&limit=100`)), expected, query);
      }
      const stored = await e.mikroIds(Reading, { value: 123456.75 }, { id: 'asc' });
      assert.ok(stored.includes(id), 'the PUT changed the stored float');
      await e.em().nativeDelete(Reading, { id });
    });

    it('keyset paging refuses a single-precision sort key with a 400', async () => {
      for (const sort of ['value', '-value', 'exact,-value']) {
        const answer = await env().send('GET', `/readings?sort=${sort}&limit=1&after=`);
        assert.equal(answer.status, 400, `sort=${sort}: ${JSON.stringify(answer.body)}`);
        assert.equal((answer.body as { code?: string }).code, 'invalid_query', `sort=${sort}`);
        assert.match((answer.body as { detail?: string }).detail ?? '', /single precision/, `sort=${sort}`);
      }
    });

    it('keyset paging by a double walks every row once, in em.find order', async () => {
      const e = env();
      const expected = await e.mikroIds(Reading, {}, [{ exact: 'desc' }, { id: 'asc' }]);
      const ids: unknown[] = [];
      let path: string | undefined = '/readings?sort=-exact&limit=1&after=';
      for (let pages = 0; path !== undefined && pages < 20; pages++) {
        const answer = await e.send('GET', path);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        ids.push(...idsOf(answer.body));
        const next = /<([^>]+)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
        const url = next === undefined ? undefined : new URL(next, 'http://localhost');
        path = url === undefined ? undefined : `${url.pathname}${url.search}`;
      }
      assert.deepEqual(ids, expected);
    });
  },
  async (e) => {
    const em = e.em();
    for (const value of [0.1, 0.1, 0.5]) {
      const reading = em.create(Reading, { value, exact: value });
      em.create(ReadingSite, { reading });
    }
    await em.flush();
  },
  { catalogue: CATALOGUE },
);
