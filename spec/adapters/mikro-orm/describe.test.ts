import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ConfigurationError } from '../../../lib/errors.js';
import type { FieldDescription, ModelClass, ModelDescription } from '../../../lib/types.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';
import * as extra from '../../fixtures/mikro-orm/introspection.js';

let adapter: MikroOrmAdapter;

before(async () => {
  adapter = await MikroOrmAdapter.connect({
    url: 'sqlite::memory:',
    entities: [...mikroOrmFixtureEntities, ...extra.introspectionEntities],
  });
});
after(() => adapter.close());

function field(model: ModelClass, name: string): FieldDescription {
  const found = adapter.describe(model).fieldsByName.get(name);
  assert.ok(found, `${model.name}.${name} is described`);
  return found;
}

/** The parts of a field the tests compare (booleans default to false). */
function shape(found: FieldDescription): Record<string, unknown> {
  const { relation, ...rest } = found;
  return {
    ...rest,
    ...(relation === undefined ? {} : { relation: { ...relation, targetModel: relation.targetModel?.name } }),
  };
}

describe('MikroOrmAdapter.describe: field kinds of Gadget', () => {
  const base = {
    nullable: false,
    required: false,
    hasDefault: false,
    unique: false,
    hidden: false,
    primary: false,
    generated: false,
    writable: true,
  };
  const expected: Record<string, Record<string, unknown>> = {
    id: { ...base, type: 'integer', primary: true, generated: true, hasDefault: true, writable: false },
    name: { ...base, type: 'string', required: true, unique: true, maxLength: 100 },
    description: { ...base, type: 'text', nullable: true },
    quantity: { ...base, type: 'integer', hasDefault: true, default: 0 },
    price: { ...base, type: 'decimal', nullable: true },
    rating: { ...base, type: 'number', nullable: true },
    active: { ...base, type: 'boolean', hasDefault: true, default: true },
    released: { ...base, type: 'date', nullable: true },
    updated_at: { ...base, type: 'datetime', nullable: true },
    alarm: { ...base, type: 'time', nullable: true },
    metadata: { ...base, type: 'json', nullable: true },
    color: { ...base, type: 'enum', hasDefault: true, default: 'red', enumValues: ['red', 'green', 'blue'] },
    serial: { ...base, type: 'bigint', nullable: true },
    secret: { ...base, type: 'string', nullable: true, hidden: true, maxLength: 255 },
  };

  for (const [name, want] of Object.entries(expected)) {
    it(`${name}: ${String(want.type)}`, () => {
      assert.deepEqual(shape(field(fixtureModels.Gadget, name)), { name, ...want });
    });
  }

  it('lists exactly the declared columns, in declaration order, with id as the key', () => {
    const description = adapter.describe(fixtureModels.Gadget);
    assert.deepEqual(
      description.fields.map((f) => f.name),
      Object.keys(expected),
    );
    assert.equal(description.primaryKey, 'id');
    assert.equal(description.name, 'Gadget');
  });
});

describe('MikroOrmAdapter.describe: other kinds', () => {
  it('maps smallint and tinyint to integer, float to number, reflected Date and number, fixed-length strings', () => {
    assert.equal(field(extra.Sample, 'small').type, 'integer');
    assert.equal(field(extra.Sample, 'tiny').type, 'integer');
    assert.equal(field(extra.Sample, 'ratio').type, 'number');
    assert.equal(field(extra.Sample, 'happenedAt').type, 'datetime');
    assert.equal(field(extra.Sample, 'count').type, 'integer');
    assert.deepEqual(
      [field(extra.Sample, 'code').type, field(extra.Sample, 'code').maxLength],
      ['string', 3],
    );
  });

  it('describes a bigint key as a generated bigint and a version column as not writable', () => {
    assert.deepEqual([field(extra.Sample, 'id').type, field(extra.Sample, 'id').generated], ['bigint', true]);
    const version = field(extra.Sample, 'version');
    assert.deepEqual([version.writable, version.hasDefault, version.required], [false, true, false]);
  });

  it('treats an ORM-side initialiser as a default, not as a client requirement', () => {
    const createdAt = field(extra.BlogPost, 'createdAt');
    assert.deepEqual(
      [createdAt.hasDefault, createdAt.required, createdAt.writable, 'default' in createdAt],
      [true, false, true, false],
    );
  });

  it('describes a many-to-one relation as the referenced key, with its target', () => {
    assert.deepEqual(shape(field(fixtureModels.Book, 'author')), {
      name: 'author',
      type: 'integer',
      nullable: false,
      required: true,
      hasDefault: false,
      unique: false,
      hidden: false,
      primary: false,
      generated: false,
      writable: true,
      relation: { kind: 'many-to-one', target: 'Author', targetModel: 'Author', targetKey: 'id' },
    });
    const sample = field(extra.Ticket, 'sample');
    assert.deepEqual(
      [sample.type, sample.nullable, sample.required, sample.relation?.target],
      ['bigint', true, false, 'Sample'],
    );
  });

  it('describes a UUID key the ORM generates (initialiser or onCreate) as generated and not writable', () => {
    for (const model of [fixtureModels.Box, extra.Ticket]) {
      const id = field(model, 'id');
      assert.deepEqual(
        [id.type, id.primary, id.generated, id.writable, id.required],
        ['uuid', true, true, false, false],
        model.name,
      );
    }
  });

  it('describes a natural key the client gives as writable and required', () => {
    const code = field(fixtureModels.Country, 'code');
    assert.deepEqual(
      [code.type, code.primary, code.generated, code.writable, code.required, code.maxLength],
      ['string', true, false, true, true, 2],
    );
  });

  it('describes ES-decorator and defineEntity models like legacy ones', () => {
    assert.deepEqual(
      adapter.describe(fixtureModels.Person).fields.map((f) => [f.name, f.type, f.required]),
      [
        ['id', 'integer', false],
        ['name', 'string', true],
      ],
    );
    assert.deepEqual(
      adapter.describe(fixtureModels.Country).fields.map((f) => f.name),
      ['code', 'name'],
    );
  });
});

describe('MikroOrmAdapter.describe: table names', () => {
  const tables: [ModelClass, string][] = [
    [fixtureModels.Gadget, 'gadgets'],
    [fixtureModels.Person, 'people'],
    [fixtureModels.Category, 'categories'],
    [fixtureModels.Box, 'boxes'],
    [fixtureModels.Tag, 'labels'],
    [fixtureModels.Author, 'authors'],
    [fixtureModels.Book, 'books'],
    [fixtureModels.Country, 'countries'],
    [extra.BlogPost, 'blog_posts'],
    [extra.LegacyThing, 'legacy_thing'],
  ];
  for (const [model, table] of tables) {
    it(`${model.name} → ${table}, in the description and in MikroORM's metadata`, () => {
      const description = adapter.describe(model);
      assert.equal(description.table, table);
      assert.equal(description.resource, table);
      assert.equal(adapter.orm.getMetadata().get(model).tableName, table);
    });
  }

  it('keeps join columns singular', () => {
    assert.deepEqual(adapter.orm.getMetadata().get(fixtureModels.Book).properties.author.fieldNames, [
      'author_id',
    ]);
  });
});

describe('MikroOrmAdapter.describe: mixin columns', () => {
  const mixinShape = (model: ModelClass) =>
    adapter
      .describe(model)
      .fields.filter((f) => ['password_hash', 'is_admin', 'login_count', 'last_login'].includes(f.name))
      .map((f) => shape(f));
  const expected = [
    {
      name: 'password_hash',
      type: 'string',
      nullable: false,
      required: true,
      hasDefault: false,
      unique: false,
      hidden: true,
      primary: false,
      generated: false,
      maxLength: 200,
      writable: false,
    },
    {
      name: 'is_admin',
      type: 'boolean',
      nullable: false,
      required: false,
      hasDefault: true,
      default: false,
      unique: false,
      hidden: false,
      primary: false,
      generated: false,
      writable: false,
    },
    {
      name: 'login_count',
      type: 'integer',
      nullable: false,
      required: false,
      hasDefault: true,
      default: 0,
      unique: false,
      hidden: false,
      primary: false,
      generated: false,
      writable: true,
    },
    {
      name: 'last_login',
      type: 'datetime',
      nullable: true,
      required: false,
      hasDefault: false,
      unique: false,
      hidden: false,
      primary: false,
      generated: false,
      writable: true,
    },
  ];

  for (const model of [extra.Member, extra.DefinedMember, extra.EsMember]) {
    it(`adds the mixin's columns to ${model.name}`, () => {
      assert.deepEqual(mixinShape(model), expected);
      const columns = adapter.orm.getMetadata().get(model).properties;
      assert.deepEqual((columns as Record<string, { fieldNames: string[] }>).password_hash?.fieldNames, [
        'password_hash',
      ]);
    });
  }

  it('leaves is_admin out when the model declares is_staff', () => {
    const names = adapter.describe(extra.StaffMember).fields.map((f) => f.name);
    assert.ok(names.includes('is_staff') && !names.includes('is_admin'), names.join(','));
    assert.equal(field(extra.StaffMember, 'is_staff').writable, false, 'a protected field of the mixin');
  });

  it("lets the model's own declaration win over the mixin's", () => {
    const own = field(extra.OverridingMember, 'password_hash');
    assert.deepEqual([own.maxLength, own.nullable, own.hidden], [60, true, false]);
  });
});

describe('MikroOrmAdapter.describe: refusals and caching', () => {
  it('refuses a composite primary key with a clear ConfigurationError', () => {
    assert.throws(
      () => adapter.describe(extra.Enrollment),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.match(error.message, /Enrollment has a composite primary key \(student, course\)/);
        return true;
      },
    );
  });

  it('refuses a class that is not an entity of the ORM', () => {
    class Stranger {}
    assert.throws(() => adapter.describe(Stranger), /Stranger is not an entity of this MikroORM instance/);
  });

  it('returns the same frozen description every time', () => {
    const first: ModelDescription = adapter.describe(fixtureModels.Gadget);
    assert.equal(adapter.describe(fixtureModels.Gadget), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.fields));
  });
});
