/**
 * A many-to-one to a class below the root of a single-table hierarchy (`Haul.truck` → `Truck`)
 * takes the key of a row of that class only: a van's key, which the shared table's foreign key
 * accepts but MikroORM never loads as a truck (populate shows the relation as null), is a 422 like
 * a key that names no row, on create and update, and nothing is written. A relation to the root
 * takes any vehicle. Filters on such a relation give what `em.find` gives, also for a row stored
 * with a van's key by other means. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Truck, Van, Vehicle } from '../../../fixtures/mikro-orm/fidelity.js';
import { Haul, subclassReferenceEntities } from '../../../fixtures/mikro-orm/subclass-references.js';
import {
  assertSameJson,
  type Catalogue,
  describeFidelity,
  type FidelityEnv,
  idsOf,
  type Json,
} from './harness.js';

const CATALOGUE: Catalogue = {
  entities: subclassReferenceEntities,
  routes: new Map<ModelClass, string>([
    [Vehicle, '/vehicles'],
    [Truck, '/trucks/vehicles'],
    [Van, '/vans/vehicles'],
    [Haul, '/hauls'],
  ]),
};

/** A truck and a van, made through MikroORM. */
async function vehicles(env: FidelityEnv): Promise<{ truck: Truck; van: Van }> {
  const em = env.em();
  const truck = em.create(Truck, { name: `truck ${env.mode}`, payload: 5 });
  const van = em.create(Van, { name: `van ${env.mode}`, seats: 2 });
  await em.flush();
  return { truck, van };
}

/** The 422 of a reference naming no record it can load, for `path`. */
function assertReferencesNothing(answer: { status: number; body: unknown }, path: string): void {
  assert.equal(answer.status, 422, JSON.stringify(answer.body));
  const body = answer.body as Json;
  assert.equal(body.code, 'validation_failed');
  assert.deepEqual(body.errors, [{ path, message: 'References a record that does not exist.' }]);
}

await describeFidelity(
  'MikroORM fidelity: relations to a single-table subclass',
  (env) => {
    it("refuses another class's key on create, as a key naming no row, and stores nothing", async () => {
      const { truck, van } = await vehicles(env());
      const cargo = `wrong class ${env().mode}`;
      assertReferencesNothing(await env().send('POST', '/hauls', { cargo, truck: van.id }), 'truck');
      assertReferencesNothing(await env().send('POST', '/hauls', { cargo, truck: 999_999 }), 'truck');
      assert.equal(await env().em().count(Haul, { cargo }), 0);
      const right = await env().send('POST', '/hauls', { cargo, truck: truck.id, vehicle: van.id });
      assert.equal(right.status, 201, JSON.stringify(right.body));
      assertSameJson(right.body, await env().mikroJson(Haul, (right.body as Json).id));
    });

    it("refuses another class's key on update and keeps the stored one", async () => {
      const { truck, van } = await vehicles(env());
      const created = await env().send('POST', '/hauls', { cargo: `kept ${env().mode}`, truck: truck.id });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      for (const method of ['PATCH', 'PUT']) {
        assertReferencesNothing(await env().send(method, `/hauls/${id}`, { truck: van.id }), 'truck');
        assert.equal((await env().mikroJson(Haul, id))?.truck, truck.id, method);
      }
      const moved = await env().send('PATCH', `/hauls/${id}`, { truck: null, vehicle: truck.id });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assertSameJson(moved.body, await env().mikroJson(Haul, id));
    });

    it('filters and embeds a row stored with a van as its truck as em.find and populate do', async () => {
      const { van } = await vehicles(env());
      const em = env().em();
      const stray = em.create(Haul, { cargo: `stray ${env().mode}`, truck: van.id });
      await em.flush();
      assertSameJson(await env().get(`/hauls/${stray.id}`), await env().mikroJson(Haul, stray.id));
      const byKey = await env().get(`/hauls?filter[truck]=${van.id}&limit=1000`);
      assert.deepEqual(idsOf(byKey), await env().mikroIds(Haul, { truck: van.id }, { id: 'asc' }));
      const byName = await env().get(`/hauls?filter[truck.name]=${encodeURIComponent(van.name)}&limit=1000`);
      assert.deepEqual(
        idsOf(byName),
        await env().mikroIds(Haul, { truck: { name: van.name } }, { id: 'asc' }),
      );
      const populated = await env()
        .em()
        .findOneOrFail(Haul, stray.id, { populate: ['truck'] });
      const included = await env().get(`/hauls/${stray.id}?include=truck`);
      assert.equal(included.truck, populated.truck ?? null);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
