import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ApiError } from '../../../lib/errors.js';
import type {
  FieldDescription,
  FilterCondition,
  ListQuery,
  ModelClass,
  RawRecord,
  SortKey,
} from '../../../lib/types.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

const { Gadget, Person, Category, Box, Tag, Author, Book, Country } = fixtureModels;

function query(
  options: {
    filters?: FilterCondition[];
    sort?: SortKey[];
    limit?: number;
    offset?: number;
    withTotal?: boolean;
  } = {},
): ListQuery {
  return { filters: [], sort: [], limit: 100, offset: 0, withTotal: false, ...options };
}

/** Asserts the promise rejects with an ApiError of that status, and returns it. */
async function rejectsWith(promise: Promise<unknown>, status: number): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiError, `an ApiError, got ${String(error)}`);
    assert.equal(error.status, status, error.message);
    assert.doesNotMatch(error.message, /insert|select|update |values|\?/i, 'no SQL in the message');
    return error;
  }
  assert.fail(`expected a ${status} ApiError`);
}

const FULL_GADGET = {
  name: 'full',
  description: 'Ünïcode ✓ text',
  quantity: 7,
  price: '12.50',
  rating: 4.25,
  active: false,
  released: '2024-02-29',
  updated_at: '2024-03-01T10:20:30.000Z',
  alarm: '07:30:00',
  metadata: { tags: ['a', 'b'], nested: { n: 1, ok: true, none: null }, text: 'ß' },
  color: 'blue',
  serial: '9007199254740993',
  secret: 's3cret',
};

for (const target of databaseTargets()) {
  // A decimal as MikroORM's DecimalType reads it: SQLite keeps NUMERIC as REAL (`12.5` for `12.50`).
  const decimal = (text: string): string => (target.startsWith('sqlite') ? String(Number(text)) : text);
  describe(`MikroOrmAdapter data methods on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    let adapter: MikroOrmAdapter;
    let session: EntityManager;
    const names = (rows: readonly RawRecord[]) => rows.map((row) => row.name);

    before(async () => {
      db = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [...mikroOrmFixtureEntities],
        schema: 'create',
      });
      session = adapter.openSession();
    });
    after(async () => {
      await adapter?.close();
      await db?.drop();
    });

    it('names itself after the database', () => {
      const expected = {
        'sqlite-memory': 'sqlite',
        'sqlite-file': 'sqlite',
        postgresql: 'postgresql',
        mariadb: 'mariadb',
      }[target];
      assert.equal(adapter.name, `mikro-orm:${expected}`);
    });

    it('describes the models exactly as on SQLite', async () => {
      const reference = await MikroOrmAdapter.connect({
        url: 'sqlite::memory:',
        entities: [...mikroOrmFixtureEntities],
      });
      try {
        for (const model of Object.values(fixtureModels) as ModelClass[]) {
          // Integer fields take the range of their column, decimal fields its digits (none on
          // SQLite), and string keys MariaDB's comparison (fidelity/include-keys.test.ts), which
          // differ per database; everything else is the same.
          const strip = (fields: readonly FieldDescription[]) =>
            fields.map(
              ({ minimum: _minimum, maximum: _maximum, comparison: _comparison, digits: _digits, ...f }) => ({
                ...f,
                relation: undefined,
              }),
            );
          assert.deepEqual(
            strip(adapter.describe(model).fields),
            strip(reference.describe(model).fields),
            model.name,
          );
          assert.equal(adapter.describe(model).table, reference.describe(model).table);
        }
      } finally {
        await reference.close();
      }
    });

    it('creates the tables under the plural and __tablename__ names', async () => {
      const connection = adapter.orm.em.getConnection();
      for (const table of [
        'gadgets',
        'people',
        'categories',
        'boxes',
        'labels',
        'authors',
        'books',
        'countries',
      ]) {
        const rows = await connection.execute(`select count(*) as n from ${table}`);
        assert.equal(Number((rows as { n: unknown }[])[0]?.n), 0, table);
      }
    });

    it('creates a row and returns it with generated values and defaults', async () => {
      const created = await adapter.create(session, Gadget, { name: 'minimal' });
      assert.equal(typeof created.id, 'number');
      assert.deepEqual(
        { ...created, id: 0 },
        {
          id: 0,
          name: 'minimal',
          description: null,
          quantity: 0,
          price: null,
          rating: null,
          active: true,
          released: null,
          updated_at: null,
          alarm: null,
          metadata: null,
          color: 'red',
          serial: null,
          secret: null,
        },
      );
    });

    it('round-trips every value form', async () => {
      const created = await adapter.create(session, Gadget, FULL_GADGET);
      const expected = {
        ...FULL_GADGET,
        id: created.id,
        price: decimal(FULL_GADGET.price),
        updated_at: new Date(FULL_GADGET.updated_at),
      };
      assert.deepEqual(created, expected);
      assert.deepEqual(await adapter.get(adapter.openSession(), Gadget, created.id as number), expected);
      assert.equal(typeof created.active, 'boolean');
      assert.ok(created.updated_at instanceof Date);
    });

    it('gets by key, and answers undefined for a missing or malformed key', async () => {
      const created = await adapter.create(session, Gadget, { name: 'get-me' });
      assert.equal((await adapter.get(session, Gadget, created.id as number))?.name, 'get-me');
      assert.equal(await adapter.get(session, Gadget, 987654), undefined);
      assert.equal(await adapter.get(session, Box, 'not-a-uuid'), undefined);
      assert.equal(await adapter.get(session, Box, '00000000-0000-4000-8000-000000000000'), undefined);
    });

    it('finds by a field, hidden ones included, and answers undefined when nothing matches', async () => {
      const found = await adapter.findBy(session, Gadget, 'name', 'full');
      assert.equal(found?.secret, 's3cret');
      assert.equal(await adapter.findBy(session, Gadget, 'name', 'nobody'), undefined);
      assert.equal((await adapter.findBy(session, Gadget, 'secret', 's3cret'))?.name, 'full');
    });

    describe('list', () => {
      before(async () => {
        const rows = [
          {
            name: 'alpha',
            quantity: 1,
            price: decimal('1.00'),
            rating: 1.5,
            active: true,
            released: '2024-01-01',
            updated_at: '2024-01-01T00:00:00Z',
            color: 'red',
            serial: '1',
          },
          {
            name: 'beta',
            quantity: 2,
            price: decimal('2.50'),
            rating: null,
            active: false,
            released: '2024-02-01',
            updated_at: '2024-02-01T00:00:00Z',
            color: 'green',
            serial: '9007199254740995',
          },
          {
            name: 'gamma',
            quantity: 3,
            price: null,
            rating: 3.5,
            active: true,
            released: null,
            updated_at: '2024-03-01T00:00:00Z',
            color: 'blue',
            serial: null,
          },
          {
            name: 'delta',
            quantity: 3,
            price: decimal('10.00'),
            rating: 0.5,
            active: false,
            released: '2024-04-01',
            updated_at: null,
            color: 'green',
            serial: '3',
          },
        ];
        for (const row of rows)
          await adapter.create(session, Gadget, { ...row, description: `list ${row.name}` });
      });

      const listed = async (
        filters: FilterCondition[],
        sort: SortKey[] = [{ field: 'name', direction: 'asc' }],
      ) => {
        const all: FilterCondition = { field: 'description', op: '$like', value: 'list %' };
        return names((await adapter.list(session, Gadget, query({ filters: [all, ...filters], sort }))).rows);
      };

      it('filters with $eq and $ne, null meaning IS NULL / IS NOT NULL', async () => {
        assert.deepEqual(await listed([{ field: 'color', op: '$eq', value: 'green' }]), ['beta', 'delta']);
        assert.deepEqual(await listed([{ field: 'color', op: '$ne', value: 'green' }]), ['alpha', 'gamma']);
        assert.deepEqual(await listed([{ field: 'price', op: '$eq', value: null }]), ['gamma']);
        assert.deepEqual(await listed([{ field: 'price', op: '$ne', value: null }]), [
          'alpha',
          'beta',
          'delta',
        ]);
        assert.deepEqual(await listed([{ field: 'active', op: '$eq', value: false }]), ['beta', 'delta']);
      });

      it('filters with $gt $gte $lt $lte on integers, decimals, dates, datetimes and bigints', async () => {
        assert.deepEqual(await listed([{ field: 'quantity', op: '$gt', value: 2 }]), ['delta', 'gamma']);
        assert.deepEqual(await listed([{ field: 'quantity', op: '$gte', value: 2 }]), [
          'beta',
          'delta',
          'gamma',
        ]);
        assert.deepEqual(await listed([{ field: 'price', op: '$lt', value: '2.5' }]), ['alpha']);
        assert.deepEqual(await listed([{ field: 'price', op: '$lte', value: '2.50' }]), ['alpha', 'beta']);
        assert.deepEqual(await listed([{ field: 'rating', op: '$gte', value: 1.5 }]), ['alpha', 'gamma']);
        assert.deepEqual(await listed([{ field: 'released', op: '$gte', value: '2024-02-01' }]), [
          'beta',
          'delta',
        ]);
        assert.deepEqual(await listed([{ field: 'updated_at', op: '$gt', value: '2024-01-15T00:00:00Z' }]), [
          'beta',
          'gamma',
        ]);
        assert.deepEqual(
          await listed([{ field: 'updated_at', op: '$lte', value: new Date('2024-02-01T00:00:00Z') }]),
          ['alpha', 'beta'],
        );
        assert.deepEqual(await listed([{ field: 'serial', op: '$gt', value: '9007199254740994' }]), ['beta']);
      });

      it('combines two conditions on one field', async () => {
        assert.deepEqual(
          await listed([
            { field: 'quantity', op: '$gt', value: 1 },
            { field: 'quantity', op: '$lt', value: 3 },
          ]),
          ['beta'],
        );
      });

      it('filters with $in, $nin, $like and $exists', async () => {
        assert.deepEqual(await listed([{ field: 'color', op: '$in', value: ['red', 'blue'] }]), [
          'alpha',
          'gamma',
        ]);
        assert.deepEqual(await listed([{ field: 'quantity', op: '$nin', value: [1, 3] }]), ['beta']);
        assert.deepEqual(await listed([{ field: 'name', op: '$like', value: '%ta' }]), ['beta', 'delta']);
        assert.deepEqual(await listed([{ field: 'name', op: '$like', value: '_lpha' }]), ['alpha']);
        assert.deepEqual(await listed([{ field: 'released', op: '$exists', value: false }]), ['gamma']);
        assert.deepEqual(await listed([{ field: 'updated_at', op: '$exists', value: true }]), [
          'alpha',
          'beta',
          'gamma',
        ]);
      });

      it('matches $like case-sensitively on every database, with * ? [ as plain characters', async () => {
        const texts = ['like Alpha', 'like alpha', 'like ALPHA', 'like a*b?[c]', 'like äxz'];
        for (const [index, description] of texts.entries()) {
          await adapter.create(session, Gadget, { name: `like-${index}`, description });
        }
        const matching = async (value: string) => {
          const filters: FilterCondition[] = [{ field: 'description', op: '$like', value }];
          const rows = (await adapter.list(session, Gadget, query({ filters }))).rows;
          return rows.map((row) => row.description);
        };
        assert.deepEqual(await matching('like al%'), ['like alpha']);
        assert.deepEqual(await matching('like AL%'), ['like ALPHA']);
        assert.deepEqual(await matching('like _lpha'), ['like Alpha', 'like alpha']);
        assert.deepEqual(await matching('like a*b?[c]'), ['like a*b?[c]']);
        assert.deepEqual(await matching('like a_b_[c]'), ['like a*b?[c]']);
        assert.deepEqual(await matching('like ä_z'), ['like äxz']);
        assert.deepEqual(await matching('like a*'), []);
      });

      it('sorts by several keys in both directions', async () => {
        assert.deepEqual(
          await listed(
            [],
            [
              { field: 'quantity', direction: 'desc' },
              { field: 'name', direction: 'asc' },
            ],
          ),
          ['delta', 'gamma', 'beta', 'alpha'],
        );
        assert.deepEqual(await listed([], [{ field: 'name', direction: 'desc' }]), [
          'gamma',
          'delta',
          'beta',
          'alpha',
        ]);
      });

      it('pages with limit and offset without overlap, in key order when no sort is given', async () => {
        const filters: FilterCondition[] = [{ field: 'description', op: '$like', value: 'list %' }];
        const pages = [];
        for (let offset = 0; offset < 5; offset += 2) {
          pages.push(names((await adapter.list(session, Gadget, query({ filters, limit: 2, offset }))).rows));
        }
        assert.deepEqual(pages, [['alpha', 'beta'], ['gamma', 'delta'], []]);
      });

      it('counts the rows matching the filters, ignoring limit and offset, only when asked', async () => {
        const filters: FilterCondition[] = [{ field: 'color', op: '$eq', value: 'green' }];
        const withTotal = await adapter.list(
          session,
          Gadget,
          query({ filters, limit: 1, offset: 1, withTotal: true }),
        );
        assert.deepEqual([withTotal.rows.length, withTotal.total], [1, 2]);
        assert.equal('total' in (await adapter.list(session, Gadget, query({ filters }))), false);
      });

      it('returns every field, hidden ones included, in record form', async () => {
        const [row] = (
          await adapter.list(
            session,
            Gadget,
            query({ filters: [{ field: 'name', op: '$eq', value: 'beta' }] }),
          )
        ).rows;
        assert.deepEqual(row && { ...row, id: 0 }, {
          id: 0,
          name: 'beta',
          description: 'list beta',
          quantity: 2,
          price: decimal('2.50'),
          rating: null,
          active: false,
          released: '2024-02-01',
          updated_at: new Date('2024-02-01T00:00:00Z'),
          alarm: null,
          metadata: null,
          color: 'green',
          serial: '9007199254740995',
          secret: null,
        });
      });
    });

    it('updates only the given fields and returns the stored row', async () => {
      const created = await adapter.create(session, Gadget, {
        name: 'to-update',
        quantity: 4,
        description: 'keep me',
      });
      const updated = await adapter.update(adapter.openSession(), Gadget, created.id as number, {
        quantity: 9,
        metadata: [1, 'two'],
        updated_at: '2025-05-05T05:05:05Z',
        price: null,
      });
      assert.deepEqual(updated, {
        ...created,
        quantity: 9,
        metadata: [1, 'two'],
        updated_at: new Date('2025-05-05T05:05:05Z'),
      });
      assert.deepEqual(await adapter.get(adapter.openSession(), Gadget, created.id as number), updated);
    });

    it('answers undefined when updating a missing row', async () => {
      assert.equal(await adapter.update(session, Gadget, 424242, { quantity: 1 }), undefined);
      assert.equal(await adapter.update(session, Box, 'not-a-uuid', { label: 'x' }), undefined);
    });

    it('deletes a row once: true, then false', async () => {
      const created = await adapter.create(session, Gadget, { name: 'to-delete' });
      assert.equal(await adapter.delete(session, Gadget, created.id as number), true);
      assert.equal(await adapter.delete(session, Gadget, created.id as number), false);
      assert.equal(await adapter.get(session, Gadget, created.id as number), undefined);
    });

    it('generates a UUID key the client does not give', async () => {
      const box = await adapter.create(session, Box, { label: 'crate' });
      assert.match(String(box.id), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      assert.deepEqual(await adapter.get(session, Box, box.id as string), box);
    });

    it('stores a natural key the client gives and never changes it on update', async () => {
      assert.deepEqual(await adapter.create(session, Country, { code: 'NL', name: 'Netherlands' }), {
        code: 'NL',
        name: 'Netherlands',
      });
      assert.deepEqual(await adapter.update(session, Country, 'NL', { name: 'Nederland' }), {
        code: 'NL',
        name: 'Nederland',
      });
      assert.deepEqual(
        await adapter.update(session, Country, 'NL', { code: 'DK', name: 'Holland' }),
        { code: 'NL', name: 'Holland' },
        'the key is never changed by an update',
      );
      assert.equal(await adapter.get(session, Country, 'DK'), undefined);
      await rejectsWith(adapter.create(adapter.openSession(), Country, { code: 'NL', name: 'again' }), 409);
    });

    it('serves ES-decorator and __tablename__ models', async () => {
      const person = await adapter.create(session, Person, { name: 'Ada' });
      assert.deepEqual(await adapter.get(session, Person, person.id as number), {
        id: person.id,
        name: 'Ada',
      });
      const tag = await adapter.create(session, Tag, { name: 'news' });
      const rows = await adapter.orm.em.getConnection().execute('select name from labels');
      assert.deepEqual(rows, [{ name: 'news' }]);
      assert.equal((await adapter.findBy(session, Tag, 'name', 'news'))?.id, tag.id);
    });

    it('maps a unique violation to 409 naming the field', async () => {
      await adapter.create(session, Category, { name: 'books' });
      const error = await rejectsWith(
        adapter.create(adapter.openSession(), Category, { name: 'books' }),
        409,
      );
      assert.equal(error.code, 'conflict');
      assert.deepEqual(
        error.errors?.map((e) => e.path),
        ['name'],
      );
      const other = await adapter.create(session, Category, { name: 'music' });
      const onUpdate = await rejectsWith(
        adapter.update(adapter.openSession(), Category, other.id as number, { name: 'books' }),
        409,
      );
      assert.deepEqual(
        onUpdate.errors?.map((e) => e.path),
        ['name'],
      );
    });

    it('keeps a session usable after a failed write', async () => {
      const own = adapter.openSession();
      await rejectsWith(adapter.create(own, Category, { name: 'books' }), 409);
      assert.equal((await adapter.create(own, Category, { name: 'films' })).name, 'films');
    });

    it('stores a many-to-one as the referenced key and maps a bad reference to 422 naming the field', async () => {
      const author = await adapter.create(session, Author, { name: 'Le Guin' });
      const book = await adapter.create(session, Book, { title: 'The Dispossessed', author: author.id });
      assert.deepEqual(book, { id: book.id, title: 'The Dispossessed', author: author.id, category: null });
      const filtered = await adapter.list(
        session,
        Book,
        query({ filters: [{ field: 'author', op: '$eq', value: author.id }] }),
      );
      assert.deepEqual(filtered.rows, [book]);
      const error = await rejectsWith(
        adapter.create(adapter.openSession(), Book, { title: 'Ghost', author: 99999 }),
        422,
      );
      assert.equal(error.code, 'validation_failed');
      assert.deepEqual(
        error.errors?.map((e) => e.path),
        ['author'],
      );
      await rejectsWith(
        adapter.update(adapter.openSession(), Book, book.id as number, { author: 99999 }),
        422,
      );
    });

    it('refuses to delete a row that is still referenced with 409', async () => {
      const author = await adapter.create(session, Author, { name: 'Referenced' });
      await adapter.create(session, Book, { title: 'Anchor', author: author.id });
      const error = await rejectsWith(
        adapter.delete(adapter.openSession(), Author, author.id as number),
        409,
      );
      assert.match(error.message, /still referenced/);
    });

    it('maps a missing required value to 422 naming the field', async () => {
      const error = await rejectsWith(
        adapter.create(adapter.openSession(), Gadget, { description: 'no name' }),
        422,
      );
      assert.deepEqual(
        error.errors?.map((e) => e.path),
        ['name'],
      );
      const viaDatabase = await rejectsWith(
        adapter.create(adapter.openSession(), Person, { name: null }),
        422,
      );
      assert.deepEqual(
        viaDatabase.errors?.map((e) => e.path),
        ['name'],
      );
    });

    it('stores a time without seconds as HH:MM:00 and a fraction as the column keeps it, and filters by them', async () => {
      const short = await adapter.create(session, Gadget, { name: 'early', alarm: '06:15' });
      const fraction = await adapter.create(session, Gadget, { name: 'late', alarm: '23:59:58.750' });
      // A `time` column without precision: SQLite keeps the text, PostgreSQL rounds, MariaDB truncates.
      const kept = target.startsWith('sqlite')
        ? '23:59:58.750'
        : target === 'postgresql'
          ? '23:59:59'
          : '23:59:58';
      assert.deepEqual([short.alarm, fraction.alarm], ['06:15:00', kept]);
      const filters: FilterCondition[] = [
        { field: 'alarm', op: '$gte', value: '06:15' },
        { field: 'alarm', op: '$lt', value: '07:00:00' },
      ];
      assert.deepEqual(names((await adapter.list(session, Gadget, query({ filters }))).rows), ['early']);
    });

    it('maps a value longer than its column to 422 naming the field', async () => {
      const tooLong = 'x'.repeat(101);
      if (target === 'sqlite-memory' || target === 'sqlite-file') {
        // SQLite does not enforce lengths; the core's validation (maxLength 100) stands in front.
        assert.equal((await adapter.create(session, Gadget, { name: tooLong })).name, tooLong);
        return;
      }
      const error = await rejectsWith(adapter.create(adapter.openSession(), Gadget, { name: tooLong }), 422);
      assert.deepEqual(
        error.errors?.map((e) => e.path),
        ['name'],
      );
    });

    it('answers ping', async () => {
      await adapter.ping();
    });
  });
}
