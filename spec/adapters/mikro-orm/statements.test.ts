/**
 * The adapter's own statements. On SQLite: they never run inside another request's open
 * transaction, and pages of any size come back whole (the LIMIT is written into the SQL). On
 * PostgreSQL: named (server-side prepared) statements on a direct connection by default; when a
 * server connection loses one (26000) or already has one (42P05), as behind a transaction-mode
 * pooler, the statement is answered all the same, one warning says so and names stay off;
 * `namedStatements: true` keeps names whatever happens, `false` never uses them.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import type { ListQuery } from '../../../lib/types.js';
import { fixtureModels } from '../../fixtures/mikro-orm/index.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { type FixtureAdapter, openFixtureAdapter } from '../../support/fixture-adapter.js';
import {
  countStatements,
  forgetOnClient,
  forgetOnServer,
  forgetPrepared,
  nativePool,
  preparedOnServer,
  watchWarnings,
} from './named-statements.js';

const { Category } = fixtureModels;

for (const target of databaseTargets().filter((t) => t.startsWith('sqlite'))) {
  describe(`adapter statements on ${target}`, await requireTarget(target), () => {
    let fixture: FixtureAdapter;
    let adapter: MikroOrmAdapter;
    before(async () => {
      fixture = await openFixtureAdapter(target);
      adapter = fixture.adapter;
      for (let i = 1; i <= 30; i++) await adapter.create(adapter.openSession(), Category, { name: `c${i}` });
    });
    after(() => fixture?.close());

    it("waits for another request's open transaction instead of reading its uncommitted rows", async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let inserted: unknown;
      const writer = adapter.openSession().transactional(async (em: EntityManager) => {
        const row = await adapter.create(em, Category, { name: 'uncommitted' });
        inserted = row.id;
        await held;
        throw new Error('roll back');
      });
      while (inserted === undefined) await new Promise((resolve) => setImmediate(resolve));
      let read: unknown = 'pending';
      const reader = adapter.get(adapter.openSession(), Category, inserted as number).then((row) => {
        read = row;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(read, 'pending', 'the read waits while the transaction is open');
      release();
      await assert.rejects(writer, /roll back/);
      await reader;
      assert.equal(read, undefined, 'the rolled-back row was never seen');
    });

    it('returns pages of every size the client asks for, one statement per size', async () => {
      const session = adapter.openSession();
      for (const limit of [1, 7, 20, 1, 30]) {
        const { rows } = await adapter.list(session, Category, {
          filters: [],
          sort: [{ field: 'id', direction: 'asc' }],
          limit,
          offset: 2,
          withTotal: false,
        });
        assert.equal(rows.length, Math.min(limit, 28), `limit ${limit}`);
        assert.equal(rows[0]?.name, 'c3');
      }
      assert.equal((await adapter.get(session, Category, 30))?.name, 'c30');
    });
  });
}

const page: ListQuery = {
  filters: [{ field: 'name', op: '$ne', value: 'none' }],
  sort: [{ field: 'id', direction: 'asc' }],
  limit: 5,
  offset: 0,
  withTotal: true,
};

if (databaseTargets().includes('postgresql')) {
  describe('adapter statements on postgresql', await requireTarget('postgresql'), () => {
    let fixture: FixtureAdapter;
    before(async () => {
      fixture = await openFixtureAdapter('postgresql');
      for (let i = 1; i <= 30; i++)
        await fixture.adapter.create(fixture.adapter.openSession(), Category, { name: `c${i}` });
    });
    after(() => fixture?.close());
    // Adapters share the fixture's pool: each test starts with no statement prepared anywhere.
    beforeEach(async () => forgetPrepared(await nativePool(fixture.adapter)));

    /** Lookups, lists with their count and updates, `inFlight` at a time; checks every answer. */
    async function load(adapter: MikroOrmAdapter, requests: number, inFlight: number): Promise<void> {
      let next = 0;
      const worker = async () => {
        while (next < requests) {
          const n = next++;
          const id = (n % 30) + 1;
          if (n % 3 === 0)
            assert.equal((await adapter.get(adapter.openSession(), Category, id))?.name, `c${id}`);
          else if (n % 3 === 1) {
            const { rows, total } = await adapter.list(adapter.openSession(), Category, page);
            assert.deepEqual([rows.length, total], [5, 30]);
          } else {
            const updated = await adapter.update(adapter.openSession(), Category, id, { name: `c${id}` });
            assert.equal(updated?.name, `c${id}`);
          }
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
    }

    it('names its statements by default on a direct connection: the server keeps them, nothing is warned', async () => {
      const adapter = new MikroOrmAdapter(fixture.adapter.orm);
      const pool = await nativePool(adapter);
      const watch = watchWarnings();
      const spy = countStatements(pool);
      try {
        await load(adapter, 90, 1);
        await load(adapter, 300, 10);
      } finally {
        spy.restore();
      }
      assert.deepEqual(await watch.stop(), []);
      assert.equal(spy.counts.unnamed, 0, JSON.stringify(spy.counts));
      assert.ok(spy.counts.named >= 390, JSON.stringify(spy.counts));
      assert.ok((await preparedOnServer(pool)).length >= 3, 'the server connections hold kma_ statements');
    });

    for (const [code, lose] of [
      ['26000', forgetOnServer],
      ['42P05', forgetOnClient],
    ] as const) {
      it(`by default, a statement the connection lost (${code}) is answered all the same, warned once, and names stay off`, async () => {
        const adapter = new MikroOrmAdapter(fixture.adapter.orm);
        const pool = await nativePool(adapter);
        // One at a time: the pool's first connection has prepared every statement of the load.
        await load(adapter, 30, 1);
        await lose(pool);
        const watch = watchWarnings();
        await load(adapter, 60, 10);
        const warnings = await watch.stop();
        assert.equal(warnings.length, 1, warnings.map((w) => w.message).join('\n'));
        assert.match(warnings[0]?.message ?? '', new RegExp(`${code} .*kma_[0-9a-f]+.*unnamed`));
        const spy = countStatements(pool);
        try {
          await load(adapter, 30, 3);
        } finally {
          spy.restore();
        }
        assert.equal(spy.counts.named, 0, JSON.stringify(spy.counts));
        assert.ok(spy.counts.unnamed >= 30, JSON.stringify(spy.counts));
      });
    }

    it('a create that meets a lost statement is stored once', async () => {
      const adapter = new MikroOrmAdapter(fixture.adapter.orm);
      const pool = await nativePool(adapter);
      await adapter.delete(
        adapter.openSession(),
        Category,
        (await adapter.create(adapter.openSession(), Category, { name: 'warm-up' })).id as number,
      );
      await forgetOnServer(pool);
      const watch = watchWarnings();
      const created = await adapter.create(adapter.openSession(), Category, { name: 'once' });
      assert.equal((await watch.stop()).length, 1);
      const { rows } = await adapter.list(adapter.openSession(), Category, {
        ...page,
        filters: [{ field: 'name', op: '$eq', value: 'once' }],
      });
      assert.deepEqual(
        rows.map((row) => row.id),
        [created.id],
      );
      await adapter.delete(adapter.openSession(), Category, created.id as number);
    });

    it("namedStatements: true keeps names: a lost statement is the caller's error, not warned", async () => {
      const adapter = new MikroOrmAdapter(fixture.adapter.orm, { namedStatements: true });
      const pool = await nativePool(adapter);
      await adapter.get(adapter.openSession(), Category, 1);
      await forgetOnServer(pool);
      const watch = watchWarnings();
      await assert.rejects(adapter.get(adapter.openSession(), Category, 1));
      assert.deepEqual(await watch.stop(), []);
      // pg still believes the statement parsed on that client: it stays broken until it closes.
      await forgetOnClient(pool);
      const spy = countStatements(pool);
      try {
        assert.equal((await adapter.get(adapter.openSession(), Category, 1))?.name, 'c1');
      } finally {
        spy.restore();
      }
      assert.deepEqual(spy.counts, { named: 1, unnamed: 0 });
    });

    it('namedStatements: false never names a statement', async () => {
      const adapter = new MikroOrmAdapter(fixture.adapter.orm, { namedStatements: false });
      const pool = await nativePool(adapter);
      const spy = countStatements(pool);
      try {
        await load(adapter, 60, 5);
      } finally {
        spy.restore();
      }
      assert.equal(spy.counts.named, 0, JSON.stringify(spy.counts));
      assert.ok(spy.counts.unnamed >= 60, JSON.stringify(spy.counts));
    });

    it('runs none of its own statements inside a transaction (MikroORM runs them there): nothing to retry in one', async () => {
      const adapter = new MikroOrmAdapter(fixture.adapter.orm);
      const pool = await nativePool(adapter);
      const spy = countStatements(pool);
      try {
        await adapter.openSession().transactional(async (em: EntityManager) => {
          assert.equal((await adapter.get(em, Category, 2))?.name, 'c2');
          assert.equal((await adapter.list(em, Category, page)).total, 30);
          await adapter.update(em, Category, 2, { name: 'c2' });
        });
      } finally {
        spy.restore();
      }
      assert.deepEqual(spy.counts, { named: 0, unnamed: 0 });
    });
  });
}
