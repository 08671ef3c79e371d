/** How memory declarations become model descriptions, and which declarations are refused. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defineMemoryModel,
  MemoryAdapter,
  type MemoryModelDeclaration,
} from '../../../adapters/memory/index.js';
import { AuthMixin } from '../../../lib/auth/auth-mixin.js';
import { ConfigurationError } from '../../../lib/errors.js';
import {
  FrameworkModel,
  MIXIN_FIELDS,
  type MixinFieldSpec,
  PROTECTED_FIELDS,
} from '../../../lib/model/framework-model.js';
import {
  Author,
  Book,
  Box,
  Country,
  createConformanceMemoryAdapter,
  Gadget,
  Tag,
} from './conformance-models.js';

const ID = { type: 'integer', primary: true, generated: true } as const;

function refused(models: MemoryModelDeclaration[], message: RegExp): void {
  assert.throws(
    () => new MemoryAdapter({ models }),
    (error: unknown) => error instanceof ConfigurationError && message.test(error.message),
  );
}

describe('MemoryAdapter.describe', () => {
  const adapter = createConformanceMemoryAdapter();

  it('derives tables from the class name, and __tablename__ wins', () => {
    assert.equal(adapter.describe(Gadget).table, 'gadgets');
    assert.equal(adapter.describe(Box).resource, 'boxes');
    assert.equal(adapter.describe(Tag).table, 'labels');
  });

  it('describes each field with the flags the core needs', () => {
    const gadget = adapter.describe(Gadget);
    assert.equal(gadget.primaryKey, 'id');
    const id = gadget.fieldsByName.get('id');
    assert.deepEqual([id?.generated, id?.writable, id?.required, id?.primary], [true, false, false, true]);
    const name = gadget.fieldsByName.get('name');
    assert.deepEqual(
      [name?.required, name?.unique, name?.maxLength, name?.nullable],
      [true, true, 100, false],
    );
    const quantity = gadget.fieldsByName.get('quantity');
    assert.deepEqual([quantity?.required, quantity?.hasDefault, quantity?.default], [false, true, 0]);
    assert.deepEqual(gadget.fieldsByName.get('color')?.enumValues, ['red', 'green', 'blue']);
    assert.equal(gadget.fieldsByName.get('secret')?.hidden, true);
    assert.equal(gadget.fieldsByName.get('description')?.required, false, 'nullable fields are optional');
    assert.deepEqual(
      gadget.fields.map((field) => field.name),
      [
        'id',
        'name',
        'description',
        'quantity',
        'price',
        'rating',
        'active',
        'released',
        'updated_at',
        'alarm',
        'metadata',
        'color',
        'serial',
        'secret',
      ],
      'declaration order',
    );
    assert.ok(Object.isFrozen(gadget) && Object.isFrozen(gadget.fields[0]));
  });

  it('gives a relation the type of the referenced key and names its target', () => {
    const author = adapter.describe(Book).fieldsByName.get('author');
    assert.equal(author?.type, 'integer');
    assert.equal(author?.required, true);
    assert.deepEqual(author?.relation, {
      kind: 'many-to-one',
      target: 'Author',
      targetModel: Author,
      targetKey: 'id',
    });
  });

  it('makes a natural key writable and a generated one not', () => {
    assert.equal(adapter.describe(Country).fieldsByName.get('code')?.writable, true);
    assert.equal(adapter.describe(Box).fieldsByName.get('id')?.writable, false);
  });

  it('refuses a model it was not given, at registration', () => {
    class Stranger extends FrameworkModel {}
    assert.throws(() => adapter.describe(Stranger), ConfigurationError);
  });

  it('adds the columns of [MIXIN_FIELDS] and applies [PROTECTED_FIELDS]; own declarations win', () => {
    const mixinFields: Record<string, MixinFieldSpec> = {
      hashed_password: { type: 'string', nullable: false, hidden: true, length: 255 },
      is_admin: { type: 'boolean', nullable: false, hidden: false, default: false },
    };
    class User extends FrameworkModel {
      static [MIXIN_FIELDS] = mixinFields;
      static [PROTECTED_FIELDS] = ['hashed_password', 'is_admin'];
    }
    class Member extends User {}
    const memory = new MemoryAdapter({
      models: [
        defineMemoryModel(User, { id: ID, username: { type: 'string', unique: true } }),
        defineMemoryModel(Member, { id: ID, is_admin: { type: 'boolean', default: true } }),
      ],
    });
    const user = memory.describe(User);
    assert.deepEqual(
      user.fields.map((field) => field.name),
      ['id', 'username', 'hashed_password', 'is_admin'],
    );
    const hashed = user.fieldsByName.get('hashed_password');
    assert.deepEqual(
      [hashed?.hidden, hashed?.writable, hashed?.maxLength, hashed?.required],
      [true, false, 255, true],
    );
    assert.deepEqual(
      [user.fieldsByName.get('is_admin')?.default, user.fieldsByName.get('is_admin')?.writable],
      [false, false],
    );
    assert.equal(
      memory.describe(Member).fieldsByName.get('is_admin')?.default,
      true,
      'the model’s own declaration wins',
    );
    assert.equal(memory.describe(Member).fieldsByName.get('is_admin')?.writable, false, 'still protected');
  });

  it('accepts relation targets as thunks (cycles, later declarations) and documents only static defaults', () => {
    class Node extends FrameworkModel {}
    const memory = new MemoryAdapter({
      models: [
        defineMemoryModel(
          Node,
          {
            id: ID,
            parent: { relation: { target: () => Node }, nullable: true },
            created: { type: 'datetime', default: () => new Date() },
            tags: { type: 'json', default: ['a'] },
          },
          { table: 'tree_nodes' },
        ),
      ],
    });
    const node = memory.describe(Node);
    assert.equal(node.table, 'tree_nodes');
    assert.equal(node.fieldsByName.get('parent')?.relation?.targetModel, Node);
    assert.deepEqual(
      [node.fieldsByName.get('created')?.hasDefault, 'default' in (node.fieldsByName.get('created') ?? {})],
      [true, false],
    );
    assert.deepEqual(node.fieldsByName.get('tags')?.default, ['a']);
  });
});

describe('MemoryAdapter declarations refused with ConfigurationError', () => {
  class Thing extends FrameworkModel {}
  class Other extends FrameworkModel {}

  it('no primary key, or two', () => {
    refused([defineMemoryModel(Thing, { name: { type: 'string' } })], /no primary key/);
    refused(
      [defineMemoryModel(Thing, { a: ID, b: { type: 'string', primary: true } })],
      /composite primary key/,
    );
  });

  it('an enum without values, maxLength on a number, generation of a string, a json key', () => {
    refused([defineMemoryModel(Thing, { id: ID, c: { type: 'enum' } })], /enumValues/);
    refused([defineMemoryModel(Thing, { id: ID, n: { type: 'integer', maxLength: 3 } })], /maxLength/);
    refused(
      [defineMemoryModel(Thing, { id: { type: 'string', primary: true, generated: true } })],
      /generated/,
    );
    refused([defineMemoryModel(Thing, { id: { type: 'json', primary: true } })], /primary key must be/);
    refused(
      [defineMemoryModel(Thing, { id: { type: 'integer', primary: true, nullable: true } })],
      /cannot be nullable/,
    );
  });

  it('a default that does not fit its field', () => {
    refused(
      [defineMemoryModel(Thing, { id: ID, n: { type: 'integer', default: 'x' } })],
      /Thing\.n: the default must be an integer/,
    );
    refused(
      [defineMemoryModel(Thing, { id: ID, c: { type: 'enum', enumValues: ['a'], default: 'b' } })],
      /must be one of a/,
    );
  });

  it('a relation to an undeclared model, and a model declared twice', () => {
    refused(
      [defineMemoryModel(Thing, { id: ID, other: { relation: { target: Other } } })],
      /Other is not declared/,
    );
    refused(
      [defineMemoryModel(Thing, { id: ID, other: { relation: { target: () => Other } } })],
      /Other is not declared/,
    );
    refused([defineMemoryModel(Thing, { id: ID }), defineMemoryModel(Thing, { id: ID })], /declared twice/);
  });
});

describe('mixin columns with omitWhenDeclared', () => {
  it('leaves out is_admin when the model declares is_staff itself', () => {
    class Staffer extends AuthMixin(FrameworkModel) {}
    const adapter = new MemoryAdapter({
      models: [
        defineMemoryModel(Staffer, {
          id: { type: 'integer', primary: true, generated: true },
          username: { type: 'string', unique: true },
          is_staff: { type: 'boolean', default: false },
        }),
      ],
    });
    const names = adapter.describe(Staffer).fields.map((field) => field.name);
    assert.ok(names.includes('is_staff'));
    assert.ok(names.includes('hashed_password'));
    assert.equal(names.includes('is_admin'), false);
  });
});
