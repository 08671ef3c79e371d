/**
 * A primary key of a custom type (its JSON form the core does not know) is filtered for equality
 * with the text a query gives, as its `{id}` path takes it: on its own route and through a
 * many-to-one to it, `filter[depot]=oslo`, `$ne`, `$in`, `$nin` and `filter[depot.code]` return
 * the rows `em.find` returns, the custom type converting the value as MikroORM converts it. Range
 * and pattern operators stay refused (400). Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { customKeyEntities, Depot, Rack } from '../../../fixtures/mikro-orm/custom-keys.js';
import { type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: customKeyEntities,
  routes: new Map<ModelClass, string>([
    [Depot, '/depots'],
    [Rack, '/racks'],
  ]),
};

/** The codes each mode seeds (both modes of a target share one database). */
function codesOf(env: FidelityEnv): [string, string] {
  return env.mode === 'fast' ? ['oslo', 'bergen'] : ['tromso', 'narvik'];
}

async function seed(env: FidelityEnv): Promise<void> {
  for (const code of codesOf(env)) {
    const depot = await env.send('POST', '/depots', { code, name: `Depot ${code}` });
    assert.equal(depot.status, 201, JSON.stringify(depot.body));
    for (const label of ['a', 'b']) {
      const rack = await env.send('POST', '/racks', { depot: code, label });
      assert.equal(rack.status, 201, JSON.stringify(rack.body));
    }
  }
}

/** The keys of a list answer, by `field`. */
function keysOf(body: unknown, field: string): unknown[] {
  assert.ok(Array.isArray(body), JSON.stringify(body));
  return (body as Json[]).map((item) => item[field]);
}

await describeFidelity(
  'MikroORM fidelity: keys of a custom type in filters',
  (env) => {
    it('filters a many-to-one to a custom-typed key as em.find, every equality operator', async () => {
      const [first, second] = codesOf(env());
      const cases: [string, object][] = [
        [`filter[depot]=${first}`, { depot: first }],
        [`filter[depot][$ne]=${first}`, { depot: { $ne: first } }],
        [`filter[depot][$in]=${first},${second},nowhere`, { depot: { $in: [first, second, 'nowhere'] } }],
        [`filter[depot][$nin]=${first}`, { depot: { $nin: [first] } }],
        [`filter[depot.code]=${second}`, { depot: { code: second } }],
        [`filter[depot][$exists]=true`, { depot: { $ne: null } }],
      ];
      for (const [query, where] of cases) {
        const answer = await env().send('GET', `/racks?${query}&sort=id&limit=1000`);
        assert.equal(answer.status, 200, `${query}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(keysOf(answer.body, 'id'), await env().mikroIds(Rack, where, { id: 'asc' }), query);
      }
    });

    it('filters the custom-typed key on its own route as em.find', async () => {
      const [first, second] = codesOf(env());
      for (const [query, where] of [
        [`filter[code]=${first}`, { code: first }],
        [`filter[code][$in]=${first},${second}`, { code: { $in: [first, second] } }],
      ] as const) {
        const answer = await env().send('GET', `/depots?${query}&limit=1000`);
        assert.equal(answer.status, 200, `${query}: ${JSON.stringify(answer.body)}`);
        const found = (
          await env()
            .em()
            .find(Depot, where as never, { orderBy: { code: 'asc' } })
        ).map((depot) => depot.code);
        assert.deepEqual(keysOf(answer.body, 'code'), found, query);
      }
    });

    it('refuses range and pattern operators on such a key (400)', async () => {
      for (const query of ['filter[depot][$gt]=a', 'filter[depot][$like]=o%', 'filter[code][$lte]=z']) {
        const answer = await env().send('GET', `/${query.includes('code') ? 'depots' : 'racks'}?${query}`);
        assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      }
    });

    it('documents the equality operators and a text {id}', async () => {
      const doc = await env().get<Json>('/openapi.json');
      const paths = doc.paths as Record<string, { parameters?: Json[]; get?: { parameters?: Json[] } }>;
      const filter = paths['/racks']?.get?.parameters?.find(
        (parameter) => parameter.name === 'filter[depot]',
      );
      const schema = (filter?.schema ?? {}) as Json;
      assert.deepEqual(Object.keys((schema.properties ?? {}) as Json).sort(), [
        '$eq',
        '$exists',
        '$in',
        '$ne',
        '$nin',
      ]);
      const id = paths['/depots/{id}']?.parameters?.find((parameter) => parameter.name === 'id');
      assert.equal(((id?.schema ?? {}) as Json).type, 'string');
    });
  },
  seed,
  { catalogue: CATALOGUE },
);
