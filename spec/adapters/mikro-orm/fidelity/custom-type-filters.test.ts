/**
 * A filter value that a user's custom type refuses to convert (`EvenIntType` throws for an odd
 * number, as MikroORM's `em.find` then throws): a 400 invalid_query naming the filter, as the same
 * value in a body is a 422, never a 500. Directly, through a many-to-one (from a model the fast
 * path serves, in fast mode), in a forged keyset cursor, and as a key of such a type (no row can
 * have it: a 404). Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { cursorShape, encodeCursor } from '../../../../lib/query/cursor.js';
import type { ModelClass, SortKey } from '../../../../lib/types.js';
import { EvenKeyed, Gizmo, Part } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity, type FidelityEnv, idsOf } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Gizmo, Part, EvenKeyed],
  routes: new Map<ModelClass, string>([
    [Gizmo, '/gizmos'],
    [Part, '/parts'],
    [EvenKeyed, '/even_keyeds'],
  ]),
};

/** Lists whose filter holds a value the type refuses, and the `em.find` condition each stands for. */
const REFUSED: readonly (readonly [string, ModelClass, object])[] = [
  ['/gizmos?filter[even]=3', Gizmo, { even: 3 }],
  ['/gizmos?filter[even][$ne]=3', Gizmo, { even: { $ne: 3 } }],
  ['/gizmos?filter[even][$in]=2,3', Gizmo, { even: { $in: [2, 3] } }],
  ['/gizmos?filter[even][$nin]=3', Gizmo, { even: { $nin: [3] } }],
  ['/gizmos?filter[even][$gt]=1', Gizmo, { even: { $gt: 1 } }],
  ['/gizmos?filter[parent.even]=3', Gizmo, { parent: { even: 3 } }],
  ['/parts?filter[gizmo.even]=3', Part, { gizmo: { even: 3 } }],
  ['/parts?filter[gizmo.even][$in]=4,5', Part, { gizmo: { even: { $in: [4, 5] } } }],
];

/** Two gizmos (the second the first's child), a part of each, two keyed rows. */
async function seed(env: FidelityEnv): Promise<void> {
  const em = env.em();
  await em.nativeDelete(Part, {});
  await em.nativeDelete(Gizmo, {});
  await em.nativeDelete(EvenKeyed, {});
  const first = em.create(Gizmo, { even: 2 });
  const second = em.create(Gizmo, { even: 4, parent: first });
  em.create(Part, { gizmo: first });
  em.create(Part, { gizmo: second });
  em.create(EvenKeyed, { id: 2, label: 'two' });
  await em.flush();
}

await describeFidelity(
  'MikroORM fidelity: filter values a custom type refuses',
  (env) => {
    it('is a 400 invalid_query naming the filter, where em.find throws', async () => {
      const e = env();
      // Parts through the fast path's own SQL in fast mode; a custom type keeps gizmos plain.
      if (e.mode === 'fast') assert.equal(e.adapter.plainReason(Part), undefined);
      assert.match(e.adapter.plainReason(Gizmo) ?? '', e.mode === 'fast' ? /custom type/ : /plain mode/);
      for (const [path, model, where] of REFUSED) {
        await assert.rejects(e.mikroIds(model, where), /Must be even/, `em.find for ${path}`);
        const answer = await e.send('GET', path);
        assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
        const body = answer.body as { code?: string; detail?: string };
        assert.equal(body.code, 'invalid_query', path);
        const parameter = /filter\[[^\]]+\]/.exec(path)?.[0] ?? '';
        assert.ok(body.detail?.startsWith(`${parameter}:`), `${path}: ${body.detail}`);
      }
    });

    it('values the type takes give em.find rows', async () => {
      const e = env();
      for (const [path, model, where] of [
        ['/gizmos?filter[even][$in]=2,4', Gizmo, { even: { $in: [2, 4] } }],
        ['/gizmos?filter[parent.even]=2', Gizmo, { parent: { even: 2 } }],
        ['/parts?filter[gizmo.even][$gt]=2', Part, { gizmo: { even: { $gt: 2 } } }],
      ] as const) {
        const expected = await e.mikroIds(model, where, { id: 'asc' });
        assert.ok(expected.length > 0, path);
        assert.deepEqual(idsOf(await e.get(`${path}&sort=id`)), expected, path);
      }
    });

    it('a cursor holding a value the type refuses is a 400', async () => {
      const e = env();
      const description = e.adapter.describe(Gizmo);
      const sort: SortKey[] = [
        { field: 'even', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ];
      // The core's own cursor for a row that cannot exist: even = 3.
      const forged = encodeCursor(description, cursorShape(description, sort, []), sort, { even: 3, id: 1 });
      const answer = await e.send('GET', `/gizmos?sort=even&limit=1&after=${forged}`);
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal((answer.body as { code?: string }).code, 'invalid_query');
      const real = await e.send('GET', '/gizmos?sort=even&limit=1&after=');
      assert.equal(real.status, 200, JSON.stringify(real.body));
    });

    it('a key the type refuses names no record: 404 on every item route', async () => {
      const e = env();
      await assert.rejects(e.em().findOne(EvenKeyed, 3), /Must be even/);
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { label: 'x' }],
        ['PUT', { label: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const answer = await e.send(method, '/even_keyeds/3', body);
        assert.equal(answer.status, 404, `${method}: ${JSON.stringify(answer.body)}`);
      }
      assert.equal((await e.get<{ label: string }>('/even_keyeds/2')).label, 'two');
    });
  },
  seed,
  { catalogue: CATALOGUE },
);
