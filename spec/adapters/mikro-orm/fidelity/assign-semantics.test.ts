/**
 * An update does what `em.assign` and a flush do, besides writing the columns: a one-to-one with
 * `orphanRemoval` deletes the record it let go of, and with MikroORM's
 * `assign: { mergeObjectProperties: true }` a JSON object is merged into the stored one. The
 * reference is MikroORM itself, running the same change on its own entities. Every target, both
 * modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import {
  assignSemanticsEntities,
  Keycard,
  Locker,
  Profile,
} from '../../../fixtures/mikro-orm/assign-semantics.js';
import { assertSameJson, type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: assignSemanticsEntities,
  routes: new Map<ModelClass, string>([
    [Keycard, '/keycards'],
    [Locker, '/lockers'],
    [Profile, '/profiles'],
  ]),
  options: { assign: { mergeObjectProperties: true } },
};

await describeFidelity(
  'MikroORM fidelity: what em.assign does on an update',
  (env) => {
    /** Whether MikroORM still finds the keycard. */
    async function exists(id: number): Promise<boolean> {
      return (await env().em().count(Keycard, { id })) === 1;
    }

    it('MikroORM itself deletes the orphan of a one-to-one with orphanRemoval', async () => {
      let em = env().em();
      const keycard = em.create(Keycard, { code: 'ref' });
      const locker = em.create(Locker, { label: 'ref', keycard });
      await em.flush();
      em = env().em();
      em.assign(await em.findOneOrFail(Locker, locker.id), { keycard: null });
      await em.flush();
      assert.equal(await exists(keycard.id), false);
    });

    it('PATCH of the one-to-one to null or to another record deletes the orphan, as MikroORM does', async () => {
      const codes = ['k1', 'k2', 'k3'].map((code) => `${code}-${env().mode}`);
      const keycards: number[] = [];
      for (const code of codes) {
        const created = await env().send('POST', '/keycards', { code });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        keycards.push((created.body as Json).id as number);
      }
      const [first, second, third] = keycards as [number, number, number];
      const locker = await env().send('POST', '/lockers', { label: 'a', keycard: first });
      assert.equal(locker.status, 201, JSON.stringify(locker.body));
      const id = (locker.body as Json).id as number;
      const cleared = await env().send('PATCH', `/lockers/${id}`, { keycard: null });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assertSameJson(cleared.body, await env().mikroJson(Locker, id));
      assert.equal(await exists(first), false, 'the keycard let go of is deleted');
      assert.equal((await env().send('PATCH', `/lockers/${id}`, { keycard: second })).status, 200);
      const moved = await env().send('PATCH', `/lockers/${id}`, { keycard: third });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assertSameJson(moved.body, await env().mikroJson(Locker, id));
      assert.equal(await exists(second), false, 'the keycard replaced is deleted');
      assert.equal(await exists(third), true);
      // A change of another field keeps the keycard.
      assert.equal((await env().send('PATCH', `/lockers/${id}`, { label: 'b' })).status, 200);
      assert.equal(await exists(third), true);
    });

    it('PATCH of a JSON object merges it into the stored one, as em.assign does', async () => {
      const created = await env().send('POST', '/profiles', {
        name: 'p',
        settings: { a: 1, b: { c: 2 } },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id as number;
      // MikroORM's own result for the same change, on an entity it loaded.
      const em = env().em();
      const entity = await em.findOneOrFail(Profile, id);
      em.assign(entity, { settings: { b: { d: 3 } } });
      const expected = JSON.parse(JSON.stringify(entity.settings)) as Json;
      assertSameJson(expected, { a: 1, b: { c: 2, d: 3 } });
      const patched = await env().send('PATCH', `/profiles/${id}`, { settings: { b: { d: 3 } } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const stored = await env().mikroJson(Profile, id);
      assertSameJson(stored?.settings, expected);
      assertSameJson(patched.body, stored);
      // null is no object: it replaces the value, as em.assign does.
      const cleared = await env().send('PATCH', `/profiles/${id}`, { settings: null });
      assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
      assert.equal((await env().mikroJson(Profile, id))?.settings, null);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
