/**
 * Single-table inheritance through the API: each subclass route lists, counts, reads, updates and
 * deletes only its own rows (as `em` does with the subclass), and the discriminator comes from the
 * route's subclass, never from the client. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Truck, Van, Vehicle } from '../../../fixtures/mikro-orm/fidelity.js';
import { assertSameJson, describeFidelity, type FidelityEnv, idsOf, type Json, routeOf } from './harness.js';

/** The discriminator stored in the row, read with the root entity so no subclass condition applies. */
async function storedKind(env: FidelityEnv, id: number): Promise<string | undefined> {
  const row = await env.em().findOne(Vehicle, id);
  return row?.kind;
}

async function makeVan(env: FidelityEnv): Promise<Van> {
  const em = env.em();
  const van = em.create(Van, { name: `Van ${env.mode}`, seats: 2 });
  await em.flush();
  return van;
}

await describeFidelity('MikroORM fidelity: single-table inheritance', (env) => {
  it('each subclass route lists and counts only its own rows, as em.find with the subclass', async () => {
    for (const model of [Truck, Van]) {
      const expected = await env().mikroIds(model, {}, { id: 'asc' });
      const answer = await env().send('GET', `${routeOf(model)}?sort=id&limit=1000`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(idsOf(answer.body), expected, model.name);
      assert.equal(answer.headers.get('x-total-count'), String(expected.length));
      const kind = model === Truck ? 'truck' : 'van';
      assert.ok((answer.body as Json[]).every((item) => item.kind === kind));
    }
  });

  it("a subclass route does not read, update or delete the other subclass's rows", async () => {
    const van = await makeVan(env());
    const path = `${routeOf(Truck)}/${van.id}`;
    assert.equal((await env().send('GET', path)).status, 404);
    assert.equal((await env().send('PUT', path, { name: 'hijacked' })).status, 404);
    assert.equal((await env().send('PATCH', path, { name: 'hijacked' })).status, 404);
    assert.equal((await env().send('DELETE', path)).status, 404);
    assertSameJson(await env().mikroJson(Van, van.id), { id: van.id, kind: 'van', name: van.name, seats: 2 });
  });

  it('POST sets the discriminator from the route; a discriminator sent by the client is never stored', async () => {
    const plain = await env().send('POST', routeOf(Truck), { name: 'New truck', payload: 7 });
    assert.equal(plain.status, 201, JSON.stringify(plain.body));
    const id = (plain.body as Json).id as number;
    assert.equal(await storedKind(env(), id), 'truck');
    assertSameJson(plain.body, await env().mikroJson(Truck, id));

    const forged = await env().send('POST', routeOf(Truck), { name: 'Forged', payload: 1, kind: 'van' });
    assert.ok([201, 422].includes(forged.status), `${forged.status} ${JSON.stringify(forged.body)}`);
    if (forged.status === 201) {
      const forgedId = (forged.body as Json).id as number;
      assert.equal((forged.body as Json).kind, 'truck');
      assert.equal(await storedKind(env(), forgedId), 'truck');
    }
    const vans = await env().em().find(Van, { name: 'Forged' });
    assert.equal(vans.length, 0, 'a van was stored through the truck route');
  });

  it('an update through a subclass route changes its fields and never the discriminator', async () => {
    const em = env().em();
    const truck = em.create(Truck, { name: 'Updatable', payload: 5 });
    await em.flush();
    const path = `${routeOf(Truck)}/${truck.id}`;
    for (const method of ['PUT', 'PATCH']) {
      const answer = await env().send(method, path, { payload: method === 'PUT' ? 6 : 8, kind: 'van' });
      assert.ok(
        [200, 422].includes(answer.status),
        `${method}: ${answer.status} ${JSON.stringify(answer.body)}`,
      );
      assert.equal(await storedKind(env(), truck.id), 'truck', `${method} changed the discriminator`);
      if (answer.status === 200) assertSameJson(answer.body, await env().mikroJson(Truck, truck.id));
    }
    const patched = await env().send('PATCH', path, { payload: 9 });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal((await env().em().findOneOrFail(Truck, truck.id)).payload, 9);
  });

  it('DELETE through a subclass route removes its own row', async () => {
    const em = env().em();
    const truck = em.create(Truck, { name: 'Doomed', payload: 1 });
    await em.flush();
    assert.equal((await env().send('DELETE', `${routeOf(Truck)}/${truck.id}`)).status, 204);
    assert.equal(await env().em().findOne(Vehicle, truck.id), null);
  });

  it('the root route answers each row as MikroORM serializes it: an instance of its subclass, with its own fields', async () => {
    const em = env().em();
    const truck = em.create(Truck, { name: `Root truck ${env().mode}`, payload: 12 });
    const van = em.create(Van, { name: `Root van ${env().mode}`, seats: 7 });
    await em.flush();
    const ids = [truck.id, van.id];
    const page = await env().get<Json[]>(`${routeOf(Vehicle)}?filter[id][$in]=${ids.join(',')}&sort=id`);
    const expected = await Promise.all(ids.map((id) => env().mikroJson(Vehicle, id)));
    assertSameJson(page, expected);
    assert.equal(page[0]?.payload, 12);
    assert.equal('seats' in (page[0] as Json), false, 'a truck has no seats');
    assert.equal(page[1]?.seats, 7);
    for (const id of ids)
      assertSameJson(await env().get(`${routeOf(Vehicle)}/${id}`), await env().mikroJson(Vehicle, id));
    const fields = env().adapter.describe(Vehicle).fieldsByName;
    for (const name of ['payload', 'seats']) {
      const field = fields.get(name);
      assert.ok(field?.variant === true && field.writable === false && field.required === false, name);
    }
  });

  it('the root, whose rows are all of a subclass, has no POST: 405, nothing stored, not documented', async () => {
    const before = await env().em().count(Vehicle);
    for (const body of [{ name: 'rootless' }, { name: 'rootless', kind: 'truck' }]) {
      const answer = await env().send('POST', routeOf(Vehicle), body);
      assert.equal(answer.status, 405, JSON.stringify(answer.body));
      assert.equal(answer.headers.get('allow'), 'GET, HEAD, OPTIONS');
    }
    assert.equal(await env().em().count(Vehicle), before);
    // The rest of the root's routes stay: a common field changes through it.
    const em = env().em();
    const truck = em.create(Truck, { name: `Renamed ${env().mode}`, payload: 3 });
    await em.flush();
    const renamed = await env().send('PATCH', `${routeOf(Vehicle)}/${truck.id}`, { name: 'Renamed again' });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assertSameJson(renamed.body, await env().mikroJson(Vehicle, truck.id));
    const document = (await env().send('GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, unknown>>;
      components: { schemas: Record<string, unknown> };
    };
    assert.equal(document.paths[routeOf(Vehicle)]?.post, undefined);
    assert.equal(document.components.schemas.VehicleCreate, undefined);
    assert.ok(
      document.paths[routeOf(Truck)]?.post !== undefined,
      'a subclass is still created through its route',
    );
  });

  it('the discriminator is a read-only field of each subclass', () => {
    for (const model of [Truck, Van]) {
      const kind = env().adapter.describe(model).fieldsByName.get('kind');
      assert.ok(kind !== undefined, `${model.name} has no kind field`);
      assert.equal(kind.writable, false);
      assert.equal(kind.required, false);
    }
  });
});
