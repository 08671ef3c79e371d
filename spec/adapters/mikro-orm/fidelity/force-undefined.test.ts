/**
 * MikroORM's `forceUndefined: true`: its serializer leaves null values out, so does every answer
 * (reads, lists, `fields=`, `include=`, and the answers to writes, as a later read gives them), and
 * the OpenAPI record schemas do not require the nullable fields. Writes of null, `$exists` filters
 * and a record read and sent back by PUT work as without it. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Remark, Venue, Writer } from '../../../fixtures/mikro-orm/force-undefined.js';
import { assertSameJson, type Catalogue, describeFidelity, idsOf, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Writer, Remark, Venue],
  routes: new Map<ModelClass, string>([
    [Writer, '/writers'],
    [Remark, '/remarks'],
    [Venue, '/venues'],
  ]),
  options: { forceUndefined: true },
};

await describeFidelity(
  'MikroORM fidelity: forceUndefined',
  (env) => {
    it('answers reads and writes as toObject() does: null values left out', async () => {
      const created = await env().send('POST', '/remarks', { title: 'bare' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const bare = await env().mikroJson(Remark, id);
      assert.deepEqual(Object.keys(bare ?? {}).sort(), ['id', 'title']);
      assertSameJson(created.body, bare);
      assertSameJson(await env().get(`/remarks/${String(id)}`), bare);
      assertSameJson(await env().get(`/remarks?filter[id]=${String(id)}`), [bare]);
      const writer = await env().send('POST', '/writers', { name: 'Ann' });
      assert.equal(writer.status, 201, JSON.stringify(writer.body));
      assertSameJson(writer.body, { id: (writer.body as Json).id, name: 'Ann' });
      const path = `/remarks/${String(id)}`;
      const writes: [string, Json][] = [
        ['PATCH', { note: 'n', score: 0, writer: (writer.body as Json).id }],
        ['PATCH', { note: null, writer: null }],
        ['PUT', { title: 'put', score: null }],
      ];
      for (const [method, body] of writes) {
        const answer = await env().send(method, path, body);
        assert.equal(answer.status, 200, `${method} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        assertSameJson(answer.body, await env().mikroJson(Remark, id), `${method} ${JSON.stringify(body)}`);
      }
      assertSameJson(await env().get(path), { id, title: 'put' });
    });

    it('keeps a record read and sent back by PUT', async () => {
      const created = await env().send('POST', '/remarks', { title: 'trip', score: 3 });
      const id = (created.body as Json).id;
      const path = `/remarks/${String(id)}`;
      const before = await env().get(path);
      const put = await env().send('PUT', path, before);
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assertSameJson(put.body, before);
      assertSameJson(await env().mikroJson(Remark, id), before);
    });

    it('filters null with $exists as em.find does, and leaves null out of fields= and include=', async () => {
      const writer = (await env().send('POST', '/writers', { name: 'Bo', nickname: 'b' })).body as Json;
      const linked = (await env().send('POST', '/remarks', { title: 'linked', note: 'x', writer: writer.id }))
        .body as Json;
      const alone = (await env().send('POST', '/remarks', { title: 'alone' })).body as Json;
      for (const [query, where] of [
        ['filter[note][$exists]=false', { note: null }],
        ['filter[note][$exists]=true', { note: { $ne: null } }],
        ['filter[writer][$exists]=false', { writer: null }],
      ] as const) {
        const rows = await env().get<Json[]>(`/remarks?${query}&sort=id`);
        assert.deepEqual(idsOf(rows), await env().mikroIds(Remark, where, { id: 'asc' }), query);
      }
      const selected = await env().get<Json[]>(
        `/remarks?filter[id][$in]=${String(linked.id)},${String(alone.id)}&sort=id&fields=id,note,writer`,
      );
      assertSameJson(selected, [{ id: linked.id, note: 'x', writer: writer.id }, { id: alone.id }]);
      const included = await env().get<Json[]>(
        `/remarks?filter[id][$in]=${String(linked.id)},${String(alone.id)}&sort=id&include=writer`,
      );
      assertSameJson(included, [
        { id: linked.id, title: 'linked', note: 'x', writer: { id: writer.id, name: 'Bo', nickname: 'b' } },
        { id: alone.id, title: 'alone' },
      ]);
    });

    it('leaves null out of an embedded object as toObject() does', async () => {
      for (const body of [
        {},
        { spot: null },
        { spot: { city: 'Oslo' } },
        { spot: { city: 'Rome', zip: '00100' } },
      ]) {
        const created = await env().send('POST', '/venues', body);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const id = (created.body as Json).id;
        const expected = await env().mikroJson(Venue, id);
        assertSameJson(created.body, expected, JSON.stringify(body));
        assertSameJson(await env().get(`/venues/${String(id)}`), expected, JSON.stringify(body));
      }
    });

    it('does not require nullable fields in the OpenAPI record schemas', async () => {
      const { schemas } = (await env().get('/openapi.json')).components as {
        schemas: Record<string, { required?: string[]; properties?: Record<string, unknown> }>;
      };
      assert.deepEqual([...(schemas.Remark?.required ?? [])].sort(), ['id', 'title']);
      assert.deepEqual(Object.keys(schemas.Remark?.properties ?? {}).sort(), [
        'id',
        'note',
        'score',
        'title',
        'writer',
      ]);
      assert.deepEqual(schemas.Venue?.required, ['id']);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
