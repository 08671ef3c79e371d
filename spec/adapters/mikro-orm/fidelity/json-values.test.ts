/**
 * JSON values as MikroORM stores them: an object's keys come back in the order a fresh read gives
 * them (PostgreSQL's `jsonb` reorders them, SQLite and MariaDB keep them). Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { defaultTableName } from '../../../../lib/model/table-name.js';
import type { ModelClass } from '../../../../lib/types.js';
import { Document, roundTripEntities } from '../../../fixtures/mikro-orm/round-trips.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: roundTripEntities,
  routes: new Map<ModelClass, string>(
    roundTripEntities.map((model) => [model, `/${defaultTableName(model.name)}`] as const),
  ),
};

await describeFidelity(
  'MikroORM fidelity: JSON values',
  (env) => {
    it("Document: an object's keys are answered in the order a fresh read gives them", async () => {
      const route = env().routeOf(Document);
      const sent = { body: { b: 1, a: 2 }, data: { zeta: 1, a: { d: 1, c: [{ y: 1, x: 2 }] } } };
      const created = await env().send('POST', route, sent);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const answers = [
        created.body,
        await env().get(`${route}/${String(id)}`),
        (await env().get<Json[]>(`${route}?filter[id]=${String(id)}`))[0],
      ];
      const fresh = await env().mikroJson(Document, id);
      for (const answer of answers) assert.equal(JSON.stringify(answer), JSON.stringify(fresh));
      // jsonb keeps shorter keys first; SQLite's text and MariaDB's JSON keep the keys as sent.
      const reordered = env().target === 'postgresql';
      assert.equal(JSON.stringify((fresh as Json).body), reordered ? '{"a":2,"b":1}' : '{"b":1,"a":2}');
      const patched = await env().send('PATCH', `${route}/${String(id)}`, { data: { bb: 1, a: 2 } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(JSON.stringify(patched.body), JSON.stringify(await env().mikroJson(Document, id)));
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
