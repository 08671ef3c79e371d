/**
 * A relation whose owning side is hidden stays hidden from its inverse side: a one-to-many to an
 * anonymous review's hidden reviewer, an inverse one-to-one of a hidden owner, an inverse
 * many-to-many of a hidden owning collection are neither served, included, filtered nor selected
 * (each showed the hidden link from the other end). Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Critique,
  hiddenOwnerEntities,
  Mark,
  Persona,
  Volume,
  Writer,
} from '../../../fixtures/mikro-orm/hidden-owners.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: hiddenOwnerEntities,
  routes: new Map<ModelClass, string>([
    [Writer, '/writers'],
    [Critique, '/critiques'],
    [Persona, '/personas'],
    [Mark, '/marks'],
    [Volume, '/volumes'],
  ]),
};

await describeFidelity(
  'MikroORM fidelity: the inverse side of a hidden owning side',
  (env) => {
    it('shows no hidden link from the other end', async () => {
      const writer = await env().send('POST', '/writers', { name: 'ben' });
      assert.equal(writer.status, 201, JSON.stringify(writer.body));
      const id = (writer.body as Json).id as number;
      const em = env().em();
      em.create(Critique, { text: 'harsh', reviewer: id });
      em.create(Persona, { bio: 'anon', writer: id });
      const mark = em.create(Mark, { name: 'banned' });
      const volume = em.create(Volume, { title: 'v' });
      volume.marks.add(mark);
      await em.flush();
      const read = await env().send('GET', `/writers/${id}`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.equal('persona' in (read.body as Json), false, JSON.stringify(read.body));
      for (const query of [
        `/writers/${id}?include=critiques`,
        '/writers?include=critiques',
        '/writers?fields=name,persona',
        '/writers?filter[persona]=1',
        `/marks/${mark.id}?include=volumes`,
      ]) {
        const answer = await env().send('GET', query);
        assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      }
      assert.deepEqual(
        env()
          .adapter.describe(Writer)
          .collections?.map((collection) => collection.name) ?? [],
        [],
      );
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
