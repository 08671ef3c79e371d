/**
 * Filters registered at run time with `em.addFilter()` (a tenant condition, a soft-delete flag
 * added in code), on every database target and in both execution modes: MikroORM applies them to
 * every read, so the API does too: a row they hide is missing from lists, counts, reads, updates
 * and deletes, and a to-one relation to a hidden row reads as MikroORM loads it. They are in no
 * metadata; the adapter learns of them when they are added, or asks MikroORM at start.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { ormFromUrl } from '../../../adapters/mikro-orm/connect.js';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { runtimeFiltersOf } from '../../../adapters/mikro-orm/runtime-filters.js';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { ListQuery, ModelClass, RawRecord } from '../../../lib/types.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

/** One tenant's rows are all a request may see once the application adds its filter. */
@Entity()
class Ledger extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() title!: string;
  @Property() tenant!: string;
}

/** Shelves marked hidden disappear once the application adds its filter. */
@Entity()
class Shelf extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() label!: string;
  @Property({ type: 'boolean', default: false }) hidden!: boolean & Opt;
}

@Entity()
class Volume extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() name!: string;
  @ManyToOne(() => Shelf, { nullable: true }) shelf?: Shelf | null;
}

const entities = [Ledger, Shelf, Volume];

function page(): ListQuery {
  return { filters: [], sort: [{ field: 'id', direction: 'asc' }], limit: 100, offset: 0, withTotal: true };
}

function ids(rows: readonly object[]): unknown[] {
  return rows.map((row) => (row as { id: unknown }).id);
}

for (const target of databaseTargets()) {
  describe(
    `MikroOrmAdapter with filters added by em.addFilter() on ${target}`,
    await requireTarget(target),
    () => {
      let db: TestDatabase;
      const adapters = {} as Record<'fast' | 'plain', MikroOrmAdapter>;
      const ledgers: RawRecord[] = [];
      const shelves: RawRecord[] = [];
      const volumes: RawRecord[] = [];

      before(async () => {
        db = await createTestDatabase(target);
        adapters.fast = await MikroOrmAdapter.connect({ url: db.url, entities, schema: 'create' });
        adapters.plain = new MikroOrmAdapter(adapters.fast.orm, { mode: 'plain' });
        const session = adapters.fast.openSession();
        for (const [title, tenant] of [
          ['a1', 'a'],
          ['b1', 'b'],
          ['a2', 'a'],
        ])
          ledgers.push(await adapters.fast.create(session, Ledger, { title, tenant }));
        for (const [label, hidden] of [
          ['top', false],
          ['attic', true],
        ] as const)
          shelves.push(await adapters.fast.create(session, Shelf, { label, hidden }));
        for (const [name, shelf] of [
          ['on top', shelves[0]?.id],
          ['in the attic', shelves[1]?.id],
          ['loose', null],
        ])
          volumes.push(await adapters.fast.create(session, Volume, { name, shelf }));
        assert.equal(
          adapters.fast.plainReason(Ledger),
          undefined,
          'served by the fast path before the filters',
        );
        assert.equal(adapters.fast.plainReason(Volume), undefined);
        adapters.fast.orm.em.addFilter({ name: 'tenant', cond: { tenant: 'a' }, entity: [Ledger] });
        adapters.fast.orm.em.addFilter({ name: 'shown', cond: { hidden: false }, entity: [Shelf] });
      });
      after(async () => {
        await adapters.fast?.close();
        await db?.drop();
      });

      /** A second MikroORM on the same rows (an in-memory SQLite database is new to it: seeded again). */
      async function secondOrm() {
        const memory = target === 'sqlite-memory';
        const orm = await ormFromUrl({
          url: db.url,
          entities,
          ...(memory ? { schema: 'create' as const } : {}),
        });
        if (memory)
          await orm.em.fork().insertMany(
            Ledger,
            ledgers.map((ledger) => ({ ...ledger }) as unknown as Ledger),
          );
        return orm;
      }

      for (const mode of ['fast', 'plain'] as const) {
        it(`${mode}: lists, counts, reads and finds only the rows em.find returns`, async () => {
          const adapter = adapters[mode];
          const expected = await adapter.orm.em.fork().find(Ledger, {}, { orderBy: { id: 'asc' } });
          assert.deepEqual(ids(expected), [ledgers[0]?.id, ledgers[2]?.id], 'the filter hides b1');
          const listed = await adapter.list(adapter.openSession(), Ledger, page());
          assert.deepEqual(ids(listed.rows), ids(expected));
          assert.equal(listed.total, 2);
          assert.equal(await adapter.get(adapter.openSession(), Ledger, ledgers[1]?.id as number), undefined);
          assert.equal(
            (await adapter.get(adapter.openSession(), Ledger, ledgers[0]?.id as number))?.title,
            'a1',
          );
          assert.equal(await adapter.findBy(adapter.openSession(), Ledger, 'title', 'b1'), undefined);
        });

        it(`${mode}: an update or delete of a hidden row finds none, and the row stays as it was`, async () => {
          const adapter = adapters[mode];
          const hidden = ledgers[1]?.id as number;
          assert.equal(
            await adapter.update(adapter.openSession(), Ledger, hidden, { title: 'changed' }),
            undefined,
          );
          assert.equal(await adapter.delete(adapter.openSession(), Ledger, hidden), false);
          const stored = await adapter.orm.em.fork().findOne(Ledger, hidden, { filters: false });
          assert.equal(stored?.title, 'b1');
        });

        it(`${mode}: a to-one relation to a row the filter hides reads as MikroORM loads it`, async () => {
          const adapter = adapters[mode];
          const loaded = await adapter.orm.em.fork().find(Volume, {}, { orderBy: { id: 'asc' } });
          const expected = loaded.map((volume) => ({ id: volume.id, shelf: volume.shelf?.id ?? null }));
          assert.equal(expected[1]?.shelf, null, "MikroORM shows the attic's volume without its shelf");
          const listed = await adapter.list(adapter.openSession(), Volume, page());
          assert.deepEqual(
            listed.rows.map((row) => ({ id: row.id, shelf: row.shelf ?? null })),
            expected,
          );
          const read = await adapter.get(adapter.openSession(), Volume, volumes[1]?.id as number);
          assert.equal(read?.shelf ?? null, null);
        });

        it(`${mode}: a write naming a row the filter hides is refused like a key naming no row`, async () => {
          const adapter = adapters[mode];
          const onTop = volumes[0]?.id as number;
          const refused = (error: unknown): boolean =>
            error instanceof ApiError &&
            error.status === 422 &&
            JSON.stringify(error.errors) ===
              JSON.stringify([{ path: 'shelf', message: 'References a record that does not exist.' }]);
          // The seed put a volume on the attic before the filter: added later, it counts from then on.
          await assert.rejects(
            adapter.update(adapter.openSession(), Volume, onTop, { shelf: shelves[1]?.id }),
            refused,
          );
          await assert.rejects(
            adapter.create(adapter.openSession(), Volume, { name: 'up', shelf: shelves[1]?.id }),
            refused,
          );
          const stored = await adapter.orm.em.fork().findOne(Volume, onTop);
          assert.equal(stored?.shelf?.id, shelves[0]?.id);
        });
      }

      it('a filter off by default leaves a model on the fast path; one naming no entity reaches every model', async () => {
        const orm = await secondOrm();
        try {
          const adapter = new MikroOrmAdapter(orm);
          await adapter.list(adapter.openSession(), Shelf, page());
          orm.em.addFilter({ name: 'archived', cond: { hidden: true }, entity: [Shelf], default: false });
          assert.equal(adapter.plainReason(Shelf), undefined);
          orm.em.addFilter({ name: 'everything', cond: {}, default: true });
          for (const model of entities as ModelClass[])
            assert.match(adapter.plainReason(model) ?? '', /filters/, model.name);
        } finally {
          await orm.close(true);
        }
      });

      it('a filter whose condition is empty outside a request still counts (a tenant filter reading the request)', async () => {
        const orm = await secondOrm();
        try {
          let tenant: string | undefined;
          orm.em.addFilter({
            name: 'current tenant',
            cond: () => (tenant === undefined ? {} : { tenant }),
            entity: [Ledger],
          });
          const adapter = new MikroOrmAdapter(orm);
          await new Promise((resolve) => setImmediate(resolve));
          assert.match(adapter.plainReason(Ledger) ?? '', /filters/);
          tenant = 'a';
          const listed = await adapter.list(adapter.openSession(), Ledger, page());
          assert.deepEqual(ids(listed.rows), [ledgers[0]?.id, ledgers[2]?.id]);
        } finally {
          await orm.close(true);
        }
      });

      it('a filter added on every fork is recorded once', async () => {
        const orm = await secondOrm();
        try {
          const adapter = new MikroOrmAdapter(orm);
          await adapter.list(adapter.openSession(), Shelf, page());
          const registry = runtimeFiltersOf(orm);
          const before = registry.epoch;
          for (let i = 0; i < 100; i++)
            adapter.openSession().addFilter({ name: 'mine', cond: { hidden: false }, entity: [Shelf] });
          assert.equal(registry.epoch, before + 1);
          assert.match(adapter.plainReason(Shelf) ?? '', /filters/);
        } finally {
          await orm.close(true);
        }
      });

      it('a filter added before the adapter existed applies from the first request', async () => {
        const orm = await secondOrm();
        try {
          orm.em.addFilter({ name: 'tenant', cond: { tenant: 'b' }, entity: [Ledger] });
          const adapter = new MikroOrmAdapter(orm);
          const first = await adapter.list(adapter.openSession(), Ledger, page());
          assert.deepEqual(ids(first.rows), [ledgers[1]?.id]);
          await new Promise((resolve) => setImmediate(resolve));
          assert.match(adapter.plainReason(Ledger) ?? '', /filters/);
          assert.equal(adapter.plainReason(Shelf), undefined, 'a model no filter reaches stays fast');
          assert.equal(await adapter.get(adapter.openSession(), Ledger, ledgers[0]?.id as number), undefined);
        } finally {
          await orm.close(true);
        }
      });
    },
  );
}
