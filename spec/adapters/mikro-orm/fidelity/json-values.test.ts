/**
 * JSON values as MikroORM stores them: `null` for JSON that may not be null is refused alike by
 * both paths, the validator and the OpenAPI schema (MikroORM refuses it on update, and a create
 * would store the column's default, not the null answered); an object's keys come back in the order
 * a fresh read gives them (PostgreSQL's `jsonb` reorders them, SQLite and MariaDB keep them). Every
 * target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { defaultTableName } from '../../../../lib/model/table-name.js';
import { ajv } from '../../../../lib/schema/ajv.js';
import { createSchema, updateSchema } from '../../../../lib/schema/model-schemas.js';
import type { ModelClass } from '../../../../lib/types.js';
import { Document, roundTripEntities } from '../../../fixtures/mikro-orm/round-trips.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: roundTripEntities,
  routes: new Map<ModelClass, string>(
    roundTripEntities.map((model) => [model, `/${defaultTableName(model.name)}`] as const),
  ),
};

/** The field errors of a 422 answer, by path. */
function refusedPaths(answer: { status: number; body: unknown }): string[] {
  assert.equal(answer.status, 422, JSON.stringify(answer.body));
  return ((answer.body as { errors?: { path: string }[] }).errors ?? []).map((error) => error.path);
}

await describeFidelity(
  'MikroORM fidelity: JSON values',
  (env) => {
    it('Document: null for JSON that may not be null is a 422 naming the field, on create and update', async () => {
      const route = env().routeOf(Document);
      const refused = await env().send('POST', route, { body: null });
      assert.deepEqual(refusedPaths(refused), ['body']);
      assert.equal(
        (refused.body as { errors: { message: string }[] }).errors[0]?.message,
        'must not be null',
      );
      assert.deepEqual(refusedPaths(await env().send('POST', route, { body: {}, extra: null })), ['extra']);
      const created = await env().send('POST', route, { body: { n: 1 } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const stored = await env().mikroJson(Document, id);
      assert.deepEqual(created.body, stored);
      for (const patch of [{ body: null }, { extra: null }]) {
        const [name] = Object.keys(patch);
        assert.deepEqual(refusedPaths(await env().send('PATCH', `${route}/${String(id)}`, patch)), [name]);
      }
      assert.deepEqual(await env().mikroJson(Document, id), stored);
      // What is enforced is documented: the write schemas do not allow null either, `data` does.
      const description = env().adapter.describe(Document);
      for (const schema of [createSchema(description), updateSchema(description)]) {
        for (const name of ['body', 'extra']) {
          assert.equal(ajv.validate(schema.properties?.[name] ?? {}, null), false, name);
          assert.equal(ajv.validate(schema.properties?.[name] ?? {}, { any: [null] }), true, name);
        }
        assert.equal(ajv.validate(schema.properties?.data ?? {}, null), true);
      }
    });

    it('Document: JSON nested thousands deep is a 422 naming the field (storing it would exhaust the stack)', async () => {
      const route = env().routeOf(Document);
      // Written as text: JSON.stringify would exhaust this test's own stack.
      const deep = `${'['.repeat(5_000)}1${']'.repeat(5_000)}`;
      const sendText = async (method: string, path: string, text: string) => {
        const response = await env().server.request(path, {
          method,
          headers: { 'content-type': 'application/json' },
          body: text,
        });
        return { status: response.status, body: (await response.json()) as unknown };
      };
      assert.deepEqual(refusedPaths(await sendText('POST', route, `{"body":${deep}}`)), ['body']);
      const created = await env().send('POST', route, { body: { n: 2 } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const item = `${route}/${String(id)}`;
      assert.deepEqual(refusedPaths(await sendText('PATCH', item, `{"body":{"deep":${deep}}}`)), ['body']);
      assert.deepEqual(await env().mikroJson(Document, id), created.body);
    });

    it('Document: JSON nested 40 deep is stored, except on MariaDB, whose json check refuses it and the 422 says why', async () => {
      const route = env().routeOf(Document);
      let deep: unknown = 1;
      for (let level = 0; level < 40; level++) deep = { a: deep };
      const answer = await env().send('POST', route, { body: deep });
      if (env().target !== 'mariadb') {
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        assert.deepEqual((answer.body as Json).body, deep);
        return;
      }
      assert.deepEqual(refusedPaths(answer), ['body']);
      assert.match(JSON.stringify(answer.body), /MariaDB accepts at most 32 levels of nesting/);
    });

    it("Document: an object's keys are answered in the order a fresh read gives them", async () => {
      const route = env().routeOf(Document);
      const sent = { body: { b: 1, a: 2 }, data: { zeta: 1, a: { d: 1, c: [{ y: 1, x: 2 }] } } };
      const created = await env().send('POST', route, sent);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const answers = [
        created.body,
        await env().get(`${route}/${String(id)}`),
        (await env().get<Json[]>(`${route}?filter[id]=${String(id)}`))[0],
      ];
      const fresh = await env().mikroJson(Document, id);
      for (const answer of answers) assert.equal(JSON.stringify(answer), JSON.stringify(fresh));
      // jsonb keeps shorter keys first; SQLite's text and MariaDB's JSON keep the keys as sent.
      const reordered = env().target === 'postgresql';
      assert.equal(JSON.stringify((fresh as Json).body), reordered ? '{"a":2,"b":1}' : '{"b":1,"a":2}');
      const patched = await env().send('PATCH', `${route}/${String(id)}`, { data: { bb: 1, a: 2 } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(JSON.stringify(patched.body), JSON.stringify(await env().mikroJson(Document, id)));
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
