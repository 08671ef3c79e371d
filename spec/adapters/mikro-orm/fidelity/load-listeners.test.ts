/**
 * Code MikroORM runs on every entity it loads: `@OnLoad` and `@OnInit` hooks, and subscribers that
 * listen to `onLoad`/`onInit` for an entity (given in MikroORM's options or registered at run time).
 * Every answer — reads, lists, `include=` targets and the answers to writes — is what MikroORM's
 * serializer gives for a fresh load; the fast path, whose plain rows skip that code, steps aside.
 * Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { wrap } from '@mikro-orm/core';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Badge,
  BadgeBrackets,
  Essay,
  loadListenerEntities,
  loadListenerSubscribers,
  Sticker,
  Writer,
} from '../../../fixtures/mikro-orm/load-listeners.js';
import { assertSameJson, type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: loadListenerEntities,
  routes: new Map<ModelClass, string>([
    [Writer, '/writers'],
    [Essay, '/essays'],
    [Sticker, '/stickers'],
    [Badge, '/badges'],
  ]),
  subscribers: loadListenerSubscribers,
};

await describeFidelity(
  'MikroORM fidelity: onLoad and onInit hooks and subscribers',
  (env) => {
    it('a read and a list show what the @OnLoad hook and an onLoad subscriber make of the row', async () => {
      const writer = await env().send('POST', '/writers', { name: 'Ann Lee' });
      assert.equal(writer.status, 201, JSON.stringify(writer.body));
      const writerId = (writer.body as Json).id;
      const essay = await env().send('POST', '/essays', { title: 'Hello World', writer: writerId });
      assert.equal(essay.status, 201, JSON.stringify(essay.body));
      const essayId = (essay.body as Json).id;
      for (const [model, route, id] of [
        [Writer, '/writers', writerId],
        [Essay, '/essays', essayId],
      ] as const) {
        const expected = await env().mikroJson(model, id);
        assert.ok(expected !== undefined);
        assertSameJson(await env().get(`${route}/${id}`), expected);
        assertSameJson(await env().get(`${route}?filter[id]=${id}`), [expected]);
      }
      assert.equal((await env().get(`/writers/${writerId}`)).name, 'ANN LEE');
      assert.equal((await env().get(`/essays/${essayId}`)).title, 'hello world');
      // The answers to writes too: MikroORM's loads run the listeners.
      assertSameJson(writer.body, await env().mikroJson(Writer, writerId));
      assertSameJson(essay.body, await env().mikroJson(Essay, essayId));
      const patched = await env().send('PATCH', `/essays/${essayId}`, { title: 'Second Draft' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assertSameJson(patched.body, await env().mikroJson(Essay, essayId));
    });

    it('include= reads its targets as MikroORM loads them, both ways', async () => {
      const em = env().em();
      const writer = em.create(Writer, { name: `Bo ${env().mode}` });
      const essay = em.create(Essay, { title: 'Mixed Case', writer });
      await em.flush();
      const withWriter = await env().get(`/essays/${essay.id}?include=writer`);
      const populated = await env()
        .em()
        .findOneOrFail(Essay, essay.id, { populate: ['writer'] });
      assertSameJson(withWriter, JSON.parse(JSON.stringify(wrap(populated).toObject())));
      const withEssays = await env().get(`/writers/${writer.id}?include=essays`);
      assertSameJson(withEssays.essays, [await env().mikroJson(Essay, essay.id)]);
      assertSameJson(
        { ...withEssays, essays: undefined },
        {
          ...(await env().mikroJson(Writer, writer.id)),
          essays: undefined,
        },
      );
    });

    it('an @OnInit hook: reads, lists and the answers to writes equal a fresh load', async () => {
      const created = await env().send('POST', '/stickers', { label: 'Hi' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const expected = await env().mikroJson(Sticker, id);
      assertSameJson(created.body, expected);
      assertSameJson(await env().get(`/stickers/${id}`), expected);
      assertSameJson(await env().get(`/stickers?filter[id]=${id}`), [expected]);
      const patched = await env().send('PATCH', `/stickers/${id}`, { label: 'Ho' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assertSameJson(patched.body, await env().mikroJson(Sticker, id));
    });

    it('a subscriber registered at run time takes effect from the next request', async () => {
      const created = await env().send('POST', '/badges', { label: 'gold' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      assert.equal((await env().get(`/badges/${id}`)).label, 'gold');
      const events = env().adapter.orm.em.getEventManager();
      events.registerSubscriber(new BadgeBrackets());
      if (env().mode === 'fast') assert.match(env().adapter.plainReason(Badge) ?? '', /onLoad/);
      const expected = await env().mikroJson(Badge, id);
      assert.equal(expected?.label, '[gold]');
      assertSameJson(await env().get(`/badges/${id}`), expected);
      assertSameJson(await env().get(`/badges?filter[id]=${id}`), [expected]);
      const patched = await env().send('PATCH', `/badges/${id}`, { label: 'silver' });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assertSameJson(patched.body, await env().mikroJson(Badge, id));
    });

    it('names the listeners as the reason a model is served plainly', () => {
      if (env().mode !== 'fast') return;
      assert.match(env().adapter.plainReason(Writer) ?? '', /onLoad/);
      assert.match(env().adapter.plainReason(Essay) ?? '', /onLoad/);
      assert.match(env().adapter.plainReason(Sticker) ?? '', /onInit/);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
