import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type EntityMetadata, MikroORM, UnderscoreNamingStrategy } from '@mikro-orm/core';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { SqliteDriver } from '@mikro-orm/sqlite';
import {
  type AnyMikroORM,
  MikroOrmAdapter,
  mikroOrmOptions,
  PluralTableNamingStrategy,
} from '../../../adapters/mikro-orm/index.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';
import * as extra from '../../fixtures/mikro-orm/introspection.js';

const entities = [...mikroOrmFixtureEntities, ...extra.introspectionEntities];
const opened: AnyMikroORM[] = [];
after(() => Promise.all(opened.map((orm) => orm.close())));

async function orm(options: Parameters<typeof MikroORM.init>[0]): Promise<AnyMikroORM> {
  const instance = await MikroORM.init({
    driver: SqliteDriver,
    dbName: ':memory:',
    metadataProvider: ReflectMetadataProvider,
    entities,
    ...options,
  });
  opened.push(instance);
  return instance;
}

describe('PluralTableNamingStrategy', () => {
  const strategy = new PluralTableNamingStrategy();

  it('names tables plural snake_case unless a name is given', () => {
    assert.equal(strategy.classToTableName('BlogPost'), 'blog_posts');
    assert.equal(strategy.classToTableName('Person'), 'people');
    assert.equal(strategy.classToTableName('Box'), 'boxes');
    assert.equal(strategy.classToTableName('Person', 'humans'), 'humans');
  });

  it('keeps join key columns singular and pivot tables per owner table', () => {
    assert.equal(strategy.joinKeyColumnName('BlogPost', 'id'), 'blog_post_id');
    assert.equal(strategy.joinKeyColumnName('User'), 'user_id');
    assert.equal(strategy.joinTableName('BlogPost', 'Tag', 'tags', 'blog_posts'), 'blog_posts_tags');
    assert.equal(strategy.joinColumnName('author'), 'author_id');
  });
});

describe('mikroOrmOptions', () => {
  it('keeps a naming strategy the user chose', () => {
    assert.equal(mikroOrmOptions({}).namingStrategy, PluralTableNamingStrategy);
    assert.equal(
      mikroOrmOptions({ namingStrategy: UnderscoreNamingStrategy }).namingStrategy,
      UnderscoreNamingStrategy,
    );
  });

  it("runs the user's own onMetadata hook after its own", async () => {
    const seen: string[] = [];
    const built = await orm(
      mikroOrmOptions({
        discovery: {
          onMetadata: (meta: EntityMetadata) => {
            seen.push(`${meta.className}:${meta.tableName}`);
          },
        },
      }),
    );
    assert.ok(seen.includes('Tag:labels'), 'the hook sees __tablename__ applied');
    assert.ok(seen.includes('Gadget:gadgets'));
    assert.equal(new MikroOrmAdapter(built).describe(fixtureModels.Tag).table, 'labels');
  });
});

describe('new MikroOrmAdapter(orm) on an ORM built without mikroOrmOptions()', () => {
  it('refuses a model whose mixin columns are missing, naming them and the fix', async () => {
    const adapter = new MikroOrmAdapter(await orm({ namingStrategy: PluralTableNamingStrategy }));
    assert.throws(
      () => adapter.describe(extra.Member),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.match(
          error.message,
          /Member uses a mixin whose columns \(password_hash, is_admin, login_count, last_login\) are missing/,
        );
        assert.match(error.message, /mikroOrmOptions/);
        return true;
      },
    );
    assert.throws(
      () => adapter.describe(extra.StaffMember),
      /\(password_hash, login_count, last_login\)/,
      'is_admin is not expected where is_staff is declared',
    );
  });

  it('refuses a model whose __tablename__ was not applied', async () => {
    const adapter = new MikroOrmAdapter(await orm({ namingStrategy: PluralTableNamingStrategy }));
    assert.throws(
      () => adapter.describe(fixtureModels.Tag),
      /Tag.__tablename__ is "labels" but MikroORM maps it to "tags"/,
    );
  });

  it("refuses a table MikroORM's default strategy derived against the plural rule", async () => {
    const adapter = new MikroOrmAdapter(await orm({}));
    assert.throws(
      () => adapter.describe(fixtureModels.Gadget),
      /Gadget maps to the table "gadget" by MikroORM's UnderscoreNamingStrategy, but koa-model-api names it "gadgets".*explicit tableName.*without a namingStrategy of your own/,
    );
  });

  it("accepts an explicit tableName and a naming strategy of the user's own", async () => {
    const plain = new MikroOrmAdapter(await orm({}));
    assert.equal(plain.describe(extra.LegacyThing).table, 'legacy_thing');
    class PrefixedNamingStrategy extends UnderscoreNamingStrategy {
      override classToTableName(entityName: string, tableName?: string): string {
        return tableName ?? `app_${super.classToTableName(entityName)}`;
      }
    }
    const custom = new MikroOrmAdapter(await orm({ namingStrategy: PrefixedNamingStrategy }));
    assert.equal(custom.describe(fixtureModels.Gadget).table, 'app_gadget');
  });

  it('works like connect() when the ORM was built with mikroOrmOptions()', async () => {
    const adapter = new MikroOrmAdapter(await orm(mikroOrmOptions({})));
    assert.equal(adapter.describe(extra.Member).fieldsByName.get('password_hash')?.hidden, true);
    assert.equal(adapter.describe(fixtureModels.Person).table, 'people');
    assert.equal(adapter.name, 'mikro-orm:sqlite');
  });
});
