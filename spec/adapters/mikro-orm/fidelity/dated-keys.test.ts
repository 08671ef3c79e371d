/**
 * A created record keyed by a date-time or a date is at the `Location` its 201 names: the key in
 * its JSON form (ISO text), which the `{id}` route reads. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { datedKeyEntities, Holiday, Stamp } from '../../../fixtures/mikro-orm/dated-keys.js';
import { type Catalogue, describeFidelity } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: datedKeyEntities,
  routes: new Map<ModelClass, string>([
    [Stamp, '/stamps'],
    [Holiday, '/holidays'],
  ]),
};

await describeFidelity(
  'MikroORM fidelity: Location of a record keyed by a date',
  (env) => {
    it('names the created record by its key as the {id} route reads it', async () => {
      // Both modes share one database: each mode its own keys.
      const year = env().mode === 'fast' ? 2031 : 2032;
      for (const [path, body, key] of [
        ['/stamps', { at: `${year}-01-02T03:04:05.678Z`, name: 'stamp' }, `${year}-01-02T03:04:05.678Z`],
        ['/holidays', { day: `${year}-05-17`, name: 'holiday' }, `${year}-05-17`],
      ] as const) {
        const created = await env().send('POST', path, body);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const location = created.headers.get('location');
        assert.equal(location, `${path}/${encodeURIComponent(key)}`);
        const read = await env().send('GET', location);
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.deepEqual(read.body, created.body);
        const changed = await env().send('PATCH', location, { name: 'renamed' });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
      }
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
