/**
 * Database errors name the fields a client has to fix, and only those: a failed CHECK names the
 * columns of its expression, a unique violation the columns of its index, an out-of-range value
 * its column (PostgreSQL names none for some: then the one written value that cannot fit, if
 * exactly one can be it). Where the database does not say, no field is named. Every target, both
 * modes; the `errors` paths are asserted exactly.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  CheckConstraintViolationException,
  Collection,
  DriverException,
  ForeignKeyConstraintViolationException,
  NotNullConstraintViolationException,
  type Opt,
  OptimisticLockError,
  UniqueConstraintViolationException,
} from '@mikro-orm/core';
import {
  Check,
  Entity,
  Enum,
  ManyToMany,
  ManyToOne,
  OneToOne,
  PrimaryKey,
  Property,
  Unique,
} from '@mikro-orm/decorators/legacy';
import { AdapterFailures } from '../../../adapters/mikro-orm/failures.js';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { buildPlan } from '../../../adapters/mikro-orm/plan.js';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { ModelClass } from '../../../lib/types.js';
import {
  type Answer,
  type Catalogue,
  describeFidelity,
  type FidelityEnv,
  MODES,
} from './fidelity/harness.js';

/** Table `stocks`: a property check (`stocks_qty_check`) and an entity check over two columns (`stocks_check`). */
@Entity()
@Check({ expression: 'low <= high' })
class Stock extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string' })
  name!: string;

  @Check({ expression: 'qty >= 0' })
  @Property({ type: 'integer' })
  qty!: number;

  @Property({ type: 'integer', default: 0 })
  low!: number & Opt;

  @Property({ type: 'integer', default: 10 })
  high!: number & Opt;
}

/** Table `authors`. */
@Entity()
class Author extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string' })
  name!: string;
}

/** Table `profiles`: a one-to-one owner (`profiles_author_id_unique`) and a named two-column unique. */
@Entity()
@Unique({ name: 'profile_handle_per_site', properties: ['handle', 'site'] })
class Profile extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string' })
  handle!: string;

  @Property({ type: 'string' })
  site!: string;

  @OneToOne(() => Author, { owner: true })
  author!: Author;
}

/**
 * Table `remarks`: two references to authors, and a many-to-many to them.
 * SQLite's foreign-key error names none of them; MariaDB and PostgreSQL name the column.
 */
@Entity()
class Remark extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string' })
  note!: string;

  @ManyToOne(() => Author)
  author!: Author;

  @ManyToOne(() => Author, { nullable: true })
  reviewer?: Author | null;

  /** Pivot `remarks_readers`, whose `author_id` column is not the remark's own. */
  @ManyToMany(() => Author)
  readers = new Collection<Author>(this);
}

/** Table `measures`: columns whose range the database enforces, one of them by an explicit column type. */
@Entity()
class Measure extends FrameworkModel {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'smallint', nullable: true })
  small?: number | null;

  @Property({ type: 'integer', columnType: 'smallint', nullable: true })
  tiny?: number | null;

  /** An integer to MikroORM, narrowed to smallint by SQL behind its back (a hand-made table). */
  @Property({ type: 'integer', nullable: true })
  narrowed?: number | null;

  @Property({ type: 'decimal', precision: 10, scale: 2, nullable: true })
  price?: string | null;

  @Property({ type: 'decimal', precision: 10, scale: 2, nullable: true })
  cost?: string | null;

  @Property({ type: 'decimal', precision: 14, scale: 2, nullable: true })
  total?: string | null;

  @Property({ type: 'bigint', nullable: true })
  big?: string | null;

  @Enum({ items: ['red', 'green'], array: true, nullable: true })
  colors?: string[] | null;

  /** MariaDB's `text` holds 65,535 bytes, not characters. */
  @Property({ type: 'text', nullable: true })
  memo?: string | null;
}

const MODELS: readonly ModelClass[] = [Stock, Author, Profile, Measure, Remark];
const CATALOGUE: Catalogue = {
  entities: MODELS,
  routes: new Map<ModelClass, string>([
    [Stock, '/stocks'],
    [Author, '/authors'],
    [Profile, '/profiles'],
    [Measure, '/measures'],
    [Remark, '/remarks'],
  ]),
};

/** The `errors` paths of a problem answer, after asserting its status. */
function pathsOf(answer: Answer, status: number): string[] {
  assert.equal(answer.status, status, JSON.stringify(answer.body));
  const body = answer.body as { errors?: { path: string; message: string }[]; detail: string };
  assert.ok(Array.isArray(body.errors), `an errors list: ${JSON.stringify(body)}`);
  assert.doesNotMatch(
    JSON.stringify(body),
    // A comparison is SQL (a check's expression), unless it is the request validation's own wording.
    /insert|update |select|constraint `|(?<!must be )[<>]=/i,
    'no SQL in the answer',
  );
  return body.errors.map((error) => error.path);
}

async function created(env: FidelityEnv, route: string, json: object): Promise<number> {
  const answer = await env.send('POST', route, json);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return (answer.body as { id: number }).id;
}

/** A value unique to this test run and mode (both modes of a server target share one database). */
let serial = 0;
function unique(env: FidelityEnv, prefix: string): string {
  serial += 1;
  return `${prefix}-${env.mode}-${serial}`;
}

const serverOnly = (env: FidelityEnv): boolean => !env.target.startsWith('sqlite');

await describeFidelity(
  'Database errors name the fields to fix',
  (env) => {
    it('a failed property CHECK names its column only, on insert and update', async () => {
      const answer = await env().send('POST', '/stocks', { name: unique(env(), 'g'), qty: -1 });
      assert.deepEqual(pathsOf(answer, 422), ['qty']);
      const id = await created(env(), '/stocks', { name: unique(env(), 'g'), qty: 1 });
      assert.deepEqual(pathsOf(await env().send('PATCH', `/stocks/${id}`, { qty: -5 }), 422), ['qty']);
    });

    it('a failed entity CHECK names the columns of its expression, not the other written fields', async () => {
      const answer = await env().send('POST', '/stocks', { name: unique(env(), 'g'), qty: 1, low: 20 });
      assert.deepEqual(pathsOf(answer, 422), ['low', 'high']);
      const id = await created(env(), '/stocks', { name: unique(env(), 'g'), qty: 1 });
      // `high` alone was written; the check reads both.
      assert.deepEqual(pathsOf(await env().send('PATCH', `/stocks/${id}`, { high: -1 }), 422), [
        'low',
        'high',
      ]);
    });

    it('a CHECK the metadata does not know (added by SQL) names no field and says so', async (t) => {
      if (!serverOnly(env())) return t.skip('SQLite cannot add a constraint to an existing table');
      const answer = await env().send('POST', '/stocks', { name: 'forbidden', qty: 1 });
      assert.deepEqual(pathsOf(answer, 422), []);
      assert.match((answer.body as { detail: string }).detail, /did not say which field/);
    });

    it('a unique violation on a one-to-one owner names the relation only', async () => {
      const author = await created(env(), '/authors', { name: 'a' });
      await created(env(), '/profiles', { handle: unique(env(), 'h'), site: 's', author });
      const answer = await env().send('POST', '/profiles', { handle: unique(env(), 'h'), site: 's', author });
      assert.deepEqual(pathsOf(answer, 409), ['author']);
    });

    it('a unique violation of a named two-column index names both columns', async () => {
      const handle = unique(env(), 'h');
      await created(env(), '/profiles', {
        handle,
        site: 's',
        author: await created(env(), '/authors', { name: 'b' }),
      });
      const answer = await env().send('POST', '/profiles', {
        handle,
        site: 's',
        author: await created(env(), '/authors', { name: 'c' }),
      });
      assert.deepEqual(pathsOf(answer, 409), ['handle', 'site']);
    });

    describe('a reference to no record names that reference only, not the other ones written', () => {
      for (const [label, body, expected] of [
        ['the second of two', { reviewer: 999_999 }, ['reviewer']],
        ['the first of two', { author: 999_999, reviewer: 'valid' }, ['author']],
      ] as const) {
        it(`POST with ${label}`, async () => {
          const valid = await created(env(), '/authors', { name: 'r' });
          const json = Object.fromEntries(
            Object.entries({ note: 'n', author: valid, ...body }).map(([key, value]) => [
              key,
              value === 'valid' ? valid : value,
            ]),
          );
          assert.deepEqual(pathsOf(await env().send('POST', '/remarks', json), 422), expected);
        });
      }

      it('PATCH of one of two', async () => {
        const valid = await created(env(), '/authors', { name: 'r' });
        const id = await created(env(), '/remarks', { note: 'n', author: valid, reviewer: valid });
        const answer = await env().send('PATCH', `/remarks/${id}`, { author: valid, reviewer: 999_999 });
        assert.deepEqual(pathsOf(answer, 422), ['reviewer']);
      });
    });

    it('an enum array item outside the enum names the item', async () => {
      const answer = await env().send('POST', '/measures', { colors: ['red', 'blue'] });
      assert.deepEqual(pathsOf(answer, 422), ['colors.1']);
    });

    describe('values out of their column range', () => {
      // SQLite stores any number in any numeric column: there a value no server column holds is
      // stored as sent (201), unless the request validation knows better (a 64-bit bigint).
      const cases: readonly {
        readonly body: object;
        readonly paths: readonly string[];
        readonly mariadb?: readonly string[];
        readonly sqlite?: readonly string[] | 'stored';
      }[] = [
        // The request validation knows these columns' ranges (35c0c33) and answers first.
        { body: { small: 40000 }, paths: ['small'], sqlite: 'stored' },
        { body: { small: 40000, tiny: 5 }, paths: ['small'], sqlite: 'stored' },
        { body: { tiny: 40000 }, paths: ['tiny'], sqlite: 'stored' },
        // Only the database knows this one's range: MariaDB names the column; PostgreSQL names only
        // the type, which no written value has by the metadata, so no field is named (never a wrong one).
        { body: { narrowed: 40000, small: 5 }, paths: [], mariadb: ['narrowed'], sqlite: 'stored' },
        // The request validation knows a decimal column's digits too (FieldDescription.digits) and
        // answers first, naming each value that does not fit; the database would name none on
        // PostgreSQL when two do, and only the first on MariaDB.
        { body: { price: '123456789.00' }, paths: ['price'], sqlite: 'stored' },
        // Rounded to its scale it no longer fits.
        { body: { price: '99999999.995' }, paths: ['price'], sqlite: 'stored' },
        // `total` is numeric(14,2): the overflow of numeric(10,2) is not its.
        { body: { price: '123456789.00', total: '123456789.00' }, paths: ['price'], sqlite: 'stored' },
        {
          body: { price: '123456789.00', cost: '123456789.00' },
          paths: ['price', 'cost'],
          sqlite: 'stored',
        },
        { body: { big: '99999999999999999999' }, paths: ['big'], sqlite: ['big'] },
      ];
      for (const { body, paths, mariadb, sqlite } of cases) {
        it(`POST ${JSON.stringify(body)} names ${JSON.stringify(paths)} (SQLite: ${JSON.stringify(sqlite)})`, async () => {
          const answer = await env().send('POST', '/measures', body);
          if (!serverOnly(env()) && sqlite === 'stored') {
            assert.equal(answer.status, 201, JSON.stringify(answer.body));
            return;
          }
          const expected = !serverOnly(env())
            ? (sqlite as readonly string[])
            : env().target === 'mariadb'
              ? (mariadb ?? paths)
              : paths;
          assert.deepEqual(pathsOf(answer, 422), expected);
        });
      }

      // MariaDB refuses a multi-byte string over the bytes of `text` with another error (1366,
      // naming the column qualified by database and table) than an ASCII one (1406).
      for (const [label, memo] of [
        ['70,000 ASCII characters', 'a'.repeat(70_000)],
        ['40,000 "é" (80,000 bytes)', 'é'.repeat(40_000)],
        ['20,000 emoji', '😀'.repeat(20_000)],
      ] as const) {
        it(`a text of ${label} names it on MariaDB, is stored elsewhere`, async () => {
          const answer = await env().send('POST', '/measures', { memo });
          if (env().target !== 'mariadb') {
            assert.equal(answer.status, 201, JSON.stringify(answer.body).slice(0, 300));
            return;
          }
          assert.deepEqual(pathsOf(answer, 422), ['memo']);
        });
      }

      it('PATCH of one out-of-range value names it (SQLite: stores it)', async () => {
        const id = await created(env(), '/measures', { small: 1 });
        if (!serverOnly(env())) {
          const patched = await env().send('PATCH', `/measures/${id}`, { small: 40000 });
          assert.equal(patched.status, 200, JSON.stringify(patched.body));
          assert.equal((patched.body as { small: number }).small, 40000);
          return;
        }
        assert.deepEqual(pathsOf(await env().send('PATCH', `/measures/${id}`, { small: 40000 }), 422), [
          'small',
        ]);
        assert.deepEqual(pathsOf(await env().send('PATCH', `/measures/${id}`, { price: '1e9' }), 422), [
          'price',
        ]);
      });
    });

    it('a link row another request inserted meanwhile is a 409 write_conflict naming no field', async () => {
      const author = await created(env(), '/authors', { name: unique(env(), 'w') });
      const remark = await created(env(), '/remarks', { note: 'n', author, readers: [author] });
      const prop = env().adapter.orm.getMetadata().get(Remark).properties.readers;
      const columns = [...(prop.joinColumns ?? []), ...(prop.inverseJoinColumns ?? [])].join(', ');
      // The database's own error for the pair inserted a second time (a real one, on every target).
      const duplicate: unknown = await env()
        .em()
        .getConnection()
        .execute(`insert into ${prop.pivotTable} (${columns}) values (?, ?)`, [remark, author])
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      const mapped = await new AdapterFailures(env().adapter.orm).write(
        duplicate,
        buildPlan(env().adapter.orm, Remark),
        { readers: [author] },
      );
      assert.ok(mapped instanceof ApiError, String(mapped));
      assert.deepEqual([mapped.status, mapped.code, mapped.errors], [409, 'write_conflict', undefined]);
    });

    it('a deadlock is a 409 write_conflict, a lock wait the database ended a 503', async (t) => {
      if (!serverOnly(env())) return t.skip('one SQLite connection cannot wait on another');
      const orm = env().adapter.orm;
      const [first, second] = [
        await created(env(), '/authors', { name: unique(env(), 'd') }),
        await created(env(), '/authors', { name: unique(env(), 'd') }),
      ];
      const failures = new AdapterFailures(orm);
      const plan = buildPlan(orm, Author);
      const [a, b] = [orm.em.fork(), orm.em.fork()];
      const touch = (em: typeof a, id: number) =>
        em
          .getConnection('write')
          .execute('update authors set name = name where id = ?', [id], 'run', em.getTransactionContext());
      await a.begin();
      await b.begin();
      try {
        await touch(a, first);
        await touch(b, second);
        // Each now waits for the row the other holds: the database ends one of them.
        const outcomes = await Promise.allSettled([touch(a, second), touch(b, first)]);
        const deadlock = outcomes.find((outcome) => outcome.status === 'rejected')?.reason as unknown;
        assert.ok(deadlock !== undefined, 'one of the two was stopped');
        const mapped = await failures.write(deadlock, plan, { name: 'x' });
        assert.ok(mapped instanceof ApiError, String(mapped));
        assert.deepEqual([mapped.status, mapped.code], [409, 'write_conflict']);
      } finally {
        await a.rollback().catch(() => undefined);
        await b.rollback().catch(() => undefined);
      }
      // A lock wait the database ends at its limit (PostgreSQL's lock_timeout, MariaDB's
      // innodb_lock_wait_timeout): the database's time limit, as a statement timeout.
      await a.begin();
      await b.begin();
      try {
        await touch(a, first);
        const limit =
          env().target === 'postgresql'
            ? "set local lock_timeout = '50ms'"
            : 'set session innodb_lock_wait_timeout = 1';
        await b.getConnection('write').execute(limit, [], 'run', b.getTransactionContext());
        const waited = await touch(b, first).then(
          () => undefined,
          (error: unknown) => error,
        );
        const mapped = await failures.write(waited, plan, { name: 'x' });
        assert.ok(mapped instanceof ApiError, String(mapped));
        assert.deepEqual([mapped.status, mapped.code], [503, 'service_unavailable']);
        assert.ok(mapped.headers['Retry-After'] !== undefined);
      } finally {
        await a.rollback().catch(() => undefined);
        await b.rollback().catch(() => undefined);
      }
    });
  },
  async (env) => {
    // A check outside the metadata: its name says nothing MikroORM declared.
    if (env.mode !== MODES[0] || !serverOnly(env)) return;
    await env
      .em()
      .getConnection()
      .execute("alter table stocks add constraint stocks_rule check (name <> 'forbidden')");
    await env
      .em()
      .getConnection()
      .execute(
        env.target === 'postgresql'
          ? 'alter table measures alter column narrowed type smallint'
          : 'alter table measures modify narrowed smallint null',
      );
  },
  { catalogue: CATALOGUE },
);

// Wordings the servers here do not produce (MySQL 8, SQLite checks without a name, names a
// migration gave), through the adapter's error mapping with the catalogue's metadata.
describe('Database error wordings name the fields of the metadata', () => {
  let adapter: MikroOrmAdapter;
  let failures: AdapterFailures;
  before(async () => {
    adapter = await MikroOrmAdapter.connect({ url: 'sqlite::memory:', entities: [...MODELS] });
    failures = new AdapterFailures(adapter.orm);
  });
  after(async () => {
    await adapter?.close();
  });

  async function paths(
    model: ModelClass,
    exception: new (previous: Error) => DriverException,
    fields: Record<string, unknown>,
    values: Record<string, unknown> = {},
  ): Promise<string[] | undefined> {
    const error = await failures.write(
      new exception(Object.assign(new Error(String(fields.message)), fields)),
      buildPlan(adapter.orm, model),
      values,
    );
    assert.ok(error instanceof ApiError, String(error));
    return error.errors?.map((entry) => entry.path);
  }

  it("a versioned row changed meanwhile (MikroORM's OptimisticLockError) is a 409 stale_record, not a 422", async () => {
    const error = await failures.write(
      OptimisticLockError.lockFailed('Measure'),
      buildPlan(adapter.orm, Measure),
      {
        small: 1,
      },
    );
    assert.ok(error instanceof ApiError, String(error));
    assert.equal(error.status, 409);
    assert.equal(error.code, 'stale_record');
    assert.match(error.message, /changed by another request/);
  });

  it('MySQL 8 names the check: its columns', async () => {
    const message = "Check constraint 'stocks_check' is violated.";
    assert.deepEqual(
      await paths(Stock, CheckConstraintViolationException, { message, errno: 3819 }, { low: 20 }),
      ['low', 'high'],
    );
  });

  it('SQLite reports a check without a name by its expression: the columns it reads, literals left out', async () => {
    const message = 'CHECK constraint failed: name <> \'qty\' and "low" < 100';
    assert.deepEqual(
      await paths(Stock, CheckConstraintViolationException, { message, code: 'SQLITE_CONSTRAINT_CHECK' }),
      ['name', 'low'],
    );
  });

  it('a check name outside the metadata names no field', async () => {
    const message = 'CONSTRAINT `stocks_qty_rule` failed for `db`.`stocks`';
    assert.deepEqual(
      await paths(Stock, CheckConstraintViolationException, { message, errno: 4025 }, { name: 'n', qty: 1 }),
      [],
    );
  });

  it("MySQL 8's table-qualified key names the index's columns; an unknown index names none", async () => {
    const known = "Duplicate entry '1' for key 'profiles.profiles_author_id_unique'";
    assert.deepEqual(
      await paths(Profile, UniqueConstraintViolationException, { message: known, errno: 1062 }),
      ['author'],
    );
    const primary = "Duplicate entry '1' for key 'PRIMARY'";
    assert.deepEqual(
      await paths(Profile, UniqueConstraintViolationException, { message: primary, errno: 1062 }),
      ['id'],
    );
    const unknown = "Duplicate entry 'x' for key 'profiles_id_handle_idx'";
    assert.equal(
      await paths(
        Profile,
        UniqueConstraintViolationException,
        { message: unknown, errno: 1062 },
        { handle: 'x', author: 1 },
      ),
      undefined,
    );
  });

  it("SQLite's foreign-key error with no session to ask names the one written reference, or none of two", async () => {
    const error = { message: 'FOREIGN KEY constraint failed', code: 'SQLITE_CONSTRAINT_FOREIGNKEY' };
    assert.deepEqual(
      await paths(Remark, ForeignKeyConstraintViolationException, error, { note: 'n', author: 9 }),
      ['author'],
    );
    assert.deepEqual(
      await paths(Remark, ForeignKeyConstraintViolationException, error, { author: 1, reviewer: 9 }),
      [],
    );
  });

  it("a pivot row's foreign key names the collection, not the record's own column of that name", async () => {
    // A target removed between the core's check of the keys and the write.
    const values = { note: 'n', author: 1, readers: [1, 9] };
    const postgresql = {
      message: 'insert or update on table "remarks_readers" violates foreign key constraint',
      code: '23503',
      table: 'remarks_readers',
      constraint: 'remarks_readers_author_id_foreign',
      detail: 'Key (author_id)=(9) is not present in table "authors".',
    };
    assert.deepEqual(await paths(Remark, ForeignKeyConstraintViolationException, postgresql, values), [
      'readers',
    ]);
    const mariadb = {
      message:
        'Cannot add or update a child row: a foreign key constraint fails (`db`.`remarks_readers`, CONSTRAINT ' +
        '`remarks_readers_author_id_foreign` FOREIGN KEY (`author_id`) REFERENCES `authors` (`id`) ON DELETE CASCADE)',
      errno: 1452,
    };
    assert.deepEqual(await paths(Remark, ForeignKeyConstraintViolationException, mariadb, values), [
      'readers',
    ]);
  });

  it("MariaDB's missing default (1364) names its column, not the written fields", async () => {
    const message = "Field 'name' doesn't have a default value";
    assert.deepEqual(
      await paths(Stock, NotNullConstraintViolationException, { message, errno: 1364 }, { qty: 1, low: 2 }),
      ['name'],
    );
  });

  it('a NOT NULL column the model does not map (added to the table by hand) names no field', async () => {
    for (const [message, fields] of [
      ["Field 'extra' doesn't have a default value", { errno: 1364 }],
      [
        'null value in column "extra" of relation "stocks" violates not-null constraint',
        { code: '23502', column: 'extra' },
      ],
      ['NOT NULL constraint failed: stocks.extra', { code: 'SQLITE_CONSTRAINT_NOTNULL' }],
    ] as const) {
      assert.deepEqual(
        await paths(Stock, NotNullConstraintViolationException, { message, ...fields }, { name: 'n' }),
        [],
        message,
      );
    }
  });

  it('an out-of-range error no written value can be names no field', async () => {
    const error = { message: 'integer out of range', code: '22003' };
    assert.deepEqual(await paths(Measure, DriverException, error, { small: 5, price: '1.00' }), []);
    const bigint = { message: 'value "99999999999999999999" is out of range for type bigint', code: '22003' };
    assert.deepEqual(
      await paths(Measure, DriverException, bigint, { big: '99999999999999999999', small: 1 }),
      ['big'],
    );
  });
});
