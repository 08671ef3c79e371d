/**
 * The inverse side of a one-to-one (`Citizen.passport`, owned by `Passport.holder`): MikroORM joins
 * the owner on every load and serializes its key, or null. The API serves the same value in every
 * answer (reads, lists, and the answers to writes), documents it as read-only, and never writes it
 * (the owning side is written through its own route). Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Citizen, oneToOneEntities, Passport } from '../../../fixtures/mikro-orm/fidelity.js';
import { assertSameJson, type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: oneToOneEntities,
  routes: new Map<ModelClass, string>([
    [Citizen, '/citizens'],
    [Passport, '/passports'],
  ]),
};

/** The OpenAPI schema of a component, by name. */
function component(document: Json, name: string): Json {
  const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
  const schema = schemas[name];
  assert.ok(schema !== undefined, `no component ${name}`);
  return schema;
}

await describeFidelity(
  'MikroORM fidelity: the inverse side of a one-to-one',
  (env) => {
    it('a read and a list show the owner’s key, or null, as MikroORM serializes them', async () => {
      const em = env().em();
      const holder = em.create(Citizen, { name: `holder ${env().mode}` });
      const none = em.create(Citizen, { name: `none ${env().mode}` });
      em.create(Passport, { number: `P-${env().mode}`, holder });
      await em.flush();
      for (const citizen of [holder, none]) {
        const expected = await env().mikroJson(Citizen, citizen.id);
        assert.ok(expected !== undefined && 'passport' in expected, JSON.stringify(expected));
        assertSameJson(await env().get(`/citizens/${citizen.id}`), expected);
      }
      assert.notEqual((await env().get(`/citizens/${holder.id}`)).passport, null);
      assert.equal((await env().get(`/citizens/${none.id}`)).passport, null);
      const page = await env().get<Json[]>(`/citizens?filter[id][$in]=${holder.id},${none.id}&sort=id`);
      assertSameJson(page, [
        await env().mikroJson(Citizen, holder.id),
        await env().mikroJson(Citizen, none.id),
      ]);
    });

    it('the answers to writes show it too, and a body cannot write it', async () => {
      const created = await env().send('POST', '/citizens', { name: 'new', passport: 1 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id as number;
      assert.equal((created.body as Json).passport, null);
      assertSameJson(created.body, await env().mikroJson(Citizen, id));
      const passport = await env().send('POST', '/passports', { number: 'N-1', holder: id });
      assert.equal(passport.status, 201, JSON.stringify(passport.body));
      const patched = await env().send('PATCH', `/citizens/${id}`, { name: 'renamed', passport: null });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal((patched.body as Json).passport, (passport.body as Json).id);
      assertSameJson(patched.body, await env().mikroJson(Citizen, id));
    });

    it('a filter or sort on it is a 400; OpenAPI shows it read-only and nullable', async () => {
      assert.equal((await env().send('GET', '/citizens?filter[passport]=1')).status, 400);
      assert.equal((await env().send('GET', '/citizens?sort=passport')).status, 400);
      const document = await env().get('/openapi.json');
      const field = (component(document, 'Citizen').properties as Record<string, Json>).passport;
      assert.ok(field !== undefined, 'passport is in the record schema');
      assert.equal(field.readOnly, true);
      const input = component(document, 'CitizenCreate').properties as Record<string, Json>;
      assert.equal(input.passport, undefined, 'not in the create body');
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
