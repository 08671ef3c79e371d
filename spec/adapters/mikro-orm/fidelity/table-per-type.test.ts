/**
 * Table-per-type inheritance (`inheritance: 'tpt'`) through the API: a class's route serves its
 * rows as MikroORM loads them, each as an instance of its own class with its subclass's fields (the
 * root's list, read and the answer of an update through the root), and those fields are read-only
 * there and never filters. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Creature, Hound, Moggy, Pup } from '../../../fixtures/mikro-orm/table-per-type.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Creature, Hound, Moggy, Pup],
  routes: new Map([
    [Creature, '/creatures'],
    [Hound, '/hounds'],
    [Moggy, '/moggies'],
    [Pup, '/pups'],
  ]),
};

/** MikroORM's JSON of every row `em.find` gives for the class, in key order. */
async function mikroList(env: FidelityEnv, model: typeof Creature): Promise<Json[]> {
  const rows = await env.em().find(model, {}, { orderBy: { id: 'asc' } });
  return rows.map((row) => JSON.parse(JSON.stringify(row)) as Json);
}

async function seed(env: FidelityEnv): Promise<void> {
  const em = env.em();
  em.create(Creature, { name: 'Plain' });
  em.create(Hound, { name: 'Rex', breed: 'lab' });
  em.create(Moggy, { name: 'Tom', lives: 9 });
  em.create(Pup, { name: 'Bit', breed: 'pug', months: 3 });
  await em.flush();
}

await describeFidelity(
  'MikroORM fidelity: table-per-type inheritance',
  (env) => {
    it("every class's list and read equal MikroORM's, subclass fields included", async () => {
      for (const model of [Creature, Hound, Moggy, Pup]) {
        const expected = await mikroList(env(), model);
        const path = env().routeOf(model);
        const list = await env().send('GET', `${path}?sort=id&limit=100`);
        assert.equal(list.status, 200, JSON.stringify(list.body));
        assertSameJson(list.body, expected, model.name);
        for (const item of expected) {
          const read = await env().send('GET', `${path}/${String(item.id)}`);
          assert.equal(read.status, 200, JSON.stringify(read.body));
          assertSameJson(read.body, item, `${model.name} ${String(item.id)}`);
        }
      }
    });

    it('an update through the root answers with the subclass record MikroORM stores', async () => {
      const em = env().em();
      const moggy = em.create(Moggy, { name: 'Kit', lives: 7 });
      await em.flush();
      const answer = await env().send('PATCH', `/creatures/${moggy.id}`, { name: 'Kat' });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const stored = await env().mikroJson(Moggy, moggy.id);
      assert.equal(stored?.name, 'Kat');
      assertSameJson(answer.body, stored);
      // The GET body sent back through the root changes nothing.
      const again = await env().send('PUT', `/creatures/${moggy.id}`, answer.body);
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assertSameJson(await env().mikroJson(Moggy, moggy.id), stored);
    });

    it("a subclass's field is read-only on the root and no filter there, as em.find refuses it", async () => {
      const em = env().em();
      const moggy = em.create(Moggy, { name: 'Fix', lives: 5 });
      await em.flush();
      const write = await env().send('PATCH', `/creatures/${moggy.id}`, { lives: 1 });
      assert.ok([200, 422].includes(write.status), `${write.status} ${JSON.stringify(write.body)}`);
      assert.equal((await env().mikroJson(Moggy, moggy.id))?.lives, 5);
      const filter = await env().send('GET', '/creatures?filter[lives]=5');
      assert.equal(filter.status, 400, JSON.stringify(filter.body));
      const sort = await env().send('GET', '/creatures?sort=lives');
      assert.equal(sort.status, 400, JSON.stringify(sort.body));
    });

    it('the OpenAPI document lists the subclass fields of the root as read-only', async () => {
      const doc = (await env().send('GET', '/openapi.json')).body as {
        components: { schemas: Record<string, { properties?: Record<string, { readOnly?: boolean }> }> };
      };
      const schema = doc.components.schemas.Creature;
      assert.ok(schema?.properties !== undefined, JSON.stringify(Object.keys(doc.components.schemas)));
      for (const name of ['breed', 'lives', 'months'])
        assert.equal(schema.properties[name]?.readOnly, true, name);
    });
  },
  seed,
  { catalogue: CATALOGUE },
);
