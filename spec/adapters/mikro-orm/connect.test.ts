import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import { driverForUrl } from '../../../adapters/mikro-orm/connect.js';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';
import {
  createTestDatabase,
  requireTarget,
  serverTargets,
  type TestDatabase,
} from '../../support/databases.js';

const entities = [...mikroOrmFixtureEntities];
const listAll = { filters: [], sort: [], limit: 10, offset: 0, withTotal: true };

describe('database URLs', () => {
  it('maps each scheme to its driver package and connection options', () => {
    const cases: [string, string, Record<string, string>][] = [
      ['sqlite:data/app.db', '@mikro-orm/sqlite', { dbName: 'data/app.db' }],
      ['sqlite:///var/lib/app.db', '@mikro-orm/sqlite', { dbName: '/var/lib/app.db' }],
      ['sqlite::memory:', '@mikro-orm/sqlite', { dbName: ':memory:' }],
      ['postgres://u:p@db:5432/app', '@mikro-orm/postgresql', { clientUrl: 'postgresql://u:p@db:5432/app' }],
      ['postgresql://u@db/app', '@mikro-orm/postgresql', { clientUrl: 'postgresql://u@db/app' }],
      ['mysql://root@db:3306/app', '@mikro-orm/mysql', { clientUrl: 'mysql://root@db:3306/app' }],
      ['mariadb://root@db:3306/app', '@mikro-orm/mariadb', { clientUrl: 'mysql://root@db:3306/app' }],
    ];
    for (const [url, packageName, connection] of cases) {
      const choice = driverForUrl(url);
      assert.equal(choice.packageName, packageName, url);
      assert.deepEqual(choice.connection, connection, url);
    }
  });

  it('refuses an unknown scheme without repeating the credentials', () => {
    assert.throws(
      () => driverForUrl('oracle://scott:tiger@db/app'),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.match(error.message, /Unsupported database URL scheme "oracle"/);
        assert.doesNotMatch(error.message, /tiger/);
        return true;
      },
    );
    assert.throws(() => driverForUrl('sqlite:'), /needs a file path or :memory:/);
  });
});

describe('MikroOrmAdapter.connect on an SQLite file', await requireTarget('sqlite-file'), () => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase('sqlite-file');
  });
  after(() => db.drop());

  it("creates the schema with schema: 'update', keeps data across connections, and passes pool and debug through", async () => {
    const first = await MikroOrmAdapter.connect({
      url: db.url,
      entities,
      schema: 'update',
      pool: { min: 1, max: 3 },
      debug: false,
    });
    assert.deepEqual(first.orm.config.get('pool'), { min: 1, max: 3 });
    assert.equal(first.orm.config.get('debug'), false);
    await first.create(first.openSession(), fixtureModels.Category, { name: 'kept' });
    await first.close();

    const second = await MikroOrmAdapter.connect({ url: db.url, entities, schema: 'update' });
    try {
      const { rows, total } = await second.list(second.openSession(), fixtureModels.Category, listAll);
      assert.deepEqual([rows.map((row) => row.name), total], [['kept'], 1]);
    } finally {
      await second.close();
    }
  });

  it("leaves the database alone with schema: 'none' (the default)", async () => {
    const fresh = await createTestDatabase('sqlite-file');
    const adapter = await MikroOrmAdapter.connect({ url: fresh.url, entities });
    try {
      await assert.rejects(
        adapter.list(adapter.openSession(), fixtureModels.Category, listAll),
        // No table was made: the first read says which one is missing and how to create it.
        (error: unknown) =>
          error instanceof ConfigurationError && /"categories" does not exist/.test(error.message),
      );
    } finally {
      await adapter.close();
      await fresh.drop();
    }
  });
});

describe('MikroOrmAdapter.connect on a new SQLite path', () => {
  it('creates the missing folders of the file', async () => {
    const folder = join(tmpdir(), `kma_${randomBytes(6).toString('hex')}`);
    const adapter = await MikroOrmAdapter.connect({
      url: `sqlite:${folder}/nested/app.db`,
      entities,
      schema: 'create',
    });
    try {
      await adapter.create(adapter.openSession(), fixtureModels.Person, { name: 'first' });
      assert.ok(existsSync(join(folder, 'nested', 'app.db')));
    } finally {
      await adapter.close();
      await rm(folder, { recursive: true, force: true });
    }
  });
});

for (const target of serverTargets()) {
  describe(`test databases on ${target}`, await requireTarget(target), () => {
    it("starts again and again with schema: 'update', a json column included, with nothing left to alter", async () => {
      const db = await createTestDatabase(target);
      const gadget = new EntitySchema<{ id: number; specs?: unknown; note?: string }>({
        name: 'Gadget',
        properties: {
          id: { type: 'integer', primary: true },
          specs: { type: 'json', nullable: true },
          note: { type: 'string', nullable: true },
        },
      });
      try {
        for (let start = 1; start <= 3; start++) {
          const adapter = await MikroOrmAdapter.connect({
            url: db.url,
            entities: [gadget],
            schema: 'update',
          });
          try {
            // MikroORM's own diff of the tables it made is empty (MariaDB: its MariaDbDriver reads the
            // CHECK it names after a json column, which MySqlDriver would try to drop, and fail).
            assert.equal(
              (await adapter.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim(),
              '',
              `start ${start}`,
            );
          } finally {
            await adapter.close();
          }
        }
      } finally {
        await db.drop();
      }
    });

    if (target === 'mariadb')
      it("warns once when a mysql:// URL reaches a MariaDB server (MikroORM's MySqlDriver misreads its schema)", async () => {
        const db = await createTestDatabase(target);
        const warnings: string[] = [];
        const listen = (warning: Error & { code?: string }) => warnings.push(warning.code ?? '');
        process.on('warning', listen);
        try {
          for (let start = 1; start <= 2; start++) {
            const adapter = await MikroOrmAdapter.connect({
              url: db.url.replace(/^mariadb:/, 'mysql:'),
              entities,
            });
            await adapter.close();
          }
          // Warnings are emitted on the next tick.
          await new Promise((resolve) => setImmediate(resolve));
          assert.deepEqual(
            warnings.filter((code) => code === 'KMA_MYSQL_URL_ON_MARIADB'),
            ['KMA_MYSQL_URL_ON_MARIADB'],
          );
        } finally {
          process.off('warning', listen);
          await db.drop();
        }
      });

    it('are fresh, uniquely named, and gone after drop()', async () => {
      const [first, second] = [await createTestDatabase(target), await createTestDatabase(target)];
      assert.notEqual(first.url, second.url);
      const name = first.url.split(/[/:]/).pop() ?? '';
      const observer = await MikroOrmAdapter.connect({ url: second.url, entities });
      const exists = async () => {
        const sql = {
          'sqlite-file': () => (existsSync(first.url.slice('sqlite:'.length)) ? [1] : []),
          postgresql: () =>
            observer.orm.em.getConnection().execute('select 1 from pg_database where datname = ?', [name]),
          mariadb: () =>
            observer.orm.em
              .getConnection()
              .execute('select 1 from information_schema.schemata where schema_name = ?', [name]),
        }[target as 'sqlite-file' | 'postgresql' | 'mariadb'];
        return ((await sql()) as unknown[]).length > 0;
      };
      try {
        const adapter = await MikroOrmAdapter.connect({ url: first.url, entities, schema: 'create' });
        assert.equal((await adapter.list(adapter.openSession(), fixtureModels.Person, listAll)).total, 0);
        await adapter.close();
        assert.equal(await exists(), true);
        await first.drop();
        assert.equal(await exists(), false);
      } finally {
        await observer.close();
        await second.drop();
      }
    });
  });
}

describe('schema helpers', () => {
  it('drop, create and update the tables of every entity', async () => {
    const adapter = await MikroOrmAdapter.connect({ url: 'sqlite::memory:', entities, schema: 'create' });
    const session = () => adapter.openSession();
    try {
      await adapter.create(session(), fixtureModels.Person, { name: 'before' });
      await adapter.dropSchema();
      // A missing table is a configuration mistake naming the table (a 500 to the client, logged).
      await assert.rejects(
        adapter.list(session(), fixtureModels.Person, listAll),
        (error: unknown) =>
          error instanceof ConfigurationError && /"people" does not exist/.test(error.message),
      );
      await adapter.createSchema();
      assert.equal((await adapter.list(session(), fixtureModels.Person, listAll)).total, 0);
      await adapter.updateSchema();
      await adapter.create(session(), fixtureModels.Person, { name: 'after' });
      assert.equal((await adapter.list(session(), fixtureModels.Person, listAll)).total, 1);
    } finally {
      await adapter.close();
    }
  });
});
