/**
 * A field MikroORM sets on every update (`onUpdate`): its flush overwrites an assigned value in the
 * entity, but leaves it in the row when `onUpdate` returns the stored value, so a client's value
 * would be stored or not by chance, and the two modes answered differently. The server owns such a
 * field on update: PUT and PATCH drop a client's value and answer what is stored, which is what
 * MikroORM stores for the same change; a create may still give it (MikroORM runs no `onUpdate` on
 * insert). Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';
import type { ModelClass } from '../../../../lib/types.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

/** Table `postmarks`: `stamp` is 'updated' after every update that changes something. */
class Postmark extends FrameworkModel {
  declare id: number;
  declare title: string;
  declare stamp: string | null;
}

const CATALOGUE: Catalogue = {
  entities: [
    new EntitySchema({
      class: Postmark,
      properties: {
        id: { type: 'integer', primary: true },
        title: { type: 'string' },
        stamp: { type: 'string', onUpdate: () => 'updated', nullable: true },
      },
    }),
  ],
  routes: new Map<ModelClass, string>([[Postmark, '/postmarks']]),
};

/** Creates a postmark through the API; its record. */
async function create(env: FidelityEnv, body: Json): Promise<Json> {
  const answer = await env.send('POST', '/postmarks', body);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body as Json;
}

/** Sends a change; its answer, which must be 200 and what MikroORM loads for the row. */
async function change(env: FidelityEnv, method: string, id: unknown, body: Json): Promise<Json> {
  const answer = await env.send(method, `/postmarks/${String(id)}`, body);
  assert.equal(answer.status, 200, `${method}: ${JSON.stringify(answer.body)}`);
  assertSameJson(answer.body, await env.mikroJson(Postmark, id), `${method} answers what is stored`);
  return answer.body as Json;
}

await describeFidelity(
  'MikroORM fidelity: onUpdate fields',
  (env) => {
    it('takes the value on create, as MikroORM runs no onUpdate on insert', async () => {
      const created = await create(env(), { title: 'a', stamp: 'client' });
      assert.equal(created.stamp, 'client');
      assert.equal((await env().mikroJson(Postmark, created.id))?.stamp, 'client');
    });

    it("drops a client's value on update and answers what is stored", async () => {
      const e = env();
      // onUpdate returns the stored value: MikroORM would have kept the client's in the row.
      const same = await create(e, { title: 'a', stamp: 'updated' });
      assert.equal((await change(e, 'PUT', same.id, { title: 'c', stamp: 'client' })).stamp, 'updated');
      const other = await create(e, { title: 'a', stamp: 'client' });
      assert.equal((await change(e, 'PATCH', other.id, { title: 'c', stamp: 'mine' })).stamp, 'updated');
    });

    it('stores what em.assign of the rest and a flush store', async () => {
      const e = env();
      const created = await create(e, { title: 'a', stamp: 'client' });
      const em = e.em();
      const twin = em.create(Postmark, { title: 'a', stamp: 'client' });
      await em.flush();
      em.assign(twin, { title: 'b' });
      await em.flush();
      const answer = await change(e, 'PUT', created.id, { title: 'b', stamp: 'other' });
      assert.equal(answer.stamp, (await e.mikroJson(Postmark, twin.id))?.stamp);
    });

    it('changes nothing when a read record is sent back, or only the stamp is sent', async () => {
      const e = env();
      const created = await create(e, { title: 'a', stamp: 'client' });
      const read = await e.get(`/postmarks/${String(created.id)}`);
      assert.deepEqual(await change(e, 'PUT', created.id, read), read);
      assert.deepEqual(await change(e, 'PATCH', created.id, { stamp: 'mine' }), read);
    });

    it('documents the field on create bodies only', async () => {
      const doc = await env().get<Json>('/openapi.json');
      const schemas = (doc.components as { schemas: Record<string, { properties?: Json }> }).schemas;
      const stamp = schemas.PostmarkCreate?.properties?.stamp as Json | undefined;
      assert.match(String(stamp?.description), /sets it on every update/);
      assert.equal(schemas.PostmarkUpdate?.properties?.stamp, undefined);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
