/**
 * `boundedWaits()` gives an ORM built with `mikroOrmOptions()` the time limits
 * `MikroOrmAdapter.connect()` sets: a statement past `queryTimeoutMs` is cancelled by PostgreSQL
 * (which the routes answer 503), an `onConnect` of the application's still runs, the pool guard stays;
 * options for another database are refused, as are limits that are no positive number of ms.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroORM } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import { boundedWaits, mikroOrmOptions } from '../../../adapters/mikro-orm/index.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../support/databases.js';

/** Table `waits`. */
@Entity()
class Wait extends FrameworkModel {
  @PrimaryKey() id!: number;
  @Property() name!: string;
}

describe('boundedWaits() on PostgreSQL', await requireTarget('postgresql'), () => {
  let db: TestDatabase;
  let orm: MikroORM;
  before(async () => {
    db = await createTestDatabase('postgresql');
    orm = await MikroORM.init(
      boundedWaits(
        mikroOrmOptions({
          driver: PostgreSqlDriver,
          clientUrl: db.url,
          entities: [Wait],
          metadataProvider: ReflectMetadataProvider,
          driverOptions: {
            onConnect: (client: { query(sql: string): Promise<unknown> }) =>
              client.query("set application_name = 'bounded-waits-test'"),
          },
        }),
        { queryTimeoutMs: 300 },
      ),
    );
    await orm.schema.create();
  });
  after(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  it('sets the server limit, and keeps an onConnect of the application', async () => {
    const connection = orm.em.getConnection();
    const [limit] = (await connection.execute('show statement_timeout')) as { statement_timeout: string }[];
    assert.equal(limit?.statement_timeout, '300ms');
    const [name] = (await connection.execute('show application_name')) as { application_name: string }[];
    assert.equal(name?.application_name, 'bounded-waits-test');
  });

  it('has PostgreSQL cancel a statement past queryTimeoutMs', async () => {
    const started = Date.now();
    await assert.rejects(orm.em.getConnection().execute('select pg_sleep(2)'), /statement timeout/);
    assert.ok(Date.now() - started < 1_500, 'cancelled by the server, not waited out');
  });

  it('keeps the pool guard of mikroOrmOptions()', () => {
    const driverOptions = orm.config.get('driverOptions') as Record<string, unknown>;
    assert.equal(typeof driverOptions.onPoolCreated, 'function');
    assert.equal(driverOptions.connectionTimeoutMillis, 3_000);
    assert.equal(driverOptions.query_timeout, 800);
  });
});

describe('boundedWaits() refusals', () => {
  it('refuses options for another database, naming connect()', () => {
    assert.throws(
      () => boundedWaits(mikroOrmOptions({ driver: SqliteDriver, dbName: ':memory:', entities: [Wait] })),
      (error: unknown) =>
        error instanceof ConfigurationError && /MikroOrmAdapter\.connect\(\)/.test(error.message),
    );
  });

  it('refuses limits that are no positive number of ms', () => {
    for (const limits of [{ queryTimeoutMs: 0 }, { connectTimeoutMs: -1 }, { queryTimeoutMs: 1.5 }])
      assert.throws(
        () => boundedWaits({ driver: PostgreSqlDriver, clientUrl: 'postgres://x/y' }, limits),
        ConfigurationError,
      );
  });
});
