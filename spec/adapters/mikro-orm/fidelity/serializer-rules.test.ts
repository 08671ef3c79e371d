/**
 * Properties MikroORM's serializer leaves out though they are not `hidden`: a name starting with
 * `_` (top level and inside an embeddable) and a `hydrate: false` column, which MikroORM never
 * loads. The API treats them as hidden fields: never served, never named by a list parameter or the
 * OpenAPI document, never written by a client, and kept as stored by every update (MikroORM's own
 * unit of work would write NULL over a `hydrate: false` column). Server code writes them. A
 * `hydrate: false` getter (a persisted getter) is the entity's to compute: served, filtered, and
 * read-only. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Jotting, Label, Signer } from '../../../fixtures/mikro-orm/serializer-rules.js';
import {
  assertSameJson,
  type Catalogue,
  describeFidelity,
  type FidelityEnv,
  type Json,
  storedColumns,
} from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Jotting, Label, Signer],
  routes: new Map<ModelClass, string>([
    [Jotting, '/jottings'],
    [Signer, '/signers'],
    [Label, '/labels'],
  ]),
};

/** A jotting whose hidden columns server code set, as the auth plugin sets a password hash. */
async function jotting(env: FidelityEnv, name: string): Promise<unknown> {
  const row = await env.adapter.create(env.adapter.openSession(), Jotting, {
    name,
    _note: 'kept note',
    secret: 'kept secret',
  });
  const id = row.id;
  assert.deepEqual(await storedColumns(env, 'jottings', id, ['_note', 'secret']), {
    _note: 'kept note',
    secret: 'kept secret',
  });
  return id;
}

const KEPT = { _note: 'kept note', secret: 'kept secret' };

await describeFidelity(
  'MikroORM fidelity: fields its serializer leaves out',
  (env) => {
    it('serves a record as toObject() does: a `_` field and a hydrate: false column left out', async () => {
      const id = await jotting(env(), 'served');
      const expected = await env().mikroJson(Jotting, id);
      assert.deepEqual(Object.keys(expected ?? {}).sort(), ['id', 'name']);
      assertSameJson(await env().get(`/jottings/${String(id)}`), expected);
      assertSameJson(await env().get(`/jottings?filter[id]=${String(id)}`), [expected]);
    });

    it('keeps both stored values when a GET body is sent back by PUT and on PATCH of another field', async () => {
      const id = await jotting(env(), 'round trip');
      const path = `/jottings/${String(id)}`;
      const body = await env().get(path);
      const put = await env().send('PUT', path, { ...body, name: 'put' });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assertSameJson(put.body, await env().mikroJson(Jotting, id));
      assert.deepEqual(await storedColumns(env(), 'jottings', id, ['_note', 'secret']), KEPT);
      const patch = await env().send('PATCH', path, { name: 'patched' });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      assertSameJson(patch.body, { id, name: 'patched' });
      assert.deepEqual(await storedColumns(env(), 'jottings', id, ['name', '_note', 'secret']), {
        name: 'patched',
        ...KEPT,
      });
    });

    it('drops them from a client body, as hidden fields, on create and update', async () => {
      const created = await env().send('POST', '/jottings', { name: 'sent', _note: 'x', secret: 'y' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const createdId = (created.body as Json).id;
      assert.deepEqual(await storedColumns(env(), 'jottings', createdId, ['_note', 'secret']), {
        _note: null,
        secret: null,
      });
      const id = await jotting(env(), 'kept');
      const patch = await env().send('PATCH', `/jottings/${String(id)}`, { _note: 'x', secret: 'y' });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      assert.deepEqual(await storedColumns(env(), 'jottings', id, ['_note', 'secret']), KEPT);
    });

    it('lets server code change them through the adapter', async () => {
      const id = await jotting(env(), 'server');
      const row = await env().adapter.update(env().adapter.openSession(), Jotting, id as number, {
        _note: 'new note',
        secret: 'new secret',
      });
      assert.equal(row?.name, 'server');
      assert.deepEqual(await storedColumns(env(), 'jottings', id, ['_note', 'secret']), {
        _note: 'new note',
        secret: 'new secret',
      });
    });

    it('refuses them in filter, sort and fields as unknown fields', async () => {
      for (const query of [
        'filter[_note]=x',
        'filter[secret]=y',
        'sort=_note',
        'sort=-secret',
        'fields=id,secret',
      ]) {
        const answer = await env().send('GET', `/jottings?${query}`);
        assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      }
    });

    it('leaves them out of the OpenAPI record and write schemas', async () => {
      const { schemas } = (await env().get('/openapi.json')).components as {
        schemas: Record<string, { properties?: Record<string, { anyOf?: Json[]; properties?: Json }> }>;
      };
      for (const name of ['Jotting', 'JottingCreate', 'JottingUpdate']) {
        const properties = Object.keys(schemas[name]?.properties ?? {});
        assert.ok(properties.includes('name'), `${name}: ${properties.join(', ')}`);
        assert.ok(
          !properties.includes('_note') && !properties.includes('secret'),
          `${name}: ${properties.join(', ')}`,
        );
      }
      for (const name of ['Label', 'LabelCreate', 'LabelUpdate']) {
        assert.ok(!JSON.stringify(schemas[name]).includes('_origin'), `${name} shows _origin`);
      }
    });

    it('serves a persisted getter as MikroORM does, read-only, stored and filterable', async () => {
      const created = await env().send('POST', '/signers', { first: 'Ada', last: 'King', full: 'sent' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      assertSameJson(created.body, await env().mikroJson(Signer, id));
      assert.equal((created.body as Json).full, 'Ada King');
      const patch = await env().send('PATCH', `/signers/${String(id)}`, { first: 'Augusta', full: 'sent' });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      assertSameJson(patch.body, await env().mikroJson(Signer, id));
      assert.deepEqual(await storedColumns(env(), 'signers', id, ['full']), { full: 'Augusta King' });
      const list = await env().get<Json[]>('/signers?filter[full]=Augusta%20King');
      assert.deepEqual(
        list.map((row) => row.id),
        await env().mikroIds(Signer, { full: 'Augusta King' }),
      );
      const { schemas } = (await env().get('/openapi.json')).components as {
        schemas: Record<string, { properties?: Record<string, { readOnly?: boolean }> }>;
      };
      assert.equal(schemas.Signer?.properties?.full?.readOnly, true);
      assert.equal(schemas.SignerCreate?.properties?.full, undefined);
      assert.equal(schemas.SignerUpdate?.properties?.full, undefined);
    });

    it('leaves a `_` field of an embeddable out of the nested object, and keeps it on update', async () => {
      const row = await env().adapter.create(env().adapter.openSession(), Label, {
        tag: { text: 'first', _origin: 'import' },
      });
      const id = row.id;
      const expected = await env().mikroJson(Label, id);
      assertSameJson(expected, { id, tag: { text: 'first' } });
      assertSameJson(await env().get(`/labels/${String(id)}`), expected);
      const patch = await env().send('PATCH', `/labels/${String(id)}`, {
        tag: { text: 'second', _origin: 'x' },
      });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      assertSameJson(patch.body, { id, tag: { text: 'second' } });
      assert.deepEqual(await storedColumns(env(), 'labels', id, ['tag_text', 'tag__origin']), {
        tag_text: 'second',
        tag__origin: 'import',
      });
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
