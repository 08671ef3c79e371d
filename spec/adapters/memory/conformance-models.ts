/**
 * The eight conformance models declared for the `MemoryAdapter`, and the memory conformance
 * target. Core unit tests may reuse `createConformanceMemoryAdapter()` for a ready-made schema.
 */
import { defineMemoryModel, MemoryAdapter } from '../../../adapters/memory/index.js';
import type { ConformanceModels, ConformanceTarget } from '../../../conformance/index.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { OrmAdapter } from '../../../lib/types.js';

const ID = { type: 'integer', primary: true, generated: true } as const;

/** Every field kind. */
export class Gadget extends FrameworkModel {}
/** Table `people` by the plural rule. */
export class Person extends FrameworkModel {}
/** Table `categories`; a unique name. */
export class Category extends FrameworkModel {}
/** Table `boxes`; a generated UUID key. */
export class Box extends FrameworkModel {}
/** Served as `labels` through `__tablename__`. */
export class Tag extends FrameworkModel {
  static override __tablename__ = 'labels';
}
/** Referenced by `Book.author`; `books` is its one-to-many inverse. */
export class Author extends FrameworkModel {}
/** A required many-to-one to `Author`, a nullable one to `Category`, and many-to-many `tags`. */
export class Book extends FrameworkModel {}
/** A natural string key given by the client. */
export class Country extends FrameworkModel {}

/** The model classes, as the conformance suite receives them. */
export const conformanceModels: ConformanceModels = {
  Gadget,
  Person,
  Category,
  Box,
  Tag,
  Author,
  Book,
  Country,
};

/** A fresh `MemoryAdapter` holding the eight conformance models. */
export function createConformanceMemoryAdapter(): MemoryAdapter {
  return new MemoryAdapter({
    models: [
      defineMemoryModel(Gadget, {
        id: ID,
        name: { type: 'string', maxLength: 100, unique: true },
        description: { type: 'text', nullable: true },
        quantity: { type: 'integer', default: 0 },
        price: { type: 'decimal', nullable: true },
        rating: { type: 'number', nullable: true },
        active: { type: 'boolean', default: true },
        released: { type: 'date', nullable: true },
        updated_at: { type: 'datetime', nullable: true },
        alarm: { type: 'time', nullable: true },
        metadata: { type: 'json', nullable: true },
        color: { type: 'enum', enumValues: ['red', 'green', 'blue'], default: 'red' },
        serial: { type: 'bigint', nullable: true },
        secret: { type: 'string', nullable: true, hidden: true },
      }),
      defineMemoryModel(Person, { id: ID, name: { type: 'string' } }),
      defineMemoryModel(Category, { id: ID, name: { type: 'string', unique: true } }),
      defineMemoryModel(Box, {
        id: { type: 'uuid', primary: true, generated: true },
        label: { type: 'string' },
      }),
      defineMemoryModel(
        Tag,
        { id: ID, name: { type: 'string', unique: true } },
        { collections: { books: { kind: 'many-to-many', target: () => Book, mappedBy: 'tags' } } },
      ),
      defineMemoryModel(
        Author,
        { id: ID, name: { type: 'string' } },
        { collections: { books: { kind: 'one-to-many', target: () => Book, inverseField: 'author' } } },
      ),
      defineMemoryModel(
        Book,
        {
          id: ID,
          title: { type: 'string' },
          author: { relation: { target: Author } },
          category: { relation: { target: Category }, nullable: true },
        },
        { collections: { tags: { kind: 'many-to-many', target: Tag } } },
      ),
      defineMemoryModel(Country, {
        code: { type: 'string', primary: true, maxLength: 2 },
        name: { type: 'string' },
      }),
    ],
  });
}

/**
 * The conformance adapter with `links` hidden, standing in for an adapter that serves no to-many
 * relations; its other methods are the memory adapter's, bound to it.
 */
export function createConformanceAdapterWithoutLinks(): OrmAdapter {
  return new Proxy(createConformanceMemoryAdapter(), {
    get(target, key) {
      if (key === 'links') return undefined;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The memory adapter as a conformance target: every case must pass, none is skipped. */
export const memoryConformanceTarget: ConformanceTarget = {
  name: 'memory',
  async setup() {
    const adapter = createConformanceMemoryAdapter();
    return { adapter, models: conformanceModels, teardown: () => adapter.close() };
  },
};
