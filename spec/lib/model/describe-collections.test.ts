/**
 * `ModelFacts.collections`: an adapter hands its to-many relations to `buildModelDescription`,
 * which checks them and lists them in the description (they were dropped before, and adapters
 * spread them onto the frozen result themselves).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../../../lib/errors.js';
import { buildModelDescription, type ModelFacts } from '../../../lib/model/describe.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { CollectionDescription } from '../../../lib/types.js';

class Author extends FrameworkModel {}
class Book extends FrameworkModel {}

const books: CollectionDescription = {
  name: 'books',
  kind: 'one-to-many',
  target: 'Book',
  targetModel: Book,
  targetKey: 'id',
  targetKeyType: 'integer',
  inverseField: 'author',
  writable: false,
};

function facts(collections: readonly CollectionDescription[]): ModelFacts {
  const key = { type: 'integer', nullable: false, required: false, hasDefault: true, unique: true } as const;
  return {
    model: Author,
    name: 'Author',
    primaryKeys: ['id'],
    fields: [
      { name: 'id', ...key, hidden: false, generated: true },
      {
        name: 'name',
        type: 'string',
        nullable: false,
        required: true,
        hasDefault: false,
        unique: false,
        hidden: false,
        generated: false,
      },
    ],
    collections,
  };
}

describe('ModelFacts.collections', () => {
  it('lists the collections in the description, frozen', () => {
    const description = buildModelDescription(facts([books]));
    assert.deepEqual(description.collections, [books]);
    assert.ok(Object.isFrozen(description.collections));
    assert.ok(Object.isFrozen(description.collections?.[0]));
    assert.equal(description.fieldsByName.has('books'), false, 'a collection is no field');
  });

  it('leaves collections out when there are none', () => {
    assert.equal('collections' in buildModelDescription(facts([])), false);
  });

  it('refuses what the core cannot serve, naming the model and the collection', () => {
    const refused: [Partial<CollectionDescription>, RegExp][] = [
      [{ name: 'a.b' }, /collection "a\.b" has an empty name or one with a dot/],
      [{ name: 'name' }, /collection "name" has the name of a field/],
      [{ kind: 'one-to-one' as never }, /has the kind "one-to-one"/],
      [{ inverseField: undefined }, /one-to-many without inverseField/],
      [{ writable: true }, /one-to-many and writable/],
      [{ kind: 'many-to-many' }, /many-to-many with an inverseField/],
      [{ targetModel: undefined as never }, /no targetModel/],
      [{ targetKeyType: 'object' }, /object targetKeyType/],
    ];
    for (const [change, message] of refused) {
      assert.throws(
        () => buildModelDescription(facts([{ ...books, ...change }])),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          /^Model Author: /.test(error.message) &&
          message.test(error.message),
        JSON.stringify(change),
      );
    }
    assert.throws(() => buildModelDescription(facts([books, books])), /collection "books" is given twice/);
  });
});
