/**
 * Inheritance hierarchies beyond a root and its leaves: a class whose rows are all its subclasses'
 * (an abstract root, a middle class outside the map) has no POST; a root above a `readonly: true`
 * subclass is served read-only, since an update through it would answer with values MikroORM's flush
 * never stores for that subclass's rows. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Beast, Cat, Polygon, Shape, Square } from '../../../fixtures/mikro-orm/fidelity.js';
import { assertSameJson, type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Beast, Cat, Shape, Polygon, Square],
  routes: new Map([
    [Beast, '/beasts'],
    [Cat, '/cats/beasts'],
    [Shape, '/shapes'],
    [Polygon, '/polygons/shapes'],
    [Square, '/squares/shapes'],
  ]),
};

/** The status and `Allow` of a request. */
async function methodAnswer(
  send: (method: string, path: string, body?: unknown) => Promise<{ status: number; headers: Headers }>,
  method: string,
  path: string,
  body?: unknown,
): Promise<[number, string | null]> {
  const answer = await send(method, path, body);
  return [answer.status, answer.headers.get('allow')];
}

await describeFidelity(
  'MikroORM fidelity: inheritance hierarchies',
  (env) => {
    it('a root above a read-only subclass is served read-only, as the subclass is', async () => {
      const em = env().em();
      const beast = em.create(Beast, { name: `beast ${env().mode}` });
      await em.flush();
      // MikroORM never inserts a Cat: the row is written past it.
      await em
        .getConnection()
        .execute("insert into beasts (kind, name, meow) values ('c', ?, 'purr')", [`cat ${env().mode}`]);
      const cat = await env()
        .em()
        .findOneOrFail(Cat, { name: `cat ${env().mode}` });
      const send = env().send.bind(env());
      for (const path of [`/beasts/${cat.id}`, `/beasts/${beast.id}`, `/cats/beasts/${cat.id}`]) {
        assert.deepEqual(await methodAnswer(send, 'PATCH', path, { name: 'changed' }), [
          405,
          'GET, HEAD, OPTIONS',
        ]);
        assert.deepEqual(await methodAnswer(send, 'DELETE', path), [405, 'GET, HEAD, OPTIONS']);
      }
      assert.deepEqual(await methodAnswer(send, 'POST', '/beasts', { name: 'new' }), [
        405,
        'GET, HEAD, OPTIONS',
      ]);
      assertSameJson(await env().get(`/beasts/${cat.id}`), await env().mikroJson(Beast, cat.id));
      assert.equal((await env().em().findOneOrFail(Beast, cat.id)).name, `cat ${env().mode}`);
    });

    it('an abstract root is served; it and a middle class without a value of their own have no POST', async () => {
      const created = await env().send('POST', '/squares/shapes', { name: `square ${env().mode}`, side: 2 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      assert.equal((created.body as Json).kind, 'square');
      const send = env().send.bind(env());
      for (const path of ['/shapes', '/polygons/shapes']) {
        assert.deepEqual(await methodAnswer(send, 'POST', path, { name: 'shapeless' }), [
          405,
          'GET, HEAD, OPTIONS',
        ]);
      }
      assertSameJson(await env().get(`/shapes/${id}`), await env().mikroJson(Shape, id));
      const renamed = await env().send('PATCH', `/polygons/shapes/${id}`, { name: 'renamed', corners: 4 });
      assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
      assertSameJson(renamed.body, await env().mikroJson(Polygon, id));
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
