/**
 * A column whose name holds quote characters (`we"ird\`col`): `$like` and `$ilike` on it, directly
 * and through a many-to-one, return the keys `em.find` returns, on every target and in both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Oddity, OddityNote } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity, type FidelityEnv, idsOf } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Oddity, OddityNote],
  routes: new Map<ModelClass, string>([
    [Oddity, '/oddities'],
    [OddityNote, '/oddity_notes'],
  ]),
};

/** The ids of a list answer, sorted: the queries below have no order of their own. */
async function listed(env: FidelityEnv, path: string): Promise<unknown[]> {
  const answer = await env.send('GET', path);
  assert.equal(answer.status, 200, `GET ${path}: ${JSON.stringify(answer.body)}`);
  return idsOf(answer.body).sort();
}

async function mikroSorted(env: FidelityEnv, model: ModelClass, where: object): Promise<unknown[]> {
  return (await env.mikroIds(model, where)).sort();
}

await describeFidelity(
  'MikroORM fidelity: pattern filters on a column whose name holds quotes',
  (env) => {
    it('$like and $ilike on the column, directly and through a relation', async () => {
      const e = env();
      const em = e.em();
      const prefix = e.mode === 'fast' ? 'f' : 'p';
      const oddities = ['xa', 'xb', 'Xc', 'ya', null].map((q) =>
        em.create(Oddity, { q: q === null ? null : `${prefix}${q}` }),
      );
      for (const oddity of oddities) em.create(OddityNote, { oddity });
      await em.flush();
      // The expected rows by value: MikroORM's own `$like` ignores case on SQLite.
      const lower = { $in: [`${prefix}xa`, `${prefix}xb`] };
      const cases: [string, ModelClass, object][] = [
        [`/oddities?filter[q][$like]=${prefix}x%25`, Oddity, { q: lower }],
        [
          `/oddities?filter[q][$ilike]=${prefix.toUpperCase()}X%25`,
          Oddity,
          { q: { $in: [`${prefix}xa`, `${prefix}xb`, `${prefix}Xc`] } },
        ],
        [`/oddity_notes?filter[oddity.q][$like]=${prefix}x%25`, OddityNote, { oddity: { q: lower } }],
        [
          `/oddity_notes?filter[oddity.q][$ilike]=${prefix}X%25`,
          OddityNote,
          { oddity: { q: { $in: [...lower.$in, `${prefix}Xc`] } } },
        ],
        [`/oddities?filter[q]=${prefix}xa&sort=-q`, Oddity, { q: `${prefix}xa` }],
      ];
      for (const [path, model, where] of cases) {
        const expected = await mikroSorted(e, model, where);
        assert.ok(expected.length > 0, `${path}: the case must match some rows`);
        assert.deepEqual(await listed(e, path), expected, path);
      }
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
