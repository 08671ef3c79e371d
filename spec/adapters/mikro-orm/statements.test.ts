/**
 * The adapter's own statements on SQLite: they never run inside another request's open
 * transaction, and pages of any size come back whole (the LIMIT is written into the SQL).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/core';
import type { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { fixtureModels } from '../../fixtures/mikro-orm/index.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { type FixtureAdapter, openFixtureAdapter } from '../../support/fixture-adapter.js';

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
