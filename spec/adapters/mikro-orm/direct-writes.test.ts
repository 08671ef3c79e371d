/**
 * Direct writes: models with nothing for MikroORM's unit of work to do are written with one
 * statement; every model with hooks, subscribers, locking or relations to follow still goes through
 * the unit of work, so its side effects happen as before.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Collection, type EventArgs, type EventSubscriber, type Opt } from '@mikro-orm/core';
import {
  BeforeCreate,
  BeforeUpdate,
  Entity,
  ManyToOne,
  OneToMany,
  PrimaryKey,
  Property,
} from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

@Entity()
class Note extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() text!: string;
  // No database default: only the class knows it, as with `em.create`.
  @Property({ type: 'integer' }) level: Opt<number> = 3;
}

@Entity()
class Stamped extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() text!: string;
  @Property({ type: 'string', nullable: true }) stamp?: string | null;

  @BeforeCreate()
  @BeforeUpdate()
  mark(): void {
    this.stamp = `stamped ${this.text}`;
  }
}

@Entity()
class Versioned extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() text!: string;
  @Property({ type: 'integer', version: true }) version!: number & Opt;
}

@Entity()
class Shelf extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() label!: string;
  @OneToMany(
    () => Book,
    (book) => book.shelf,
    { orphanRemoval: true },
  )
  books = new Collection<Book>(this);
}

@Entity()
class Book extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() title!: string;
  @ManyToOne(() => Shelf, { nullable: true, deleteRule: 'no action' }) shelf?: Shelf | null;
}

/** Every column has a default: a create may give nothing at all. */
@Entity()
class Counter extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property({ type: 'integer', default: 0 }) hits!: number & Opt;
}

/** A collection without cascaded removal: MikroORM sends nothing for it on delete. */
@Entity()
class Rack extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() label!: string;
  @OneToMany(
    () => Crate,
    (crate) => crate.rack,
  )
  crates = new Collection<Crate>(this);
}

@Entity()
class Crate extends FrameworkModel {
  @PrimaryKey() id!: number;
  @ManyToOne(() => Rack, { nullable: true }) rack?: Rack | null;
}

const entities = [Note, Stamped, Versioned, Shelf, Book, Counter, Rack, Crate];

/** Counts the statements MikroORM sends, by their first word. */
class StatementLog {
  readonly lines: string[] = [];
  readonly logger = (message: string): void => {
    this.lines.push(message);
  };
  take(): string[] {
    // `colors: false` keeps the lines plain: `[query] insert into …`.
    const words = this.lines.map((line) => /(?:\[query\]\s*)?(\w+)/.exec(line)?.[1] ?? '');
    this.lines.length = 0;
    return words.map((word) => word.toLowerCase());
  }
}

for (const target of databaseTargets()) {
  describe(`MikroOrmAdapter direct writes on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    let adapter: MikroOrmAdapter;
    const log = new StatementLog();

    before(async () => {
      db = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: db.url,
        entities,
        schema: 'create',
        debug: true,
        logger: log.logger,
        colors: false,
      });
      log.take();
    });
    after(async () => {
      await adapter?.close();
      await db?.drop();
    });

    it('writes a plain model with one statement per write, with the class defaults', async () => {
      const session = adapter.openSession();
      const created = await adapter.create(session, Note, { text: 'one' });
      assert.deepEqual(created, { id: created.id, text: 'one', level: 3 });
      const returning = !target.startsWith('mariadb');
      // MariaDB returns no row: the insert and the read of its answer share one transaction, so
      // that a create answered with an error leaves no row behind.
      assert.deepEqual(log.take(), returning ? ['insert'] : ['begin', 'insert', 'select', 'commit']);
      const updated = await adapter.update(session, Note, created.id as number, { text: 'two' });
      assert.deepEqual(updated, { ...created, text: 'two' });
      assert.deepEqual(log.take(), returning ? ['update'] : ['update', 'select']);
      assert.equal(await adapter.update(session, Note, 987654, { text: 'x' }), undefined);
      log.take();
      assert.equal(await adapter.delete(session, Note, created.id as number), true);
      assert.deepEqual(log.take(), ['delete']);
      assert.equal(await adapter.delete(session, Note, created.id as number), false);
      assert.equal(await adapter.get(session, Note, created.id as number), undefined);
    });

    it('refuses a missing required value before any SQL, naming it, as the unit of work does', async () => {
      log.take();
      await assert.rejects(
        adapter.create(adapter.openSession(), Note, { level: 1 }),
        (error: unknown) =>
          error instanceof ApiError && error.status === 422 && error.errors?.[0]?.path === 'text',
      );
      assert.deepEqual(log.take(), []);
    });

    it('keeps the unit of work for models with hooks, so the hooks run', async () => {
      const session = adapter.openSession();
      const created = await adapter.create(session, Stamped, { text: 'a' });
      assert.equal(created.stamp, 'stamped a');
      assert.ok(log.take().includes('begin'), 'the insert ran in the unit of work');
      const updated = await adapter.update(session, Stamped, created.id as number, { text: 'b' });
      assert.equal(updated?.stamp, 'stamped b');
    });

    it('keeps the unit of work for versioned models', async () => {
      const session = adapter.openSession();
      const created = await adapter.create(session, Versioned, { text: 'a' });
      assert.equal(Number(created.version), 1);
      const updated = await adapter.update(session, Versioned, created.id as number, { text: 'b' });
      assert.equal(Number(updated?.version), 2, 'the unit of work raised the version');
    });

    it('deletes through the unit of work when it has relations to follow', async () => {
      const session = adapter.openSession();
      const shelf = await adapter.create(session, Shelf, { label: 'top' });
      const book = await adapter.create(session, Book, { title: 'loose' });
      log.take();
      assert.equal(await adapter.delete(adapter.openSession(), Shelf, shelf.id as number), true);
      assert.ok(log.take().includes('begin'), 'a model with a collection is deleted by the unit of work');
      // A many-to-one alone leaves nothing to follow.
      assert.equal(await adapter.delete(adapter.openSession(), Book, book.id as number), true);
      assert.deepEqual(log.take(), ['delete']);
    });

    it('creates a record of defaults only (an empty body) on every database', async () => {
      // The query builder writes `insert … default values`, which MariaDB refuses: the unit of work
      // writes the form each database takes.
      const created = await adapter.create(adapter.openSession(), Counter, {});
      assert.deepEqual(created, { id: created.id, hits: 0 });
    });

    it('deletes directly when the collections cascade nothing', async () => {
      const rack = await adapter.create(adapter.openSession(), Rack, { label: 'empty' });
      log.take();
      assert.equal(await adapter.delete(adapter.openSession(), Rack, rack.id as number), true);
      assert.deepEqual(log.take(), ['delete']);
    });

    it('keeps the unit of work while an event subscriber is registered', async () => {
      const seen: string[] = [];
      const subscriber: EventSubscriber = {
        afterCreate: async (args: EventArgs<unknown>) => {
          seen.push((args.entity as { text: string }).text);
        },
      };
      adapter.orm.em.getEventManager().registerSubscriber(subscriber);
      try {
        await adapter.create(adapter.openSession(), Note, { text: 'watched' });
        assert.deepEqual(seen, ['watched']);
      } finally {
        adapter.orm.em.getEventManager().getSubscribers().delete(subscriber);
      }
      await adapter.create(adapter.openSession(), Note, { text: 'unwatched' });
      assert.deepEqual(seen, ['watched']);
    });

    it('can be turned off', async () => {
      const off = new MikroOrmAdapter(adapter.orm, { directWrites: false });
      log.take();
      await off.create(off.openSession(), Note, { text: 'through the unit of work' });
      assert.ok(log.take().includes('begin'));
    });
  });
}
