/**
 * Replacing a many-to-many: MikroORM writes a collection as the difference from the links it
 * loaded, so on PostgreSQL and MariaDB an update that sets one locks its row before reading them
 * (plain-mode.ts `#change`). Concurrent replacements end as one of them wrote the set (a Koa user's
 * check, session 17: links of several requests were left); a row deleted after the policy's read
 * is a 404; with MikroORM's `disableTransactions` the replacement goes on, unlocked. Every target,
 * both modes (the fast path hands these writes to the plain one).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import type { ModelClass } from '../../../../lib/types.js';
import { Gadget, Kit, Notice, Peer, Reader } from '../../../fixtures/mikro-orm/round-13.js';
import { type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Reader, Notice, Peer, Gadget, Kit],
  routes: new Map<ModelClass, string>([
    [Reader, '/readers'],
    [Notice, '/notices'],
    [Peer, '/peers'],
    [Gadget, '/gadgets'],
    [Kit, '/kits'],
  ]),
};

/** Creates readers through MikroORM; their keys. */
async function readers(env: FidelityEnv, count: number): Promise<number[]> {
  const em = env.em();
  const created = Array.from({ length: count }, (_, i) => em.create(Reader, { name: `r${i}` }));
  await em.flush();
  return created.map((reader) => reader.id);
}

/** The keys of a notice's readers as stored, in order. */
async function storedReaders(env: FidelityEnv, id: number): Promise<number[]> {
  const stored = await env.em().findOneOrFail(Notice, id, { populate: ['readers'] });
  return stored.readers
    .getItems()
    .map((reader) => reader.id)
    .sort((a, b) => a - b);
}

await describeFidelity(
  'MikroORM fidelity: replacing a many-to-many',
  (env) => {
    it('concurrent replacements leave the links of one of them, with that one’s other values', async () => {
      const keys = await readers(env(), 6);
      const pairs = keys.map((key, i) => [key, keys[(i + 1) % keys.length] as number]);
      const created = await env().send('POST', '/notices', { note: 'n', readers: pairs[0] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id as number;
      for (let round = 0; round < 4; round++) {
        const answers = await Promise.all(
          pairs.map((pair, i) =>
            env().send('PATCH', `/notices/${id}`, { note: `${round}/${i}`, readers: pair }),
          ),
        );
        // The row lock makes them take turns: none is stopped as a conflict.
        for (const answer of answers) assert.equal(answer.status, 200, JSON.stringify(answer.body));
        const links = await storedReaders(env(), id);
        const writer = pairs.findIndex((pair) => [...pair].sort((a, b) => a - b).join() === links.join());
        assert.ok(writer >= 0, `round ${round}: links ${JSON.stringify(links)} are no request's`);
        const note = (await env().em().findOneOrFail(Notice, id)).note;
        assert.equal(
          note,
          `${round}/${writer}`,
          `round ${round}: the note of the request whose links stayed`,
        );
      }
    });

    it('rows linking each other at once do not deadlock on PostgreSQL (its lock lets foreign-key checks by)', async () => {
      const [a, b] = await Promise.all(
        ['a', 'b'].map(async (name) => {
          const created = await env().send('POST', '/peers', { name });
          assert.equal(created.status, 201, JSON.stringify(created.body));
          return (created.body as Json).id as number;
        }),
      );
      for (let round = 0; round < 4; round++) {
        const answers = await Promise.all([
          env().send('PATCH', `/peers/${a}`, { friends: [b] }),
          env().send('PATCH', `/peers/${b}`, { friends: [a] }),
          env().send('PATCH', `/peers/${a}`, { friends: [a, b] }),
          env().send('PATCH', `/peers/${b}`, { friends: [b, a] }),
        ]);
        // MariaDB's foreign-key checks wait on the row lock: a deadlock there is a 409, "send it again".
        const allowed = env().target === 'mariadb' ? [200, 409] : [200];
        for (const answer of answers)
          assert.ok(
            allowed.includes(answer.status),
            `round ${round}: ${answer.status} ${JSON.stringify(answer.body)}`,
          );
      }
    });

    it('writes no target it links: a versioned target keeps its version (jsonb reorders its keys)', async () => {
      const gadget = await env().send('POST', '/gadgets', { attributes: { zz: 1, a: 2 } });
      assert.equal(gadget.status, 201, JSON.stringify(gadget.body));
      const id = (gadget.body as Json).id as number;
      const kit = await env().send('POST', '/kits', { name: 'k', gadgets: [id] });
      assert.equal(kit.status, 201, JSON.stringify(kit.body));
      const path = `/kits/${String((kit.body as Json).id)}`;
      for (const gadgets of [[id], [], [id]]) {
        const answer = await env().send('PATCH', path, { gadgets });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      assert.equal((await env().em().findOneOrFail(Gadget, id)).version, 1);
    });

    it('an update of a row deleted after the policy’s read is a 404, not a write', async () => {
      const [first] = await readers(env(), 1);
      const adapter: MikroOrmAdapter = env().adapter;
      const created = await adapter.create(adapter.openSession(), Notice, { note: 'gone', readers: [] });
      const id = created.id as number;
      const session = adapter.openSession({ primary: true });
      // What a policy's read does: the session now holds the row's entity.
      assert.ok((await adapter.get(session, Notice, id)) !== undefined);
      const em = env().em();
      await em.nativeDelete(Notice, { id: id });
      assert.equal(await adapter.update(session, Notice, id, { readers: [first] }), undefined);
      assert.equal(
        await adapter.update(adapter.openSession({ primary: true }), Notice, id, { readers: [] }),
        undefined,
      );
      assert.equal(await env().em().count(Notice, { id: id }), 0);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);

await describeFidelity(
  'MikroORM fidelity: replacing a many-to-many with disableTransactions',
  (env) => {
    it('replaces the set (no lock without a transaction)', async () => {
      const keys = await readers(env(), 3);
      const created = await env().send('POST', '/notices', { note: 'n', readers: [keys[0]] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id as number;
      const patched = await env().send('PATCH', `/notices/${id}`, { readers: [keys[1], keys[2]] });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.deepEqual(await storedReaders(env(), id), [keys[1], keys[2]]);
      const put = await env().send('PUT', `/notices/${id}`, { note: 'p', readers: [] });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assert.deepEqual(await storedReaders(env(), id), []);
    });
  },
  undefined,
  { catalogue: { ...CATALOGUE, options: { disableTransactions: true } } },
);
