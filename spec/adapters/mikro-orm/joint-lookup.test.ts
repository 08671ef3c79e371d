/**
 * `getEach`: rows of several models by key, read in one statement on SQLite and PostgreSQL (the
 * authenticated routes read their caller and their record this way), answering exactly what
 * `get` answers for each, on every database target.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/core';
import type { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import type { RecordLookup } from '../../../lib/types.js';
import { fixtureModels } from '../../fixtures/mikro-orm/index.js';
import { databaseTargets, requireTarget } from '../../support/databases.js';
import { type FixtureAdapter, openFixtureAdapter } from '../../support/fixture-adapter.js';

const { Author, Book, Box, Category, Gadget, Person } = fixtureModels;

/** Counts the statements the database driver is asked to run. */
async function countStatements(adapter: MikroOrmAdapter): Promise<{ readonly count: number }> {
  const connection = adapter.orm.em.getConnection() as unknown as { getNativeClient(): Promise<unknown> };
  const native = (await connection.getNativeClient()) as Record<string, unknown>;
  const counter = { count: 0 };
  if (typeof native.prepare === 'function') {
    // better-sqlite3: every statement the adapter runs comes from `prepare`.
    const prepare = native.prepare as (sql: string) => Record<string, unknown>;
    native.prepare = (sql: string) => {
      const statement = prepare.call(native, sql);
      for (const method of ['get', 'all', 'run'] as const) {
        const original = statement[method] as (...args: unknown[]) => unknown;
        statement[method] = (...args: unknown[]) => {
          counter.count += 1;
          return original.apply(statement, args);
        };
      }
      return statement;
    };
  } else {
    // pg: the pool's `query`.
    const query = native.query as (...args: unknown[]) => unknown;
    native.query = (...args: unknown[]) => {
      counter.count += 1;
      return query.apply(native, args);
    };
  }
  return counter;
}

for (const target of databaseTargets()) {
  describe(`getEach on ${target}`, await requireTarget(target), () => {
    let fixture: FixtureAdapter;
    let adapter: MikroOrmAdapter;
    let counter: { readonly count: number };
    const ids: Record<string, string | number> = {};
    before(async () => {
      fixture = await openFixtureAdapter(target);
      adapter = fixture.adapter;
      counter = await countStatements(adapter);
      const session = adapter.openSession();
      const author = await adapter.create(session, Author, { name: 'Ursula' });
      const book = await adapter.create(session, Book, { title: 'The Dispossessed', author: author.id });
      const gadget = await adapter.create(session, Gadget, {
        name: 'sprocket',
        description: null,
        price: '12.50',
        rating: 4.25,
        active: false,
        released: '2024-02-29',
        updated_at: '2025-06-01T12:34:56.000Z',
        metadata: { sizes: [1, 2], nested: { ok: true } },
        color: 'blue',
        serial: '9007199254740993',
        secret: 'hidden',
      });
      const box = await adapter.create(session, Box, { label: 'crate' });
      const category = await adapter.create(session, Category, { name: 'tools' });
      const other = await adapter.create(session, Category, { name: 'toys' });
      const person = await adapter.create(session, Person, { name: 'Le Guin' });
      Object.assign(ids, {
        author: author.id,
        book: book.id,
        gadget: gadget.id,
        box: box.id,
        category: category.id,
        other: other.id,
        person: person.id,
      });
    });
    after(() => fixture?.close());

    /** `getEach` against one `get` per lookup, in a fresh session each. */
    async function assertLikeGet(lookups: readonly RecordLookup[], what: string): Promise<void> {
      const expected = [];
      for (const lookup of lookups)
        expected.push(await adapter.get(adapter.openSession(), lookup.model, lookup.id));
      const actual = await adapter.getEach(adapter.openSession(), lookups);
      assert.deepEqual(actual, expected, what);
    }

    it('answers what get answers for each key, found or not', async () => {
      const author = ids.author as number;
      const book = ids.book as number;
      await assertLikeGet(
        [
          { model: Author, id: author },
          { model: Book, id: book },
        ],
        'both found',
      );
      await assertLikeGet(
        [
          { model: Author, id: 987654 },
          { model: Book, id: book },
        ],
        'first missing',
      );
      await assertLikeGet(
        [
          { model: Author, id: author },
          { model: Book, id: 987654 },
        ],
        'second missing',
      );
      await assertLikeGet(
        [
          { model: Author, id: 987654 },
          { model: Book, id: 987655 },
        ],
        'none found',
      );
      await assertLikeGet(
        [
          { model: Category, id: ids.category as number },
          { model: Category, id: ids.other as number },
        ],
        'one model twice',
      );
      const [found] = await adapter.getEach(adapter.openSession(), [
        { model: Book, id: book },
        { model: Author, id: author },
      ]);
      assert.equal(found?.author, author, 'a relation is the referenced key');
    });

    it('keeps every field kind as get reads it, with hidden columns and UUID keys', async () => {
      await assertLikeGet(
        [
          { model: Gadget, id: ids.gadget as number },
          { model: Box, id: ids.box as string },
        ],
        'gadget and box',
      );
      const [gadget] = await adapter.getEach(adapter.openSession(), [
        { model: Gadget, id: ids.gadget as number },
        { model: Box, id: ids.box as string },
      ]);
      assert.equal(gadget?.serial, '9007199254740993', 'a bigint beyond 2^53 is not rounded');
      assert.deepEqual(gadget?.metadata, { sizes: [1, 2], nested: { ok: true } });
      await assertLikeGet(
        [
          { model: Box, id: randomUUID() },
          { model: Category, id: ids.category as number },
        ],
        'an unknown UUID',
      );
      await assertLikeGet(
        [
          { model: Box, id: 'not-a-uuid' },
          { model: Category, id: ids.category as number },
        ],
        'a key the column cannot hold',
      );
    });

    it('sees the rows of its own open transaction, whether or not the pair was read before', async () => {
      // Author + Category is prepared before the transaction, so its one statement runs through
      // MikroORM inside it; Person + Category is first asked for inside it, and read key by key.
      await adapter.getEach(adapter.openSession(), [
        { model: Author, id: ids.author as number },
        { model: Category, id: ids.category as number },
      ]);
      let n = 0;
      for (const [model, name] of [
        [Author, 'Ursula'],
        [Person, 'Le Guin'],
      ] as const) {
        const key = model === Author ? (ids.author as number) : (ids.person as number);
        await adapter.openSession().transactional(async (em: EntityManager) => {
          const row = await adapter.create(em, Category, { name: `in-transaction-${++n}` });
          const [first, category] = await adapter.getEach(em, [
            { model, id: key },
            { model: Category, id: row.id as number },
          ]);
          assert.equal(first?.name, name);
          assert.equal(category?.name, `in-transaction-${n}`);
        });
      }
    });

    // MySQL and MariaDB read each key on its own (the adapter hands their queries to MikroORM).
    if (target !== 'mariadb') {
      it('reads a user and a record with one statement', async () => {
        const lookups = [
          { model: Author, id: ids.author as number },
          { model: Book, id: ids.book as number },
        ];
        await adapter.getEach(adapter.openSession(), lookups);
        const before = counter.count;
        const rows = await adapter.getEach(adapter.openSession(), lookups);
        assert.equal(counter.count - before, 1);
        assert.equal(rows.filter((row) => row !== undefined).length, 2);
      });
    }
  });
}
