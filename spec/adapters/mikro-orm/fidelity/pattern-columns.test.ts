/**
 * `$like`/`$ilike` on a value the database does not keep as text (PostgreSQL would answer
 * "operator does not exist: uuid ~~ text"): a uuid, a foreign key to one (also through the
 * relation), an enum of numbers, a native enum and an `inet` column are a 400 `invalid_query`, on every target that
 * can create them and in both modes, and the OpenAPI document does not offer the operators there. An enum kept as text
 * still takes them, with the rows `em.find` gives.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Badge, Host, Uk, UkKind, UkRef } from '../../../fixtures/mikro-orm/column-kinds.js';
import { type Catalogue, describeFidelity, type FidelityEnv, idsOf, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Uk, UkRef],
  routes: new Map<ModelClass, string>([
    [Uk, '/uks'],
    [UkRef, '/uk_refs'],
  ]),
};

/** Asserts a GET is the 400 of a pattern on a field that is not text. */
async function refused(env: FidelityEnv, path: string): Promise<void> {
  const answer = await env.send('GET', path);
  assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
  const body = answer.body as { code?: string; detail?: string };
  assert.equal(body.code, 'invalid_query', path);
  assert.match(body.detail ?? '', /applies to text fields only/, path);
}

/** The operators the OpenAPI document offers for `filter[name]` on a list route. */
async function offered(env: FidelityEnv, route: string, name: string): Promise<string[]> {
  const document = await env.get<Json>('/openapi.json');
  const get = ((document.paths as Json)[route] as Json).get as { parameters: Json[] };
  const parameter = get.parameters.find((p) => p.name === `filter[${name}]`);
  assert.ok(parameter !== undefined, `filter[${name}] on ${route}`);
  return Object.keys((parameter.schema as { properties: Json }).properties);
}

await describeFidelity(
  'MikroORM fidelity: patterns on values that are not text',
  (env) => {
    it('a uuid key, a foreign key to it (also through the relation) and an enum of numbers refuse $like and $ilike with a 400', async () => {
      for (const op of ['$like', '$ilike']) {
        await refused(env(), `/uks?filter[id][${op}]=a%25`);
        await refused(env(), `/uk_refs?filter[uk][${op}]=a%25`);
        await refused(env(), `/uks?filter[rank][${op}]=1%25`);
        await refused(env(), `/uk_refs?filter[uk.id][${op}]=a%25`);
      }
    });

    it('an enum kept as text and a string take patterns, with the rows em.find gives', async () => {
      const e = env();
      for (const [query, where] of [
        ['filter[plain][$like]=al%25', { plain: { $like: 'al%' } }],
        ['filter[plain][$like]=%25et%25', { plain: { $like: '%et%' } }],
        ['filter[name][$like]=n%25', { name: { $like: 'n%' } }],
      ] as const) {
        const expected = await e.mikroIds(Uk, where, { id: 'asc' });
        assert.ok(expected.length > 0, query);
        assert.deepEqual(idsOf(await e.get(`/uks?${query}&sort=id&limit=100`)), expected, query);
      }
      const through = await e.mikroIds(UkRef, { uk: { plain: { $like: 'be%' } } }, { id: 'asc' });
      assert.ok(through.length > 0);
      assert.deepEqual(
        idsOf(await e.get('/uk_refs?filter[uk.plain][$like]=be%25&sort=id&limit=100')),
        through,
      );
    });

    it('the OpenAPI document offers patterns only where they apply', async () => {
      const e = env();
      for (const [route, name] of [
        ['/uks', 'id'],
        ['/uk_refs', 'uk'],
        ['/uks', 'rank'],
      ] as const) {
        const operators = await offered(e, route, name);
        assert.ok(operators.includes('$eq'), `${route} ${name}`);
        assert.equal(operators.includes('$like') || operators.includes('$ilike'), false, `${route} ${name}`);
      }
      for (const name of ['plain', 'name'])
        assert.ok((await offered(e, '/uks', name)).includes('$like'), name);
    });
  },
  async (e) => {
    const em = e.em();
    const uks = [
      em.create(Uk, { id: crypto.randomUUID(), plain: UkKind.Alpha, rank: 1, name: 'nord' }),
      em.create(Uk, { id: crypto.randomUUID(), plain: UkKind.Beta, rank: 2, name: 'sud' }),
    ];
    for (const uk of uks) em.create(UkRef, { uk });
    await em.flush();
  },
  { catalogue: CATALOGUE },
);

await describeFidelity(
  'MikroORM fidelity: patterns on a native enum',
  (env) => {
    it('refuses $like and $ilike with a 400, and the OpenAPI document does not offer them', async () => {
      for (const op of ['$like', '$ilike']) await refused(env(), `/badges?filter[kind][${op}]=a%25`);
      assert.equal((await offered(env(), '/badges', 'kind')).includes('$like'), false);
      const listed = await env().get<Json[]>('/badges?filter[kind]=alpha');
      assert.deepEqual(idsOf(listed), await env().mikroIds(Badge, { kind: UkKind.Alpha }, { id: 'asc' }));
    });
  },
  async (e) => {
    const em = e.em();
    em.create(Badge, { kind: UkKind.Alpha });
    em.create(Badge, { kind: UkKind.Beta });
    await em.flush();
  },
  {
    catalogue: { entities: [Badge], routes: new Map<ModelClass, string>([[Badge, '/badges']]) },
    // MikroORM makes no native enum on MariaDB: its `create table` names the type, which does not exist.
    only: ['sqlite-memory', 'postgresql'],
  },
);

await describeFidelity(
  'MikroORM fidelity: patterns on an inet column',
  (env) => {
    it('refuses $like and $ilike with a 400', async () => {
      for (const op of ['$like', '$ilike']) await refused(env(), `/hosts?filter[address][${op}]=10.%25`);
      const listed = await env().get<Json[]>('/hosts?filter[address]=10.0.0.1');
      assert.equal(listed.length > 0, true);
    });
  },
  async (e) => {
    const em = e.em();
    em.create(Host, { address: '10.0.0.1' });
    await em.flush();
  },
  {
    catalogue: { entities: [Host], routes: new Map<ModelClass, string>([[Host, '/hosts']]) },
    only: ['postgresql'],
  },
);
