/**
 * What a property's `columnType`, `serializedName` and TS type tell the API, on every database
 * target: the field kind and length come from the column MikroORM makes, whether or not this
 * process created the schema; values read back as MikroORM serializes them; names the query
 * string could not express, and keys the database could not hand back, are refused at
 * registration.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Collection, wrap } from '@mikro-orm/core';
import { Entity, Enum, ManyToMany, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { ormFromUrl } from '../../../adapters/mikro-orm/connect.js';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ApiError, ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { FieldDescription, ModelClass } from '../../../lib/types.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

@Entity()
class Column extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property({ columnType: 'text', nullable: true }) body?: string | null;
  @Property({ columnType: 'varchar(5)', nullable: true }) code?: string | null;
  @Property({ columnType: 'varchar(5)', length: 20, nullable: true }) short?: string | null;
  @Property({ columnType: 'time(3)', nullable: true }) at?: string | null;
  @Property({ columnType: 'real', nullable: true }) ratio?: number | null;
  // `number` alone: a union would reflect as Object, and MikroORM would keep a string.
  @Property({ type: 'decimal', precision: 8, scale: 2, nullable: true }) price?: number;
  @Property({ type: 'decimal', precision: 8, scale: 2, nullable: true }) exact?: string | null;
}

/** An array of an enum: its items take the enum's values only. */
@Entity()
class Shelving extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Enum({ items: ['oak', 'pine'], array: true, nullable: true }) woods?: string[] | null;
}

/** A key served under another JSON name. */
@Entity()
class Badge extends FrameworkModel {
  @PrimaryKey({ serializedName: 'key' }) id!: number;
  @Property() label!: string;
}

/** Points at badges by their serialized key, one and many. */
@Entity()
class Holder extends FrameworkModel {
  @PrimaryKey() id!: number;
  @ManyToOne(() => Badge, { nullable: true }) badge?: Badge | null;
  @ManyToMany(() => Badge) badges = new Collection<Badge>(this);
}

/** A JSON name the query string would read as a path. */
@Entity()
class Dotted extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property({ serializedName: 'meta.x', nullable: true }) x?: string;
}

/** A key served under another property's name. */
@Entity()
class Collide extends FrameworkModel {
  @PrimaryKey({ serializedName: 'n' }) id!: number;
  @Property() n!: string;
}

/** An empty serializedName, which MikroORM's serializer takes as none. */
@Entity()
class Unnamed extends FrameworkModel {
  @PrimaryKey({ serializedName: '' }) id!: number;
  @Property() n!: string;
}

/** JSON names the list parameters would read as two fields or a descending sort. */
@Entity()
class Listy extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property({ serializedName: 'a,b', nullable: true }) ab?: string;
}

@Entity()
class Minus extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property({ serializedName: '-n', nullable: true }) n?: string;
}

/** A key only the database's default makes (never created here: SQLite has no uuid()). */
@Entity()
class Ticket extends FrameworkModel {
  @PrimaryKey({ type: 'uuid', defaultRaw: 'uuid()' }) id!: string;
  @Property() title!: string;
}

for (const target of databaseTargets()) {
  describe(`MikroOrmAdapter column types and JSON names on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    let created: MikroOrmAdapter;
    const server = target === 'postgresql' || target === 'mariadb';

    before(async () => {
      db = await createTestDatabase(target);
      created = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Column, Badge, Shelving, Holder],
        schema: 'create',
      });
    });
    after(async () => {
      await created?.close();
      await db?.drop();
    });

    /** The same entities in an ORM that did not create the schema (as in production). */
    async function described(model: ModelClass, name: string): Promise<FieldDescription[]> {
      const orm = await ormFromUrl({ url: db.url, entities: [Column, Badge, Holder] });
      try {
        const fresh = new MikroOrmAdapter(orm);
        return [created, fresh].map((adapter) => {
          const found = adapter.describe(model).fieldsByName.get(name);
          assert.ok(found, name);
          return found;
        });
      } finally {
        await orm.close(true);
      }
    }

    it('a string column declared text has no length on servers (SQLite makes every string text)', async () => {
      for (const body of await described(Column, 'body')) {
        assert.equal(body.type, server ? 'text' : 'string');
        assert.equal(body.maxLength, server ? undefined : 255);
      }
    });

    it("a varchar column's own length is the limit, whether or not this process created the schema", async () => {
      for (const code of await described(Column, 'code')) assert.equal(code.maxLength, 5);
      for (const short of await described(Column, 'short')) assert.equal(short.maxLength, 5);
    });

    it('a string in a time column is a time; a number in a real column or a decimal number property is a number', async () => {
      for (const at of await described(Column, 'at')) assert.equal(at.type, 'time');
      for (const ratio of await described(Column, 'ratio')) assert.equal(ratio.type, 'number');
      for (const price of await described(Column, 'price')) assert.equal(price.type, 'number');
      for (const exact of await described(Column, 'exact')) assert.equal(exact.type, 'decimal');
    });

    for (const mode of ['fast', 'plain'] as const) {
      it(`${mode}: fractions and decimal numbers read back as MikroORM serializes them`, async () => {
        const adapter = mode === 'fast' ? created : new MikroOrmAdapter(created.orm, { mode });
        const record = await adapter.create(adapter.openSession(), Column, {
          ratio: 0.25,
          price: 1.5,
          exact: '2.50',
        });
        const loaded = await created.orm.em.fork().findOneOrFail(Column, record.id as number);
        const json = wrap(loaded).toObject() as Record<string, unknown>;
        const values = (row: Record<string, unknown> | undefined) => [row?.ratio, row?.price, row?.exact];
        assert.deepEqual(values(json).slice(0, 2), [0.25, 1.5], 'MikroORM serializes numbers');
        assert.deepEqual(values(record), values(json), 'the answer');
        const read = await adapter.get(adapter.openSession(), Column, record.id as number);
        assert.deepEqual(values(read), values(json), 'a read');
      });

      it(`${mode}: a single-precision column refuses what it cannot hold, naming the field`, async () => {
        const adapter = mode === 'fast' ? created : new MikroOrmAdapter(created.orm, { mode });
        const single = adapter.describe(Column).fieldsByName.get('ratio')?.singlePrecision === true;
        for (const ratio of [1e39, -1e39, 1e-50]) {
          const writing = adapter.create(adapter.openSession(), Column, { ratio });
          if (single)
            await assert.rejects(
              writing,
              (error: unknown) =>
                error instanceof ApiError && JSON.stringify(error.toProblem()).includes('"path":"ratio"'),
              String(ratio),
            );
          else assert.equal((await writing).ratio, ratio, String(ratio));
        }
      });

      it(`${mode}: a key with a serializedName is served under it, as MikroORM serializes it`, async () => {
        const adapter = mode === 'fast' ? created : new MikroOrmAdapter(created.orm, { mode });
        assert.equal(adapter.describe(Badge).primaryKey, 'key');
        assert.equal(
          adapter.describe(Badge).fieldsByName.get('key')?.property,
          'id',
          'the ORM name, for PROTECTED_FIELDS',
        );
        const record = await adapter.create(adapter.openSession(), Badge, { label: mode });
        const loaded = await created.orm.em.fork().findOneOrFail(Badge, record.key as number);
        assert.deepEqual(record, wrap(loaded).toObject() as Record<string, unknown>);
        assert.deepEqual(await adapter.get(adapter.openSession(), Badge, record.key as number), record);
        const page = await adapter.list(adapter.openSession(), Badge, {
          filters: [{ field: 'key', op: '$eq', value: record.key }],
          sort: [{ field: 'key', direction: 'desc' }],
          limit: 10,
          offset: 0,
          withTotal: true,
        });
        assert.deepEqual(page.rows, [record]);
      });
    }

    for (const mode of ['fast', 'plain'] as const) {
      it(`${mode}: relations name a key with a serializedName by it, one and many`, async () => {
        const adapter = mode === 'fast' ? created : new MikroOrmAdapter(created.orm, { mode });
        const badge = await adapter.create(adapter.openSession(), Badge, { label: `held ${mode}` });
        const holders = adapter.describe(Holder);
        assert.equal(holders.fieldsByName.get('badge')?.relation?.targetKey, 'key');
        assert.equal(holders.collections?.find((c) => c.name === 'badges')?.targetKey, 'key');
        const holder = await adapter.create(adapter.openSession(), Holder, {
          badge: badge.key,
          badges: [badge.key],
        });
        assert.equal(holder.badge, badge.key);
        const loaded = await created.orm.em
          .fork()
          .findOneOrFail(Holder, holder.id as number, { populate: ['badges'] });
        assert.deepEqual(
          loaded.badges.getItems().map((item) => item.id),
          [badge.key],
        );
      });
    }

    it("an array of an enum carries the enum's values for its items", () => {
      const woods = created.describe(Shelving).fieldsByName.get('woods');
      assert.deepEqual([woods?.type, woods?.enumValues], ['array', ['oak', 'pine']]);
    });

    it('refuses a JSON name with a dot, naming the property', async () => {
      const orm = await ormFromUrl({ url: db.url, entities: [Dotted] });
      try {
        assert.throws(
          () => new MikroOrmAdapter(orm).describe(Dotted),
          (error: unknown) => error instanceof ConfigurationError && /Dotted\.x.*meta\.x/.test(error.message),
        );
      } finally {
        await orm.close(true);
      }
    });

    it('refuses two properties under one JSON name, and names with a comma or a leading minus; takes an empty serializedName as none', async () => {
      const orm = await ormFromUrl({ url: db.url, entities: [Collide, Unnamed, Listy, Minus] });
      try {
        const adapter = new MikroOrmAdapter(orm);
        assert.throws(
          () => adapter.describe(Collide),
          (error: unknown) => error instanceof ConfigurationError && /id and n .*"n"/.test(error.message),
        );
        for (const model of [Listy, Minus])
          assert.throws(() => adapter.describe(model), ConfigurationError, model.name);
        assert.equal(adapter.describe(Unnamed).primaryKey, 'id');
      } finally {
        await orm.close(true);
      }
    });

    it('refuses, on MySQL/MariaDB only, a key only the column default makes', async () => {
      const orm = await ormFromUrl({ url: db.url, entities: [Ticket] });
      try {
        const describe = () => new MikroOrmAdapter(orm).describe(Ticket);
        if (target === 'mariadb')
          assert.throws(
            describe,
            (error: unknown) =>
              error instanceof ConfigurationError && /Ticket\.id.*onCreate/.test(error.message),
          );
        else assert.equal(describe().primaryKey, 'id');
      } finally {
        await orm.close(true);
      }
    });
  });
}
