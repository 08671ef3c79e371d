/** How memory declarations of relations become descriptions, and which ones are refused. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defineMemoryModel,
  MemoryAdapter,
  type MemoryCollectionDeclaration,
  type MemoryModelDeclaration,
} from '../../../adapters/memory/index.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { Author, Book, Category, createConformanceMemoryAdapter, Gadget, Tag } from './conformance-models.js';

const ID = { type: 'integer', primary: true, generated: true } as const;

function refused(models: MemoryModelDeclaration[], message: RegExp): void {
  assert.throws(
    () => new MemoryAdapter({ models }),
    (error: unknown) => error instanceof ConfigurationError && message.test(error.message),
    `expected a ConfigurationError matching ${message}`,
  );
}

describe('MemoryAdapter.describe of relations', () => {
  const adapter = createConformanceMemoryAdapter();

  it('describes many-to-one fields with their target model, nullable or not', () => {
    const book = adapter.describe(Book);
    assert.deepEqual(book.fieldsByName.get('category')?.relation, {
      kind: 'many-to-one',
      target: 'Category',
      targetModel: Category,
      targetKey: 'id',
    });
    assert.deepEqual(
      [book.fieldsByName.get('category')?.nullable, book.fieldsByName.get('category')?.required],
      [true, false],
    );
    assert.equal(book.fieldsByName.get('author')?.relation?.targetModel, Author);
  });

  it('lists one-to-many and both sides of a many-to-many as collections, never as fields', () => {
    assert.deepEqual(adapter.describe(Author).collections, [
      {
        name: 'books',
        kind: 'one-to-many',
        target: 'Book',
        targetModel: Book,
        targetKey: 'id',
        targetKeyType: 'integer',
        inverseField: 'author',
        writable: false,
      },
    ]);
    assert.deepEqual(adapter.describe(Book).collections, [
      {
        name: 'tags',
        kind: 'many-to-many',
        target: 'Tag',
        targetModel: Tag,
        targetKey: 'id',
        targetKeyType: 'integer',
        writable: true,
      },
    ]);
    assert.deepEqual(adapter.describe(Tag).collections, [
      {
        name: 'books',
        kind: 'many-to-many',
        target: 'Book',
        targetModel: Book,
        targetKey: 'id',
        targetKeyType: 'integer',
        writable: false,
      },
    ]);
    assert.deepEqual(
      adapter.describe(Book).fields.map((field) => field.name),
      ['id', 'title', 'author', 'category'],
    );
    assert.equal(adapter.describe(Tag).fieldsByName.has('books'), false);
    assert.equal(adapter.describe(Gadget).collections, undefined, 'no collections, none described');
    assert.ok(Object.isFrozen(adapter.describe(Book)) && Object.isFrozen(adapter.describe(Book).collections));
  });

  it('gives a collection the type of the target key (string keys here)', () => {
    class Shelf extends FrameworkModel {}
    class Label extends FrameworkModel {}
    const memory = new MemoryAdapter({
      models: [
        defineMemoryModel(
          Shelf,
          { id: ID },
          { collections: { labels: { kind: 'many-to-many', target: () => Label } } },
        ),
        defineMemoryModel(Label, { code: { type: 'string', primary: true } }),
      ],
    });
    const [labels] = memory.describe(Shelf).collections ?? [];
    assert.deepEqual([labels?.targetKey, labels?.targetKeyType], ['code', 'string']);
  });
});

describe('MemoryAdapter relation declarations refused with ConfigurationError', () => {
  class Owner extends FrameworkModel {}
  class Item extends FrameworkModel {}
  class Stranger extends FrameworkModel {}

  /** Owner with one collection, Item with a many-to-one `owner` and a scalar `name`. */
  function models(
    collection: MemoryCollectionDeclaration,
    itemCollections: Record<string, MemoryCollectionDeclaration> = {},
  ): MemoryModelDeclaration[] {
    return [
      defineMemoryModel(Owner, { id: ID }, { collections: { items: collection } }),
      defineMemoryModel(
        Item,
        { id: ID, name: { type: 'string' }, owner: { relation: { target: Owner } } },
        { collections: itemCollections },
      ),
      defineMemoryModel(Stranger, { id: ID, owner: { relation: { target: Owner } } }),
    ];
  }

  it('a target that is not declared', () => {
    class Missing extends FrameworkModel {}
    refused(
      models({ kind: 'one-to-many', target: Missing, inverseField: 'owner' }),
      /^Owner\.items: the related model Missing is not declared/,
    );
    refused(
      models({ kind: 'many-to-many', target: () => Missing }),
      /^Owner\.items: .*Missing is not declared/,
    );
  });

  it('a one-to-many whose inverse field is missing, scalar, or points elsewhere', () => {
    refused(
      models({ kind: 'one-to-many', target: Item, inverseField: 'nope' }),
      /^Owner\.items: inverseField "nope" is not a many-to-one field of Item pointing to Owner/,
    );
    refused(
      models({ kind: 'one-to-many', target: Item, inverseField: 'name' }),
      /^Owner\.items: inverseField "name"/,
    );
    class Node extends FrameworkModel {}
    refused(
      [
        ...models({ kind: 'one-to-many', target: Item, inverseField: 'owner' }),
        defineMemoryModel(
          Node,
          { id: ID },
          { collections: { items: { kind: 'one-to-many', target: Item, inverseField: 'owner' } } },
        ),
      ],
      /^Node\.items: inverseField "owner" is not a many-to-one field of Item pointing to Node/,
    );
  });

  it('an inverse many-to-many naming a missing, non-owning or foreign collection', () => {
    refused(
      models({ kind: 'many-to-many', target: Item, mappedBy: 'owners' }),
      /^Owner\.items: mappedBy "owners" is not an owning many-to-many collection of Item pointing to Owner/,
    );
    refused(
      models(
        { kind: 'many-to-many', target: Item, mappedBy: 'owners' },
        { owners: { kind: 'many-to-many', target: Owner, mappedBy: 'items' } },
      ),
      /^(Owner|Item)\.(items|owners): mappedBy/,
    );
    refused(
      models(
        { kind: 'many-to-many', target: Item, mappedBy: 'others' },
        { others: { kind: 'many-to-many', target: Stranger } },
      ),
      /^Owner\.items: mappedBy "others"/,
    );
  });

  it('a collection named like a field, with a dot, or of an unknown kind', () => {
    class Clash extends FrameworkModel {}
    refused(
      [
        defineMemoryModel(
          Clash,
          { id: ID, tags: { type: 'string' } },
          { collections: { tags: { kind: 'many-to-many', target: () => Clash } } },
        ),
      ],
      /^Model Clash: collection "tags" has the name of a field/,
    );
    refused(
      [
        defineMemoryModel(
          Clash,
          { id: ID },
          { collections: { 'a.b': { kind: 'many-to-many', target: () => Clash } } },
        ),
      ],
      /^Model Clash: collection "a\.b" has an empty name or one with a dot/,
    );
    const odd = { kind: 'one-to-one', target: Clash } as unknown as MemoryCollectionDeclaration;
    refused(
      [defineMemoryModel(Clash, { id: ID }, { collections: { odd } })],
      /^Clash\.odd: unknown collection kind "one-to-one"/,
    );
  });

  it('accepts a self-referencing many-to-many with its inverse side', () => {
    class Person extends FrameworkModel {}
    const memory = new MemoryAdapter({
      models: [
        defineMemoryModel(
          Person,
          { id: ID },
          {
            collections: {
              follows: { kind: 'many-to-many', target: () => Person },
              followers: { kind: 'many-to-many', target: () => Person, mappedBy: 'follows' },
            },
          },
        ),
      ],
    });
    assert.deepEqual(
      memory.describe(Person).collections?.map((collection) => [collection.name, collection.writable]),
      [
        ['follows', true],
        ['followers', false],
      ],
    );
  });
});
