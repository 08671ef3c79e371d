/**
 * The rows the read and query tests compare, written through MikroORM itself (never through the
 * adapter), so that the reference does not depend on the code under test. Values are chosen to
 * tell conversions apart: lower-case codes the custom type upper-cases, a bigint past 2^53, dates
 * a millisecond apart, nulls in every nullable column, an archived bulletin the filter hides.
 */

import { Bulletin, Carrier, Memo, Shipment, Truck, Van } from '../../../fixtures/mikro-orm/fidelity.js';
import type { FidelityEnv } from './harness.js';

/** Writes the standard rows of every catalogue model. */
export async function seedCatalogue(env: FidelityEnv): Promise<void> {
  const em = env.em();
  const dhl = em.create(Carrier, { name: 'DHL' });
  const ups = em.create(Carrier, { name: 'UPS' });
  em.create(Shipment, {
    code: 'alpha',
    location: { x: 1.5, y: -2 },
    money: 1234,
    address: { street: 'Main 1', city: 'Oslo' },
    dimensions: { width: 2, height: 3 },
    weight: 5,
    trackingNo: 'TR-100',
    externalRef: 'X1',
    manifest: 'first manifest',
    tags: ['fragile', 'express'],
    serial: 9007199254740993n,
    price: '12.34',
    deliveryDate: '2024-03-05',
    dispatchedAt: new Date('2024-05-06T07:08:09.123Z'),
    secret: 'hidden-1',
    carrier: dhl,
  });
  em.create(Shipment, {
    code: 'beta',
    location: null,
    money: null,
    address: { street: null, city: 'Bergen' },
    dimensions: null,
    weight: 1,
    trackingNo: 'TR-200',
    externalRef: null,
    manifest: null,
    tags: null,
    serial: 5n,
    price: '9.99',
    deliveryDate: '2024-01-31',
    dispatchedAt: new Date('2024-05-06T07:08:09.124Z'),
    carrier: null,
  });
  em.create(Shipment, {
    code: 'gamma',
    location: { x: 0, y: 0 },
    money: 99,
    address: { street: 'Side 2', city: 'Oslo' },
    dimensions: { width: 5, height: 1 },
    weight: 12,
    trackingNo: 'XR-300',
    externalRef: 'X3',
    manifest: 'third manifest',
    tags: ['bulk'],
    serial: 100n,
    price: '100.00',
    deliveryDate: '2025-12-01',
    dispatchedAt: null,
    carrier: ups,
  });
  em.create(Memo, {
    title: 'Monday',
    pages: 3,
    pinned: true,
    ratio: 0.5,
    amount: '1.50',
    big: 9007199254740993n,
    due: '2024-02-29',
    remindAt: new Date('2024-02-28T10:00:00.250Z'),
  });
  em.create(Memo, { title: 'Tuesday', pages: 1, pinned: false, ratio: null, amount: null, big: null });
  em.create(Memo, {
    title: 'March',
    pages: 7,
    pinned: false,
    ratio: 2.25,
    amount: '20.00',
    big: 42n,
    due: '2025-01-01',
    remindAt: new Date('2024-02-28T10:00:00.251Z'),
  });
  em.create(Truck, { name: 'Big truck', payload: 18 });
  em.create(Truck, { name: 'Small truck', payload: 3 });
  em.create(Van, { name: 'City van', seats: 3 });
  em.create(Van, { name: 'Camper', seats: 4 });
  em.create(Bulletin, { title: 'Live notice', archived: false });
  em.create(Bulletin, { title: 'Old notice', archived: true });
  await em.flush();
}
