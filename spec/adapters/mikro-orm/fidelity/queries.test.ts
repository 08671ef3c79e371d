/**
 * Differential queries: every `filter[...]` and `sort=` of the list routes returns the keys, in the
 * order, that `em.find` returns for the equivalent MikroORM query, on every target and in both
 * modes (embedded dotted paths, formulas, custom types, serialized names, bigint, decimal, dates).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Memo, Shipment, Truck } from '../../../fixtures/mikro-orm/fidelity.js';
import { describeFidelity, idsOf, routeOf } from './harness.js';
import { seedCatalogue } from './seed.js';

/** One list query and the MikroORM query it stands for. */
interface QueryCase {
  readonly model: ModelClass;
  readonly query: string;
  readonly where?: object;
  readonly orderBy?: object;
}

const FILTERS: readonly QueryCase[] = [
  { model: Shipment, query: 'filter[address.city]=Oslo', where: { address: { city: 'Oslo' } } },
  { model: Shipment, query: 'filter[address.city][$eq]=Bergen', where: { address: { city: 'Bergen' } } },
  { model: Shipment, query: 'filter[dimensions.width]=2', where: { dimensions: { width: 2 } } },
  { model: Shipment, query: 'filter[doubleWeight][$gt]=5', where: { doubleWeight: { $gt: 5 } } },
  { model: Shipment, query: 'filter[doubleWeight]=24', where: { doubleWeight: 24 } },
  { model: Shipment, query: 'filter[serial][$gte]=100', where: { serial: { $gte: 100n } } },
  {
    model: Shipment,
    query: 'filter[serial][$lt]=9007199254740993',
    where: { serial: { $lt: 9007199254740993n } },
  },
  { model: Shipment, query: 'filter[price][$lt]=50', where: { price: { $lt: '50' } } },
  { model: Shipment, query: 'filter[price][$gte]=12.34', where: { price: { $gte: '12.34' } } },
  {
    model: Shipment,
    query: 'filter[deliveryDate][$gte]=2024-03-01',
    where: { deliveryDate: { $gte: '2024-03-01' } },
  },
  {
    model: Shipment,
    query: 'filter[deliveryDate][$lt]=2024-03-05',
    where: { deliveryDate: { $lt: '2024-03-05' } },
  },
  {
    model: Shipment,
    query: 'filter[dispatchedAt][$gt]=2024-05-06T07:08:09.123Z',
    where: { dispatchedAt: { $gt: new Date('2024-05-06T07:08:09.123Z') } },
  },
  {
    model: Shipment,
    query: 'filter[dispatchedAt]=2024-05-06T07:08:09.124Z',
    where: { dispatchedAt: new Date('2024-05-06T07:08:09.124Z') },
  },
  { model: Shipment, query: 'filter[code][$in]=ALPHA,GAMMA', where: { code: { $in: ['ALPHA', 'GAMMA'] } } },
  { model: Shipment, query: 'filter[code]=beta', where: { code: 'beta' } },
  { model: Shipment, query: 'filter[tracking][$like]=TR-%25', where: { trackingNo: { $like: 'TR-%' } } },
  {
    model: Shipment,
    query: 'filter[tracking][$in]=TR-200,XR-300',
    where: { trackingNo: { $in: ['TR-200', 'XR-300'] } },
  },
  { model: Shipment, query: 'filter[externalRef]=X3', where: { externalRef: 'X3' } },
  { model: Shipment, query: 'filter[externalRef][$exists]=false', where: { externalRef: null } },
  { model: Shipment, query: 'filter[money][$exists]=true', where: { money: { $ne: null } } },
  { model: Shipment, query: 'filter[weight][$nin]=1,5', where: { weight: { $nin: [1, 5] } } },
  { model: Memo, query: 'filter[amount][$gt]=1.5', where: { amount: { $gt: '1.5' } } },
  { model: Memo, query: 'filter[big][$gt]=42', where: { big: { $gt: 42n } } },
  { model: Memo, query: 'filter[due][$lte]=2024-12-31', where: { due: { $lte: '2024-12-31' } } },
  {
    model: Memo,
    query: 'filter[remindAt][$gte]=2024-02-28T10:00:00.251Z',
    where: { remindAt: { $gte: new Date('2024-02-28T10:00:00.251Z') } },
  },
  { model: Memo, query: 'filter[title][$like]=M%25', where: { title: { $like: 'M%' } } },
  { model: Memo, query: 'filter[pinned]=false', where: { pinned: false } },
  { model: Memo, query: 'filter[ratio][$exists]=true', where: { ratio: { $ne: null } } },
  { model: Truck, query: 'filter[payload][$gt]=5', where: { payload: { $gt: 5 } } },
];

const SORTS: readonly QueryCase[] = [
  { model: Shipment, query: 'sort=-weight,id', orderBy: { weight: 'desc', id: 'asc' } },
  { model: Shipment, query: 'sort=-doubleWeight,id', orderBy: { doubleWeight: 'desc', id: 'asc' } },
  { model: Shipment, query: 'sort=-serial,id', orderBy: { serial: 'desc', id: 'asc' } },
  { model: Shipment, query: 'sort=price,id', orderBy: { price: 'asc', id: 'asc' } },
  { model: Shipment, query: 'sort=-deliveryDate,id', orderBy: { deliveryDate: 'desc', id: 'asc' } },
  { model: Shipment, query: 'sort=-dispatchedAt,id', orderBy: { dispatchedAt: 'desc', id: 'asc' } },
  { model: Shipment, query: 'sort=-tracking,id', orderBy: { trackingNo: 'desc', id: 'asc' } },
  { model: Shipment, query: 'sort=code,id', orderBy: { code: 'asc', id: 'asc' } },
  { model: Memo, query: 'sort=-amount,id', orderBy: { amount: 'desc', id: 'asc' } },
  { model: Memo, query: 'sort=big,id', orderBy: { big: 'asc', id: 'asc' } },
  { model: Memo, query: 'sort=-remindAt,id', orderBy: { remindAt: 'desc', id: 'asc' } },
  { model: Truck, query: 'sort=-payload', orderBy: { payload: 'desc' } },
];

await describeFidelity(
  'MikroORM fidelity: filters and sorts',
  (env) => {
    for (const { model, query, where } of FILTERS) {
      it(`${routeOf(model)}?${query} lists the ids em.find gives`, async () => {
        const expected = await env().mikroIds(model, where ?? {}, { id: 'asc' });
        const answer = await env().send('GET', `${routeOf(model)}?${query}&sort=id&limit=1000`);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(idsOf(answer.body), expected);
        assert.equal(answer.headers.get('x-total-count'), String(expected.length));
      });
    }
    // A user's own type (not extending one of MikroORM's) has no JSON kind the API can compare by.
    for (const query of ['filter[money]=12.34', 'filter[money][$gt]=1', 'sort=-money']) {
      it(`${routeOf(Shipment)}?${query} is a 400: a field of a user's own type takes only $exists`, async () => {
        const answer = await env().send('GET', `${routeOf(Shipment)}?${query}`);
        assert.equal(answer.status, 400, JSON.stringify(answer.body));
        assert.equal((answer.body as { code?: string }).code, 'invalid_query');
      });
    }
    for (const { model, query, where, orderBy } of SORTS) {
      it(`${routeOf(model)}?${query} orders the ids as em.find does`, async () => {
        const expected = await env().mikroIds(model, where ?? {}, orderBy);
        const answer = await env().send('GET', `${routeOf(model)}?${query}&limit=1000`);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(idsOf(answer.body), expected);
      });
    }
  },
  seedCatalogue,
);
