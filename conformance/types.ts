/**
 * What an adapter author provides to run the conformance suite: a target that builds a fresh,
 * empty schema with the eight conformance models, mapped by their ORM.
 */
import type { ModelClass, OrmAdapter } from '../lib/index.js';
import type { ConformanceCaseName } from './names.js';

/**
 * The eight model classes of the suite, mapped by the target's ORM. Every class extends
 * `FrameworkModel`; shapes (JSON keys = property names):
 * - `Gadget` → table `gadgets`: `id` integer auto-increment pk; `name` string(100) required unique;
 *   `description` text nullable; `quantity` integer default 0; `price` decimal(10,2) nullable;
 *   `rating` number (double) nullable; `active` boolean default true; `released` date nullable;
 *   `updated_at` datetime nullable; `alarm` time nullable; `metadata` json nullable;
 *   `color` enum `red|green|blue` default `red`; `serial` bigint nullable; `secret` string nullable hidden.
 * - `Person` → `people`: `id` integer auto-increment pk, `name` string.
 * - `Category` → `categories`: `id`, `name` string unique.
 * - `Box` → `boxes`: `id` uuid pk generated, `label` string.
 * - `Tag` with `static __tablename__ = 'labels'` → `labels`: `id`, `name` string unique;
 *   `books` the inverse (mappedBy `tags`) side of `Book.tags`: a collection, not writable.
 * - `Author` → `authors`: `id`, `name` string; `books` one-to-many, the inverse of `Book.author`
 *   (a collection with `inverseField: 'author'`, not writable).
 * - `Book` → `books`: `id`, `title` string, `author` many-to-one `Author` (required), exposed as its key;
 *   `category` many-to-one `Category`, nullable (column `category_id`), exposed as its key;
 *   `tags` many-to-many `Tag`, the owning side, writable as an array of tag keys (pivot table: the
 *   ORM's default, e.g. MikroORM's `book_tags` with `book_id` and `tag_id`).
 * - `Country` → `countries`: `code` string(2) pk given by the client on create, `name` string.
 *
 * Collections (`Author.books`, `Book.tags`, `Tag.books`) are not fields: `describe()` lists them in
 * `ModelDescription.collections` (through `ModelFacts.collections`), and the adapter implements
 * `links()` for them.
 */
export interface ConformanceModels {
  /** Most scalar field kinds, defaults, a unique and a hidden field (`gadgets`). */
  readonly Gadget: ModelClass;
  /** Irregular plural table name (`people`). */
  readonly Person: ModelClass;
  /** A unique `name` (`categories`); target of the nullable `Book.category`. */
  readonly Category: ModelClass;
  /** Generated UUID primary key (`boxes`). */
  readonly Box: ModelClass;
  /** `__tablename__ = 'labels'` overrides the plural rule; `books` is the inverse of `Book.tags`. */
  readonly Tag: ModelClass;
  /** Target of `Book.author` (`authors`); `books` is its one-to-many inverse. */
  readonly Author: ModelClass;
  /** Required many-to-one `author`, nullable many-to-one `category`, many-to-many `tags` (`books`). */
  readonly Book: ModelClass;
  /** A natural string primary key given on create (`countries`). */
  readonly Country: ModelClass;
}

/** What `setup()` hands to the suite. */
export interface ConformanceEnvironment {
  /** The adapter under test, connected to a fresh and empty schema of the eight models. */
  readonly adapter: OrmAdapter;
  /** The eight model classes, mapped by the target's ORM. */
  readonly models: ConformanceModels;
  /** Called once after the last case: close the adapter, drop the schema or database. */
  teardown(): Promise<void>;
}

/** One adapter configuration to test, e.g. MikroORM on PostgreSQL. */
export interface ConformanceTarget {
  /** Shown in test names and the summary line, e.g. `mikro-orm:postgresql`. */
  readonly name: string;
  /** Builds a fresh, empty schema (unique database name, so parallel runs never collide). */
  setup(): Promise<ConformanceEnvironment>;
  /** Cases this target does not pass, each with the reason; an empty reason is refused. */
  readonly skip?: Partial<Record<ConformanceCaseName, string>>;
}
