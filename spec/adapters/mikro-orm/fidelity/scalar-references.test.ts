/**
 * Scalar references (`ref: true` on a scalar, `Ref<string>`), lazy or not: written through their
 * `ScalarReference` as application code writes them (`article.body.set(…)`), on create, PUT and
 * PATCH, null included; served as MikroORM's `toObject()` serializes them: a lazy one only when a
 * list names it in `fields=`. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { wrap } from '@mikro-orm/core';
import type { ModelClass } from '../../../../lib/types.js';
import { Article } from '../../../fixtures/mikro-orm/serializer-rules.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Article],
  routes: new Map<ModelClass, string>([[Article, '/articles']]),
};

/** MikroORM's JSON of the article with its lazy body loaded. */
async function populated(env: FidelityEnv, id: unknown): Promise<Json> {
  const entity = await env.em().findOneOrFail(Article, id as number, { populate: ['body'] });
  return JSON.parse(JSON.stringify(wrap(entity).toObject())) as Json;
}

await describeFidelity(
  'MikroORM fidelity: scalar references',
  (env) => {
    it('creates, then changes both references by PATCH and PUT, null included', async () => {
      const created = await env().send('POST', '/articles', { title: 't', body: 'first', teaser: 'tease' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      assertSameJson(created.body, await env().mikroJson(Article, id));
      assertSameJson(await populated(env(), id), { id, title: 't', body: 'first', teaser: 'tease' });
      const path = `/articles/${String(id)}`;
      const writes: [string, Json, Json][] = [
        ['PATCH', { body: 'by PATCH' }, { body: 'by PATCH', teaser: 'tease' }],
        ['PUT', { title: 't', body: 'by PUT', teaser: 'other' }, { body: 'by PUT', teaser: 'other' }],
        ['PATCH', { title: 'u' }, { title: 'u', body: 'by PUT', teaser: 'other' }],
        ['PATCH', { body: null, teaser: null }, { title: 'u', body: null, teaser: null }],
        ['PATCH', { body: 'again', teaser: 'back' }, { body: 'again', teaser: 'back' }],
      ];
      let expected: Json = { id, title: 't' };
      for (const [method, body, stored] of writes) {
        const answer = await env().send(method, path, body);
        assert.equal(answer.status, 200, `${method} ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
        expected = { ...expected, ...stored };
        assertSameJson(await populated(env(), id), expected, `${method} ${JSON.stringify(body)}`);
        // The answer is the record as a later read gives it: the lazy body left out.
        assertSameJson(answer.body, await env().mikroJson(Article, id), `${method} answer`);
        assertSameJson(await env().get(path), answer.body, `${method}: GET`);
      }
    });

    it('serves the lazy one when a list names it in fields=, as its populated toObject()', async () => {
      const created = await env().send('POST', '/articles', { title: 'listed', body: 'long text' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const full = await populated(env(), id);
      const list = await env().get<Json[]>(`/articles?filter[id]=${String(id)}&fields=id,body,teaser`);
      assertSameJson(list, [{ id, body: full.body, teaser: full.teaser ?? null }]);
      const patched = await env().send('PATCH', `/articles/${String(id)}`, { body: 'changed' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const after = await env().get<Json[]>(`/articles?filter[id]=${String(id)}&fields=body`);
      assertSameJson(after, [{ body: 'changed' }]);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
