/**
 * A user's custom type inside embedded values (inline and `object: true`): a value the type cannot
 * store is a 422 naming the nested field, on create, PUT and PATCH, as at the top level (MikroORM
 * converts it only at flush, where its error would be a 500); nothing is stored. Values it takes are
 * answered as MikroORM serializes them. Every target, both modes (outside fidelity check, round 13).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Motor } from '../../../fixtures/mikro-orm/round-13.js';
import { assertAnswersAreStored, type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Motor],
  routes: new Map<ModelClass, string>([[Motor, '/motors']]),
};

/** The paths a validation problem names. */
function problemPaths(body: unknown): unknown[] {
  return ((body as { errors?: { path: string }[] }).errors ?? []).map((error) => error.path);
}

await describeFidelity(
  'MikroORM fidelity: custom types inside embedded values',
  (env) => {
    it('stores and answers values the type takes', async () => {
      await assertAnswersAreStored(
        env(),
        Motor,
        { code: 'top', engine: { hp: 90, code: 'inline' }, spare: { hp: 70, code: 'object' } },
        { engine: { hp: 95, code: 'changed' }, spare: null },
      );
    });

    it('answers 422 naming the nested field for a value the type refuses, and stores nothing', async () => {
      const em = env().em();
      const before = await em.count(Motor);
      const refused: [Json, string][] = [
        [{ code: 'UPPER' }, 'code'],
        [{ engine: { hp: 1, code: 'UPPER' } }, 'engine.code'],
        [{ spare: { hp: 1, code: 'Mixed' } }, 'spare.code'],
      ];
      for (const [body, path] of refused) {
        const answer = await env().send('POST', '/motors', body);
        assert.equal(answer.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(problemPaths(answer.body), [path]);
      }
      assert.equal(await env().em().count(Motor), before);
      const created = await env().send('POST', '/motors', { engine: { hp: 1, code: 'ok' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const path = `/motors/${String((created.body as Json).id)}`;
      for (const [method, body, field] of [
        ['PATCH', { engine: { code: 'NO' } }, 'engine.code'],
        ['PUT', { engine: { hp: 2, code: 'no' }, spare: { hp: 3, code: 'N0' } }, 'spare.code'],
      ] as const) {
        const answer = await env().send(method, path, body);
        assert.equal(answer.status, 422, `${method} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(problemPaths(answer.body), [field]);
      }
      const stored = await env().get(path);
      assert.deepEqual(stored.engine, { hp: 1, code: 'ok' });
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
