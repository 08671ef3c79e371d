/**
 * PUT and PATCH of an embedded object merge it into the stored one, level by level, as MikroORM's
 * `em.assign` does: a partial object changes only the fields it gives, under their JSON names
 * (`serializedName`, a nested embeddable with `prefixMode: 'absolute'`), inline and `object: true`
 * alike. Where no object is stored, a partial one would be created without its required fields
 * (MikroORM would store NULL in them): a 422 naming each, and nothing written. Every target, both
 * modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Shell } from '../../../fixtures/mikro-orm/serializer-rules.js';
import { assertSameJson, type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Shell],
  routes: new Map<ModelClass, string>([[Shell, '/shells']]),
};

const WHOLE = { a: 'x', core: { z: 5, y: 1 } };

await describeFidelity(
  'MikroORM fidelity: partial updates of embedded objects',
  (env) => {
    it('merges a partial object into the stored one, by PATCH and PUT, inline and as JSON', async () => {
      const created = await env().send('POST', '/shells', { wrapper: WHOLE, json: WHOLE });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      assertSameJson(created.body, await env().mikroJson(Shell, id));
      const path = `/shells/${String(id)}`;
      const steps: [string, Json, Json][] = [
        ['PATCH', { core: { z: 6 } }, { a: 'x', core: { z: 6, y: 1 } }],
        ['PUT', { a: 'w' }, { a: 'w', core: { z: 6, y: 1 } }],
        ['PATCH', { core: { y: null } }, { a: 'w', core: { z: 6, y: null } }],
        ['PATCH', { core: null }, { a: 'w', core: null }],
      ];
      for (const [method, change, expected] of steps) {
        const answer = await env().send(method, path, { wrapper: change, json: change });
        assert.equal(
          answer.status,
          200,
          `${method} ${JSON.stringify(change)}: ${JSON.stringify(answer.body)}`,
        );
        const stored = await env().mikroJson(Shell, id);
        assertSameJson(answer.body, stored, `${method} ${JSON.stringify(change)}`);
        assertSameJson((stored as Json).wrapper, expected, `${method} ${JSON.stringify(change)}: wrapper`);
        assertSameJson((stored as Json).json, expected, `${method} ${JSON.stringify(change)}: json`);
      }
    });

    it('refuses a partial object where none is stored, naming each missing field, and stores nothing', async () => {
      const created = await env().send('POST', '/shells', { wrapper: { a: 'x', core: null }, json: null });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const path = `/shells/${String(id)}`;
      const before = await env().mikroJson(Shell, id);
      const refusals: [Json, string[]][] = [
        [{ json: { core: { z: 1 } } }, ['json.a']],
        [{ wrapper: { core: { y: 2 } } }, ['wrapper.core.z']],
        [{ json: { a: 'n', core: { y: 2 } } }, ['json.core.z']],
      ];
      for (const method of ['PATCH', 'PUT']) {
        for (const [body, paths] of refusals) {
          const answer = await env().send(method, path, body);
          assert.equal(
            answer.status,
            422,
            `${method} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`,
          );
          const errors = (answer.body as { errors: { path: string; message: string }[] }).errors;
          assert.deepEqual(
            errors.map((error) => [error.path, error.message]),
            paths.map((missing) => [missing, 'is required']),
            `${method} ${JSON.stringify(body)}`,
          );
        }
      }
      assertSameJson(await env().mikroJson(Shell, id), before);
      // Whole objects are created where none is stored.
      const whole = await env().send('PATCH', path, {
        wrapper: { core: { z: 3 } },
        json: { a: 'j', core: { z: 4 } },
      });
      assert.equal(whole.status, 200, JSON.stringify(whole.body));
      assertSameJson(whole.body, await env().mikroJson(Shell, id));
      assertSameJson((whole.body as Json).wrapper, { a: 'x', core: { z: 3, y: null } });
    });

    it('still requires a whole object on create', async () => {
      const answer = await env().send('POST', '/shells', { wrapper: { core: { z: 1 } } });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.deepEqual(
        (answer.body as { errors: { path: string }[] }).errors.map((error) => error.path),
        ['wrapper.a'],
      );
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
