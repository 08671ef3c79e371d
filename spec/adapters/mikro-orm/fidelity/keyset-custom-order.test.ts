/**
 * A sort key MikroORM orders by a declared list of its values (`customOrder`): ORDER BY follows
 * that list, while a keyset comparison (`>`/`<` on the value) would follow the values' own order
 * and skip rows. Keyset paging refuses such a key, asked for or from the entity's `orderBy`, with a
 * 400 pointing to offset paging, which gives `em.find`'s order. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';
import type { ModelClass } from '../../../../lib/types.js';
import { type Catalogue, describeFidelity, type FidelityEnv, idsOf, type Json } from './harness.js';

/** Table `chores`: a priority sorted low, mid, high, whatever its text. */
class Chore extends FrameworkModel {
  declare id: number;
  declare prio: string;
}

/** Table `errands`: the same priority, and the entity's own order by it. */
class Errand extends FrameworkModel {
  declare id: number;
  declare prio: string;
}

/** The property both declare: fresh arrays each time, as MikroORM's discovery keeps them. */
function prio(): { enum: true; items: string[]; customOrder: string[] } {
  return { enum: true, items: ['low', 'high', 'mid'], customOrder: ['low', 'mid', 'high'] };
}

const CATALOGUE: Catalogue = {
  entities: [
    new EntitySchema({ class: Chore, properties: { id: { type: 'integer', primary: true }, prio: prio() } }),
    new EntitySchema({
      class: Errand,
      orderBy: { prio: 'desc' },
      properties: { id: { type: 'integer', primary: true }, prio: prio() },
    }),
  ],
  routes: new Map<ModelClass, string>([
    [Chore, '/chores'],
    [Errand, '/errands'],
  ]),
};

/** Six rows of each entity, their priorities out of both text and custom order. */
async function seed(env: FidelityEnv): Promise<void> {
  if (env.mode !== 'fast' && env.target !== 'sqlite-memory') return;
  for (const path of ['/chores', '/errands'])
    for (const prio of ['high', 'low', 'mid', 'high', 'low', 'mid']) {
      const answer = await env.send('POST', path, { prio });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
    }
}

/** Asserts a 400 `invalid_query` whose detail says why and what works. */
function assertRefused(answer: { status: number; body: unknown }, names: string): void {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  const detail = String((answer.body as Json).detail);
  assert.match(detail, /custom order/, detail);
  assert.match(detail, /offset/, detail);
  assert.ok(detail.includes(names), detail);
}

await describeFidelity(
  'MikroORM fidelity: keyset paging over a custom order',
  (env) => {
    it('refuses a keyset page sorted by a customOrder key, both directions', async () => {
      for (const sort of ['prio', '-prio', 'prio,id']) {
        assertRefused(await env().send('GET', `/chores?sort=${sort}&limit=2&after=`), '"prio"');
      }
    });

    it("refuses a keyset page over an entity's orderBy with a customOrder key", async () => {
      assertRefused(await env().send('GET', '/errands?limit=2&after='), 'default order');
      assertRefused(await env().send('GET', '/errands?sort=id&limit=2&after='), 'default order');
    });

    it("gives em.find's order with offset paging", async () => {
      const e = env();
      for (const [sort, direction] of [
        ['prio', 'asc'],
        ['-prio', 'desc'],
      ] as const) {
        const expected = await e.mikroIds(Chore, {}, { prio: direction, id: 'asc' });
        const ids = [
          ...idsOf(await e.get(`/chores?sort=${sort}&limit=4`)),
          ...idsOf(await e.get(`/chores?sort=${sort}&limit=4&offset=4`)),
        ];
        assert.deepEqual(ids, expected, `sort=${sort}`);
      }
      assert.deepEqual(idsOf(await e.get('/errands?limit=100')), await e.mikroIds(Errand, {}));
    });

    it('says so in the OpenAPI description of after', async () => {
      const doc = await env().get<Json>('/openapi.json');
      const list = (doc.paths as Record<string, Record<string, { parameters: Json[] }>>)['/chores']?.get;
      const after = list?.parameters.find((parameter) => parameter.name === 'after');
      assert.match(String(after?.description), /custom order of its values \(`prio`\)/);
    });
  },
  seed,
  { catalogue: CATALOGUE },
);
