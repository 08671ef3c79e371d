/**
 * MikroORM's `forceUtcTimezone: false` with a connection `timezone`: a timestamp column without a
 * time zone holds local time, which a read turns back into a Date its own way. A write answers with
 * what a later read gives, in both modes alike (outside fidelity check, round 13: the plain mode
 * answered the Date the client sent, the fast path and every later read another).
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Booking } from '../../../fixtures/mikro-orm/round-13.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Booking],
  routes: new Map<ModelClass, string>([[Booking, '/bookings']]),
  options: { forceUtcTimezone: false, timezone: '+05:00' },
};

// The process's own zone differs from the connection's, as on a server set to local time.
const zone = process.env.TZ;
before(() => {
  process.env.TZ = 'America/New_York';
});
after(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

await describeFidelity(
  'MikroORM fidelity: timestamps without a time zone in local time',
  (env) => {
    it('answers a create and an update with what a later read gives', async () => {
      const created = await env().send('POST', '/bookings', { at: '2026-01-01T10:00:00.000Z' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const path = `/bookings/${String(id)}`;
      assert.deepEqual(created.body, await env().get(path));
      assert.deepEqual(created.body, await env().mikroJson(Booking, id));
      const patched = await env().send('PATCH', path, { at: '2026-06-01T12:30:00.250Z' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(patched.body, await env().get(path));
    });
  },
  undefined,
  { catalogue: CATALOGUE, only: ['postgresql', 'mariadb'] },
);
