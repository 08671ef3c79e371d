/**
 * A many-to-one or owning one-to-one to a model whose default `@Filter` hides rows (soft delete):
 * MikroORM joins the target with its filter on every load of the owner, so a remark on a hidden
 * article is left out of every read (`NOT NULL`) and a nullable relation to one reads as null.
 * A write naming such a row is refused like a key naming no row (422 naming the field), on create,
 * PUT and PATCH, and nothing is written; a relation to a model without filters costs no statement.
 * Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Article,
  Folder,
  filteredReferenceEntities,
  Jotting,
  Remark,
} from '../../../fixtures/mikro-orm/filtered-references.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

/** MikroORM's query log, by first word (`select`, `insert`…), while `debug` is on. */
const statements: string[] = [];

const CATALOGUE: Catalogue = {
  entities: filteredReferenceEntities,
  routes: new Map<ModelClass, string>([
    [Article, '/articles'],
    [Remark, '/remarks'],
    [Folder, '/folders'],
    [Jotting, '/jottings'],
  ]),
  options: {
    logger: (message: string) => statements.push(/(?:\[query\]\s*)?(\w+)/.exec(message)?.[1] ?? ''),
    colors: false,
  },
};

/** A live article and a deleted one, made through MikroORM. */
async function articles(env: FidelityEnv): Promise<{ live: Article; gone: Article }> {
  const em = env.em();
  const live = em.create(Article, { title: `live ${env.mode}` });
  const gone = em.create(Article, {
    title: `gone ${env.mode}`,
    deleted_at: new Date('2026-01-01T00:00:00Z'),
  });
  await em.flush();
  return { live, gone };
}

/** The 422 of a reference naming no record a read finds, for `path`. */
function assertReferencesNothing(answer: { status: number; body: unknown }, path: string): void {
  assert.equal(answer.status, 422, JSON.stringify(answer.body));
  const body = answer.body as Json;
  assert.equal(body.code, 'validation_failed');
  assert.deepEqual(body.errors, [{ path, message: 'References a record that does not exist.' }]);
}

await describeFidelity(
  'MikroORM fidelity: relations to a model with a default filter',
  (env) => {
    it('refuses a hidden target on create, as a key naming no row, and stores nothing', async () => {
      const { live, gone } = await articles(env());
      const body = `hidden ${env().mode}`;
      assertReferencesNothing(await env().send('POST', '/remarks', { body, article: gone.id }), 'article');
      assertReferencesNothing(await env().send('POST', '/remarks', { body, article: 999_999 }), 'article');
      assertReferencesNothing(
        await env().send('POST', '/remarks', { body, article: live.id, pinned: gone.id }),
        'pinned',
      );
      assert.equal(await env().em().count(Remark, { body }, { filters: false }), 0);
      const right = await env().send('POST', '/remarks', { body, article: live.id, pinned: live.id });
      assert.equal(right.status, 201, JSON.stringify(right.body));
      const id = (right.body as Json).id;
      assertSameJson(right.body, await env().mikroJson(Remark, id));
      assertSameJson(await env().get(`/remarks/${id}`), right.body);
    });

    it('refuses a hidden target on PATCH and PUT and keeps the stored one', async () => {
      const { live, gone } = await articles(env());
      const created = await env().send('POST', '/remarks', { body: `kept ${env().mode}`, article: live.id });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      for (const method of ['PATCH', 'PUT']) {
        const whole = method === 'PUT' ? { body: `kept ${env().mode}` } : {};
        assertReferencesNothing(
          await env().send(method, `/remarks/${id}`, { ...whole, article: gone.id }),
          'article',
        );
        assertReferencesNothing(
          await env().send(method, `/remarks/${id}`, { ...whole, article: live.id, pinned: gone.id }),
          'pinned',
        );
        const stored = await env().mikroJson(Remark, id);
        assert.equal(stored?.article, live.id, method);
        assert.equal(stored?.pinned, null, method);
      }
      const moved = await env().send('PATCH', `/remarks/${id}`, { pinned: live.id });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assertSameJson(moved.body, await env().mikroJson(Remark, id));
    });

    it('answers 404 to an update of a remark its hidden article hides, as to any hidden row', async () => {
      const { gone } = await articles(env());
      const em = env().em();
      // Stored by other means: MikroORM accepts the key, and then never loads the remark.
      const stray = em.create(Remark, { body: `stray ${env().mode}`, article: gone.id });
      await em.flush();
      assert.equal(await env().mikroJson(Remark, stray.id), undefined);
      assert.equal((await env().send('GET', `/remarks/${stray.id}`)).status, 404);
      for (const method of ['PATCH', 'PUT'])
        assert.equal(
          (await env().send(method, `/remarks/${stray.id}`, { body: 'x', article: gone.id })).status,
          404,
          method,
        );
      // The adapter itself (the HTTP routes answer 404 before asking it): no record, not a 422.
      const { adapter } = env();
      assert.equal(
        await adapter.update(adapter.openSession({ primary: true }), Remark, stray.id, { article: gone.id }),
        undefined,
      );
    });

    it('asks nothing before writing a relation to a model without filters', async () => {
      const folder = await env().send('POST', '/folders', { name: `f ${env().mode}` });
      assert.equal(folder.status, 201, JSON.stringify(folder.body));
      const folderId = (folder.body as Json).id;
      const { config } = env().adapter.orm;
      statements.length = 0;
      config.set('debug', ['query']);
      let created: Awaited<ReturnType<FidelityEnv['send']>>;
      try {
        created = await env().send('POST', '/jottings', { text: 'j', folder: folderId });
      } finally {
        config.set('debug', false);
      }
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const words = statements.map((word) => word.toLowerCase());
      const insert = words.indexOf('insert');
      assert.ok(insert >= 0, words.join(' '));
      assert.ok(!words.slice(0, insert).includes('select'), words.join(' '));
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
