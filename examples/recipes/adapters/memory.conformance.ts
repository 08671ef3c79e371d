/**
 * The conformance run an adapter package keeps as a test file: it maps the eight models of the
 * suite with its ORM (here the reference `MemoryAdapter`) and hands the suite a fresh adapter.
 */
import { defineMemoryModel, MemoryAdapter } from '../../../adapters/memory/index.js';
import { type ConformanceModels, runConformanceSuite } from '../../../conformance/index.js';
import { FrameworkModel } from '../../../lib/index.js';

class Gadget extends FrameworkModel {}
class Person extends FrameworkModel {}
class Category extends FrameworkModel {}
class Box extends FrameworkModel {}
class Tag extends FrameworkModel {
  static override __tablename__ = 'labels';
}
class Author extends FrameworkModel {}
class Book extends FrameworkModel {}
class Country extends FrameworkModel {}

const models: ConformanceModels = { Gadget, Person, Category, Box, Tag, Author, Book, Country };
const id = { type: 'integer', primary: true, generated: true } as const;

runConformanceSuite({
  name: 'memory (recipe)',
  async setup() {
    // A fresh, empty store for every run; a SQL adapter creates a uniquely named database here.
    const adapter = new MemoryAdapter({
      models: [
        defineMemoryModel(Gadget, {
          id,
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
        defineMemoryModel(Person, { id, name: { type: 'string' } }),
        defineMemoryModel(Category, { id, name: { type: 'string', unique: true } }),
        defineMemoryModel(Box, {
          id: { type: 'uuid', primary: true, generated: true },
          label: { type: 'string' },
        }),
        defineMemoryModel(
          Tag,
          { id, name: { type: 'string', unique: true } },
          { collections: { books: { kind: 'many-to-many', target: () => Book, mappedBy: 'tags' } } },
        ),
        defineMemoryModel(
          Author,
          { id, name: { type: 'string' } },
          { collections: { books: { kind: 'one-to-many', target: () => Book, inverseField: 'author' } } },
        ),
        defineMemoryModel(
          Book,
          {
            id,
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
    return { adapter, models, teardown: () => adapter.close() };
  },
  // A case may be skipped only with a reason, e.g. by an adapter without links():
  // skip: { 'include-depth-2': 'no links(): the adapter serves no to-many relations' },
});
