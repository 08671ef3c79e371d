/**
 * Many-to-ones the entity holds as keys (`mapToPk: true`), without `ref: true`: a text key, and a
 * hidden one server code sets. Answered as MikroORM's `toObject()` gives them (the key itself), on
 * create, read, list and update; a hidden one is kept by writes and never shown. Every target, both
 * modes (outside fidelity check, round 13: the plain path took the key for an entity, a 500 after
 * the create was stored).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Depot, Region, Town } from '../../../fixtures/mikro-orm/round-13.js';
import {
  assertAnswersAreStored,
  assertSameJson,
  type Catalogue,
  describeFidelity,
  type Json,
} from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Region, Depot, Town],
  routes: new Map<ModelClass, string>([
    [Region, '/regions'],
    [Depot, '/depots'],
    [Town, '/towns'],
  ]),
};

await describeFidelity(
  'MikroORM fidelity: many-to-ones held as keys',
  (env) => {
    it('writes and answers a text key as the key, as toObject() does', async () => {
      const em = env().em();
      em.create(Region, { code: `FR${env().mode}`, name: 'France' });
      em.create(Region, { code: `DE${env().mode}`, name: 'Germany' });
      await em.flush();
      await assertAnswersAreStored(
        env(),
        Town,
        { name: 'Lyon', region: `FR${env().mode}` },
        { region: `DE${env().mode}` },
      );
      const created = await env().send('POST', '/towns', { name: 'Nowhere', region: null });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      assertSameJson(created.body, await env().mikroJson(Town, id));
      assertSameJson(await env().get(`/towns/${String(id)}`), await env().mikroJson(Town, id));
      const listed = await env().get<Json[]>(`/towns?filter[region]=DE${env().mode}`);
      assert.ok(listed.length > 0);
      for (const town of listed) assertSameJson(town, await env().mikroJson(Town, town.id));
    });

    it('keeps a hidden key server code set, and never shows it', async () => {
      const em = env().em();
      const depot = em.create(Depot, { name: 'North' });
      await em.flush();
      const town = em.create(Town, { name: 'Kept', depot: depot.id });
      await em.flush();
      const path = `/towns/${String(town.id)}`;
      const read = await env().get(path);
      assert.equal(Object.hasOwn(read, 'depot'), false);
      assertSameJson(read, await env().mikroJson(Town, town.id));
      const list = await env().get<Json[]>(`/towns?filter[id]=${String(town.id)}`);
      assertSameJson(list, [read]);
      const patched = await env().send('PATCH', path, { name: 'Still kept' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const put = await env().send('PUT', path, { ...(patched.body as Json) });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      const stored = await env().em().findOneOrFail(Town, town.id);
      assert.equal(stored.depot, depot.id);
      assert.equal(stored.name, 'Still kept');
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
