/**
 * Relations whose target has a default MikroORM filter (a soft-delete flag), on every database
 * target and in both execution modes: a list or read of the owner shows the relation as `em.find`
 * loads it (a hidden desk as null: MikroORM joins the filtered target on every load), a filter or
 * sort through the relation gives what `em.find` gives (MikroORM applies the target's filter to the join, so the fast path steps aside), and the
 * links of a collection leave out the rows the filter hides, so they take no place in the cap.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Collection, type Opt } from '@mikro-orm/core';
import { Entity, Filter, ManyToMany, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { FilterCondition, ListQuery, RawRecord, SortKey } from '../../../lib/types.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

/** Closed desks are hidden from every read. */
@Entity()
@Filter({ name: 'open', cond: { closed: false }, default: true })
class Desk extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() name!: string;
  @Property({ type: 'boolean', default: false }) closed!: boolean & Opt;
}

/** Retired stickers are hidden from every read. */
@Entity()
@Filter({ name: 'current', cond: { retired: false }, default: true })
class Sticker extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() name!: string;
  @Property({ type: 'boolean', default: false }) retired!: boolean & Opt;
}

@Entity()
class Paper extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() title!: string;
  @ManyToOne(() => Desk, { nullable: true }) desk?: Desk | null;
  @ManyToMany(() => Sticker) stickers = new Collection<Sticker>(this);
}

function page(filters: FilterCondition[], sort: SortKey[] = []): ListQuery {
  return { filters, sort, limit: 100, offset: 0, withTotal: true };
}

function ids(rows: readonly object[]): unknown[] {
  return rows.map((row) => (row as { id: unknown }).id);
}

for (const target of databaseTargets()) {
  describe(`MikroOrmAdapter relations to a filtered model on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    const adapters = {} as Record<'fast' | 'plain', MikroOrmAdapter>;
    const desks: RawRecord[] = [];
    const stickers: RawRecord[] = [];
    const papers: RawRecord[] = [];

    before(async () => {
      db = await createTestDatabase(target);
      adapters.fast = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Desk, Sticker, Paper],
        schema: 'create',
      });
      adapters.plain = new MikroOrmAdapter(adapters.fast.orm, { mode: 'plain' });
      const session = adapters.fast.openSession();
      for (const [name, closed] of [
        ['oak', false],
        ['pine', true],
        ['elm', false],
      ] as const)
        desks.push(await adapters.plain.create(session, Desk, { name, closed }));
      for (const [name, retired] of [
        ['s1', true],
        ['s2', false],
        ['s3', true],
        ['s4', false],
        ['s5', false],
      ] as const)
        stickers.push(await adapters.plain.create(session, Sticker, { name, retired }));
      const s = stickers.map((sticker) => sticker.id);
      for (const [title, desk, tags] of [
        ['a', desks[0], [s[0], s[1], s[2], s[3]]],
        ['b', desks[1], [s[2], s[4]]],
        ['c', desks[2], []],
        ['d', null, [s[0]]],
      ] as const) {
        const data = { title, desk: desk === null ? null : (desk?.id as number), stickers: [...tags] };
        if (desk?.closed !== true) {
          papers.push(await adapters.fast.create(session, Paper, data));
          continue;
        }
        // The API refuses a closed desk (a 422, below); MikroORM stores it.
        const em = adapters.fast.orm.em.fork();
        const paper = em.create(Paper, data as never);
        await em.flush();
        papers.push({ id: paper.id, title });
      }
    });
    after(async () => {
      await adapters.fast?.close();
      await db?.drop();
    });

    for (const mode of ['fast', 'plain'] as const) {
      it(`${mode}: lists and reads each paper as em.find and em.findOne load it, the desk's filter applied to the relation`, async () => {
        const adapter = adapters[mode];
        const em = adapter.orm.em.fork();
        const expected = (await em.find(Paper, {}, { orderBy: { id: 'asc' } })).map((paper) => ({
          id: paper.id,
          desk: paper.desk?.id ?? null,
        }));
        const result = await adapter.list(
          adapter.openSession(),
          Paper,
          page([], [{ field: 'id', direction: 'asc' }]),
        );
        assert.deepEqual(
          result.rows.map((row) => ({ id: row.id, desk: row.desk ?? null })),
          expected,
        );
        assert.equal(result.total, await adapter.orm.em.fork().count(Paper, {}));
        for (const paper of papers) {
          const loaded = await adapter.orm.em.fork().findOne(Paper, paper.id as number);
          const row = await adapter.get(adapter.openSession(), Paper, paper.id as number);
          assert.deepEqual(
            row === undefined ? undefined : { id: row.id, desk: row.desk ?? null },
            loaded === null ? undefined : { id: loaded.id, desk: loaded.desk?.id ?? null },
            String(paper.title),
          );
        }
      });

      it(`${mode}: filters and sorts through the relation as em.find does, the target's filter applied`, async () => {
        const adapter = adapters[mode];
        const cases: [FilterCondition[], SortKey[], object, object[]][] = [
          [
            [{ field: 'desk.name', op: '$ne', value: 'elm' }],
            [],
            { desk: { name: { $ne: 'elm' } } },
            [{ id: 'asc' }],
          ],
          [
            [{ field: 'desk.name', op: '$in', value: ['oak', 'pine'] }],
            [{ field: 'desk.name', direction: 'desc' }],
            { desk: { name: { $in: ['oak', 'pine'] } } },
            [{ desk: { name: 'desc' } }, { id: 'asc' }],
          ],
        ];
        for (const [filters, sort, where, orderBy] of cases) {
          const em = adapter.orm.em.fork();
          const expected = await em.find(Paper, where as never, { orderBy: orderBy as never });
          const total = await adapter.orm.em.fork().count(Paper, where as never);
          const result = await adapter.list(adapter.openSession(), Paper, page(filters, sort));
          assert.deepEqual(ids(result.rows), ids(expected), JSON.stringify(filters));
          assert.equal(result.total, total);
        }
        // What MikroORM does: a paper on a closed desk matches no condition on its desk.
        const open = await adapter.list(
          adapter.openSession(),
          Paper,
          page([{ field: 'desk.name', op: '$ne', value: 'elm' }]),
        );
        assert.deepEqual(ids(open.rows), [papers[0]?.id]);
      });

      it(`${mode}: a closed desk is refused on create and update like a key naming no row`, async () => {
        const adapter = adapters[mode];
        const refused = (error: unknown): boolean =>
          error instanceof ApiError &&
          error.status === 422 &&
          JSON.stringify(error.errors) ===
            JSON.stringify([{ path: 'desk', message: 'References a record that does not exist.' }]);
        const closed = desks[1]?.id;
        await assert.rejects(
          adapter.create(adapter.openSession(), Paper, { title: `${mode} closed`, desk: closed }),
          refused,
        );
        const id = papers[2]?.id as number;
        await assert.rejects(adapter.update(adapter.openSession(), Paper, id, { desk: closed }), refused);
        assert.equal((await adapter.orm.em.fork().findOne(Paper, id))?.desk?.id, desks[2]?.id);
        assert.equal(await adapter.orm.em.fork().count(Paper, { title: `${mode} closed` }), 0);
      });

      it(`${mode}: links leave out targets the filter hides, which take no place in the cap`, async () => {
        const adapter = adapters[mode];
        const s = stickers.map((sticker) => sticker.id);
        const owners = ids(papers) as number[];
        const links = (await adapter.links?.(adapter.openSession(), Paper, 'stickers', owners, 1)) ?? [];
        assert.deepEqual(links, [
          { owner: owners[0], target: s[1] },
          { owner: owners[1], target: s[4] },
        ]);
        const all = (await adapter.links?.(adapter.openSession(), Paper, 'stickers', owners, 100)) ?? [];
        const loaded = await adapter.orm.em
          .fork()
          .find(Paper, { id: { $in: owners } }, { populate: ['stickers'], orderBy: { id: 'asc' } });
        const populated = loaded.flatMap((paper) =>
          ids(paper.stickers.getItems())
            .sort((a, b) => Number(a) - Number(b))
            .map((sticker) => ({ owner: paper.id, target: sticker })),
        );
        assert.deepEqual(all, populated, 'the pairs MikroORM populates');
      });
    }
  });
}
