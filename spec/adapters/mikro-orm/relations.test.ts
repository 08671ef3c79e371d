/**
 * Relations on the MikroORM adapter, on every database target and in both execution modes:
 * `describe()` of collections and many-to-one targets; `links()` (one statement for any number of
 * owners, per owner ordered by target key and capped, the same pairs as MikroORM's own populate);
 * many-to-many writes through the unit of work in one transaction; filters and sorts through a
 * many-to-one, checked against `em.find` and `em.count` on the same where.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ApiError, ConfigurationError } from '../../../lib/errors.js';
import type { FilterCondition, ListQuery, RawRecord, RelationLink, SortKey } from '../../../lib/types.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

const { Author, Book, Category, Tag } = fixtureModels;

/** The statements MikroORM sends, by their first word (`select`, `insert`, `begin`…). */
class StatementLog {
  readonly lines: string[] = [];
  readonly logger = (message: string): void => {
    this.lines.push(message);
  };
  take(): string[] {
    const words = this.lines.map((line) => /(?:\[query\]\s*)?(\w+)/.exec(line)?.[1] ?? '');
    this.lines.length = 0;
    return words.map((word) => word.toLowerCase());
  }
}

function page(filters: FilterCondition[], sort: SortKey[] = [], limit = 100): ListQuery {
  return { filters, sort, limit, offset: 0, withTotal: true };
}

/** The ids of rows or entities, in order. */
function ids(rows: readonly object[]): unknown[] {
  return rows.map((row) => (row as { id: unknown }).id);
}

/** The target keys of one owner's links, in order. */
function targetsOf(links: readonly RelationLink[], owner: unknown): unknown[] {
  return links.filter((link) => link.owner === owner).map((link) => link.target);
}

for (const target of databaseTargets()) {
  describe(`MikroOrmAdapter relations on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    const log = new StatementLog();
    const adapters = {} as Record<'fast' | 'plain', MikroOrmAdapter>;
    // Seeded once: authors ann (3 books), bob (1), cid (none); books with tags given out of order.
    const seed = {
      authors: [] as RawRecord[],
      categories: [] as RawRecord[],
      tags: [] as RawRecord[],
      books: [] as RawRecord[],
    };

    before(async () => {
      db = await createTestDatabase(target);
      adapters.fast = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [...mikroOrmFixtureEntities],
        schema: 'create',
        logger: log.logger,
        colors: false,
      });
      // The same ORM (and so the same database, even in memory) through MikroORM's public API only.
      adapters.plain = new MikroOrmAdapter(adapters.fast.orm, { mode: 'plain' });
      const adapter = adapters.fast;
      const session = adapter.openSession();
      for (const name of ['Ann', 'bob', 'Cid'])
        seed.authors.push(await adapter.create(session, Author, { name }));
      for (const name of ['Zeta', 'alpha', 'Mid'])
        seed.categories.push(await adapter.create(session, Category, { name }));
      for (const name of ['t1', 't2', 't3', 't4', 't5'])
        seed.tags.push(await adapter.create(session, Tag, { name }));
      const [ann, bob] = seed.authors as [RawRecord, RawRecord, RawRecord];
      const [zeta, alpha, mid] = seed.categories as [RawRecord, RawRecord, RawRecord];
      const t = seed.tags.map((tag) => tag.id);
      const books: [string, RawRecord, RawRecord | null, unknown[]][] = [
        ['Dune', ann, zeta, [t[4], t[0], t[2]]],
        ['Emma', ann, alpha, [t[1]]],
        ['Ubik', bob, null, [t[3], t[2], t[1], t[0]]],
        ['Kindred', ann, mid, []],
        ['Beloved', bob, alpha, [t[0]]],
      ];
      for (const [title, author, category, tags] of books) {
        seed.books.push(
          await adapter.create(session, Book, {
            title,
            author: author.id,
            category: category === null ? null : category.id,
            tags,
          }),
        );
      }
    });
    after(async () => {
      await adapters.fast?.close();
      await db?.drop();
    });

    /**
     * The statements `run` sends, by first word. Query logging is on only meanwhile: with it on,
     * the fast path hands its statements to MikroORM's connection instead of running them prepared.
     */
    async function counted<T>(adapter: MikroOrmAdapter, run: () => Promise<T>): Promise<[T, string[]]> {
      // Through the configuration: MikroORM resets the logger's mode from it on every `config.set`.
      const { config } = adapter.orm;
      log.take();
      config.set('debug', ['query']);
      try {
        const result = await run();
        return [result, log.take()];
      } finally {
        config.set('debug', false);
      }
    }

    /** MikroORM's own view: a fresh EntityManager of the ORM. */
    const em = (): EntityManager => adapters.fast.orm.em.fork();

    it('describes collections with their kinds, targets and keys, and many-to-one targets', () => {
      // MikroORM makes keys unsigned on MySQL/MariaDB: a write's keys take that range there.
      const keyRange = target === 'mariadb' ? { targetKeyRange: { minimum: 0, maximum: 4294967295 } } : {};
      for (const adapter of Object.values(adapters)) {
        const book = adapter.describe(Book);
        assert.deepEqual(
          book.collections?.map((c) => ({ ...c })),
          [
            {
              name: 'tags',
              kind: 'many-to-many',
              target: 'Tag',
              targetModel: Tag,
              targetKey: 'id',
              targetKeyType: 'integer',
              ...keyRange,
              writable: true,
            },
          ],
        );
        assert.deepEqual(
          book.fields.map((field) => field.name),
          ['id', 'title', 'author', 'category'],
          'a collection is no field',
        );
        assert.equal(book.fieldsByName.get('author')?.relation?.targetModel, Author);
        assert.equal(book.fieldsByName.get('category')?.relation?.targetModel, Category);
        assert.equal(book.fieldsByName.get('category')?.nullable, true);
        assert.deepEqual(
          adapter.describe(Author).collections?.map((c) => ({ ...c })),
          [
            {
              name: 'books',
              kind: 'one-to-many',
              target: 'Book',
              targetModel: Book,
              targetKey: 'id',
              targetKeyType: 'integer',
              ...keyRange,
              inverseField: 'author',
              writable: false,
            },
          ],
        );
        assert.deepEqual(
          adapter.describe(Tag).collections?.map((c) => ({ ...c })),
          [
            {
              name: 'books',
              kind: 'many-to-many',
              target: 'Book',
              targetModel: Book,
              targetKey: 'id',
              targetKeyType: 'integer',
              ...keyRange,
              writable: false,
            },
          ],
        );
        assert.equal(adapter.describe(Category).collections, undefined);
      }
    });

    for (const mode of ['fast', 'plain'] as const) {
      describe(`${mode} mode`, () => {
        const adapter = () => adapters[mode];

        it('reads the links of every owner in one statement, per owner by target key, owners without links left out', async () => {
          const owners = ids(seed.books) as number[];
          const links = await adapter().links?.(adapter().openSession(), Book, 'tags', owners, 100);
          const [again, statements] = await counted(adapter(), async () =>
            adapter().links?.(adapter().openSession(), Book, 'tags', owners, 100),
          );
          assert.deepEqual(statements, ['select'], 'one statement');
          assert.deepEqual(again, links, "the same through MikroORM's connection as prepared");
          const t = seed.tags.map((tag) => tag.id);
          const [dune, emma, ubik, kindred, beloved] = owners;
          assert.deepEqual(links, [
            { owner: dune, target: t[0] },
            { owner: dune, target: t[2] },
            { owner: dune, target: t[4] },
            { owner: emma, target: t[1] },
            { owner: ubik, target: t[0] },
            { owner: ubik, target: t[1] },
            { owner: ubik, target: t[2] },
            { owner: ubik, target: t[3] },
            { owner: beloved, target: t[0] },
          ]);
          assert.deepEqual(targetsOf(links ?? [], kindred), []);
          for (const link of links ?? []) {
            assert.equal(typeof link.owner, 'number');
            assert.equal(typeof link.target, 'number');
          }
        });

        it('caps the links of each owner at perOwner, keeping the lowest target keys', async () => {
          const owners = ids(seed.books) as number[];
          const links = (await adapter().links?.(adapter().openSession(), Book, 'tags', owners, 2)) ?? [];
          const t = seed.tags.map((tag) => tag.id);
          assert.deepEqual(targetsOf(links, owners[0]), [t[0], t[2]]);
          assert.deepEqual(targetsOf(links, owners[2]), [t[0], t[1]]);
          assert.deepEqual(targetsOf(links, owners[1]), [t[1]]);
          const one = (await adapter().links?.(adapter().openSession(), Book, 'tags', owners, 1)) ?? [];
          assert.equal(one.length, 4, 'one link for each owner that has any');
        });

        it('gives the pairs MikroORM populates, for one-to-many and both many-to-many sides', async () => {
          const session = adapter().openSession();
          const authors = ids(seed.authors) as number[];
          const tags = ids(seed.tags) as number[];
          const books = ids(seed.books) as number[];
          const cases = [
            [Author, 'books', authors],
            [Tag, 'books', tags],
            [Book, 'tags', books],
          ] as const;
          for (const [model, collection, owners] of cases) {
            const links = (await adapter().links?.(session, model, collection, owners, 1000)) ?? [];
            const loaded = (await em().find(model as never, { id: { $in: owners } } as never, {
              populate: [collection] as never,
              orderBy: { id: 'asc' } as never,
            })) as unknown as { id: number; [key: string]: unknown }[];
            const expected = loaded.flatMap((owner) =>
              ids((owner[collection] as { getItems(): object[] }).getItems())
                .sort((a, b) => Number(a) - Number(b))
                .map((target) => ({ owner: owner.id, target })),
            );
            assert.deepEqual(links, expected, `${model.name}.${collection}`);
          }
        });

        it('reads the links of 100 owners with one statement, and none for no owner', async () => {
          const owners = [...(ids(seed.books) as number[])];
          for (let n = 1; owners.length < 100; n++) owners.push(1_000_000 + n);
          const [links, statements] = await counted(adapter(), async () =>
            adapter().links?.(adapter().openSession(), Book, 'tags', owners, 100),
          );
          assert.deepEqual(statements, ['select']);
          assert.equal(links?.length, 9);
          const [none, noStatements] = await counted(adapter(), async () =>
            adapter().links?.(adapter().openSession(), Book, 'tags', [], 100),
          );
          assert.deepEqual([none, noStatements], [[], []]);
        });

        it('refuses a collection the model does not have', async () => {
          await assert.rejects(
            async () => adapter().links?.(adapter().openSession(), Book, 'author', [1], 10),
            ConfigurationError,
          );
        });

        it('writes a many-to-many with its record in one transaction, replacing the set on update', async () => {
          const session = adapter().openSession();
          const [ann] = seed.authors as [RawRecord];
          const t = seed.tags.map((tag) => tag.id) as number[];
          const [created, written] = await counted(adapter(), () =>
            adapter().create(session, Book, { title: `${mode} Solaris`, author: ann.id, tags: [t[3], t[1]] }),
          );
          // The fast path reads its answer in the same transaction: a failed read leaves no row.
          const commit = written.indexOf('commit');
          assert.deepEqual(written.slice(0, 3), ['begin', 'insert', 'insert'], written.join(' '));
          assert.ok(
            commit > 0 && written.slice(3, commit).every((statement) => statement === 'select'),
            written.join(' '),
          );
          assert.deepEqual(
            created,
            { id: created.id, title: `${mode} Solaris`, author: ann.id, category: null },
            'the record, without the collection',
          );
          const linksOf = async () =>
            targetsOf(
              (await adapter().links?.(adapter().openSession(), Book, 'tags', [created.id as number], 100)) ??
                [],
              created.id,
            );
          assert.deepEqual(await linksOf(), [t[1], t[3]]);

          const updated = await adapter().update(adapter().openSession(), Book, created.id as number, {
            title: `${mode} Solaris 2`,
            tags: [t[0], t[3]],
          });
          assert.deepEqual(updated, { ...created, title: `${mode} Solaris 2` });
          assert.deepEqual(await linksOf(), [t[0], t[3]], 'replaced');

          await adapter().update(adapter().openSession(), Book, created.id as number, {
            title: `${mode} S3`,
          });
          assert.deepEqual(
            await linksOf(),
            [t[0], t[3]],
            'a collection absent from the data is left as it was',
          );

          const cleared = await adapter().update(adapter().openSession(), Book, created.id as number, {
            tags: [],
          });
          assert.equal(cleared?.title, `${mode} S3`);
          assert.deepEqual(await linksOf(), [], 'an empty array clears the set');
          assert.equal(
            await adapter().update(adapter().openSession(), Book, 987_654, { tags: [t[0]] }),
            undefined,
          );
          await adapter().delete(adapter().openSession(), Book, created.id as number);
        });

        it('leaves the record and its links unchanged when the write fails', async () => {
          const [ann] = seed.authors as [RawRecord];
          const t = seed.tags.map((tag) => tag.id) as number[];
          const book = await adapter().create(adapter().openSession(), Book, {
            title: `${mode} Kept`,
            author: ann.id,
            tags: [t[0], t[1]],
          });
          const linksOf = async () =>
            targetsOf(
              (await adapter().links?.(adapter().openSession(), Book, 'tags', [book.id as number], 100)) ??
                [],
              book.id,
            );
          // The author's foreign key fails in the database, after the links were set on the entity.
          await assert.rejects(
            adapter().update(adapter().openSession(), Book, book.id as number, {
              title: `${mode} Changed`,
              author: 2_000_000_000,
              tags: [t[2]],
            }),
            (error: unknown) =>
              error instanceof ApiError &&
              error.status === 422 &&
              JSON.stringify(error.errors?.map((e) => e.path)) === '["author"]',
          );
          // A pivot row's own foreign key fails (a tag that does not exist).
          await assert.rejects(
            adapter().update(adapter().openSession(), Book, book.id as number, {
              title: `${mode} Changed`,
              tags: [t[2], 2_000_000_000],
            }),
            (error: unknown) =>
              error instanceof ApiError &&
              error.status === 422 &&
              JSON.stringify(error.errors?.map((e) => e.path)) === '["tags"]',
          );
          assert.deepEqual(await adapter().get(adapter().openSession(), Book, book.id as number), book);
          assert.deepEqual(await linksOf(), [t[0], t[1]]);
          const before = await em().count(Book as never, {});
          await assert.rejects(
            adapter().create(adapter().openSession(), Book, {
              title: `${mode} Orphan`,
              author: 2_000_000_000,
              tags: [t[2]],
            }),
            (error: unknown) =>
              error instanceof ApiError &&
              error.status === 422 &&
              JSON.stringify(error.errors?.map((e) => e.path)) === '["author"]',
          );
          assert.equal(await em().count(Book as never, {}), before, 'a refused create stores nothing');
          await adapter().delete(adapter().openSession(), Book, book.id as number);
        });

        it('filters and sorts through a many-to-one as em.find and em.count do on the same where', async () => {
          const cases: [FilterCondition[], SortKey[], object, object[]][] = [
            [
              [{ field: 'author.name', op: '$eq', value: 'Ann' }],
              [],
              { author: { name: 'Ann' } },
              [{ id: 'asc' }],
            ],
            [
              [{ field: 'author.name', op: '$ne', value: 'Ann' }],
              [{ field: 'title', direction: 'desc' }],
              { author: { name: { $ne: 'Ann' } } },
              [{ title: 'desc' }, { id: 'asc' }],
            ],
            [
              [{ field: 'category.name', op: '$in', value: ['Zeta', 'alpha'] }],
              [],
              { category: { name: { $in: ['Zeta', 'alpha'] } } },
              [{ id: 'asc' }],
            ],
            [
              [{ field: 'category.name', op: '$nin', value: ['Zeta'] }],
              [],
              { category: { name: { $nin: ['Zeta'] } } },
              [{ id: 'asc' }],
            ],
            [
              [{ field: 'category.id', op: '$eq', value: seed.categories[1]?.id }],
              [],
              { category: { id: seed.categories[1]?.id } },
              [{ id: 'asc' }],
            ],
            [
              [
                { field: 'author.name', op: '$gt', value: 'A' },
                { field: 'category.name', op: '$ne', value: 'Mid' },
              ],
              [{ field: 'author.name', direction: 'desc' }],
              { $and: [{ author: { name: { $gt: 'A' } } }, { category: { name: { $ne: 'Mid' } } }] },
              [{ author: { name: 'desc' } }, { id: 'asc' }],
            ],
            [
              [],
              [{ field: 'author.name', direction: 'asc' }],
              {},
              [{ author: { name: 'asc' } }, { id: 'asc' }],
            ],
            [
              [{ field: 'title', op: '$ne', value: 'nothing' }],
              [
                { field: 'category.name', direction: 'desc' },
                { field: 'title', direction: 'asc' },
              ],
              { title: { $ne: 'nothing' } },
              [{ category: { name: 'desc' } }, { title: 'asc' }, { id: 'asc' }],
            ],
          ];
          const seeded = { id: { $in: ids(seed.books) } };
          for (const [filters, sort, where, orderBy] of cases) {
            const scoped = { $and: [seeded, where] };
            const expected = await em().find(Book as never, scoped as never, { orderBy: orderBy as never });
            const total = await em().count(Book as never, scoped as never);
            const result = await adapter().list(
              adapter().openSession(),
              Book,
              page([...filters, { field: 'id', op: '$in', value: ids(seed.books) }], sort),
            );
            const label = JSON.stringify({ filters, sort });
            assert.deepEqual(ids(result.rows), ids(expected as object[]), label);
            assert.equal(result.total, total, label);
          }
        });

        it('never matches a row without the related record, and sorts it where the database puts NULL', async () => {
          const session = adapter().openSession();
          const own = { field: 'id', op: '$in', value: ids(seed.books) } as const;
          const nullName = await adapter().list(
            session,
            Book,
            page([own, { field: 'category.name', op: '$eq', value: null }]),
          );
          assert.deepEqual(
            nullName.rows,
            [],
            'no category has a null name; a book without one does not match',
          );
          const sorted = await adapter().list(
            session,
            Book,
            page([own], [{ field: 'category.name', direction: 'asc' }]),
          );
          assert.equal(sorted.rows.length, seed.books.length, 'a book without a category stays in the list');
          const like = await adapter().list(
            session,
            Book,
            page([own, { field: 'author.name', op: '$like', value: 'b%' }]),
          );
          const ilike = await adapter().list(
            session,
            Book,
            page([own, { field: 'author.name', op: '$ilike', value: 'B%' }]),
          );
          assert.deepEqual(ids(like.rows), [seed.books[2]?.id, seed.books[4]?.id], '$like is case-sensitive');
          assert.deepEqual(ids(ilike.rows), ids(like.rows));
          const none = await adapter().list(
            session,
            Book,
            page([own, { field: 'author.name', op: '$like', value: 'B%' }]),
          );
          assert.deepEqual(none.rows, []);
        });
      });
    }
  });
}
