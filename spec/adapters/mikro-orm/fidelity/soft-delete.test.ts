/**
 * The soft delete docs/models.md shows for a model with a default `@Filter`: a MikroORM `onFlush`
 * subscriber turns the removal of an article into an update of its `deleted_at`, so the API's
 * DELETE (which goes through the unit of work whenever a subscriber is registered) keeps the row
 * and the filter hides it from then on. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ChangeSetType, type EventSubscriber, type FlushEventArgs } from '@mikro-orm/core';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Article,
  filteredReferenceEntities,
  Remark,
} from '../../../fixtures/mikro-orm/filtered-references.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

/** The subscriber of docs/models.md: a removed article is updated with its deletion time instead. */
class SoftDelete implements EventSubscriber {
  onFlush({ uow }: FlushEventArgs): void {
    for (const cs of uow.getChangeSets()) {
      if (cs.type !== ChangeSetType.DELETE || !(cs.entity instanceof Article)) continue;
      cs.type = ChangeSetType.UPDATE;
      cs.entity.deleted_at = new Date();
      uow.recomputeSingleChangeSet(cs.entity);
    }
  }
}

const CATALOGUE: Catalogue = {
  entities: filteredReferenceEntities,
  routes: new Map<ModelClass, string>([
    [Article, '/articles'],
    [Remark, '/remarks'],
  ]),
  subscribers: () => [new SoftDelete()],
};

await describeFidelity(
  'MikroORM fidelity: a soft delete through an onFlush subscriber',
  (env) => {
    it('DELETE keeps the row with deleted_at set, and the filter hides it from then on', async () => {
      const created = await env().send('POST', '/articles', { title: `soft ${env().mode}` });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id as number;
      const remark = await env().send('POST', '/remarks', { body: 'on it', article: id });
      assert.equal(remark.status, 201, JSON.stringify(remark.body));
      const before = Date.now();
      assert.equal((await env().send('DELETE', `/articles/${id}`)).status, 204);
      const kept = await env().em().findOne(Article, id, { filters: false });
      assert.ok(kept !== null, 'the row is kept');
      assert.ok(kept.deleted_at instanceof Date && kept.deleted_at.getTime() >= before - 1_000);
      assert.equal(kept.title, `soft ${env().mode}`);
      assert.equal((await env().send('GET', `/articles/${id}`)).status, 404);
      assert.equal((await env().send('DELETE', `/articles/${id}`)).status, 404);
      assert.equal((await env().send('PATCH', `/articles/${id}`, { title: 'back' })).status, 404);
      // Its remark is kept too (no cascade ran), and hidden with it, as MikroORM loads remarks.
      const remarkId = (remark.body as Json).id;
      assert.ok(
        (await env()
          .em()
          .findOne(Remark, remarkId as number, { filters: false })) !== null,
      );
      assert.equal((await env().send('GET', `/remarks/${remarkId}`)).status, 404);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
