/**
 * A library of related models for the OpenAPI relation tests, declared to the `MemoryAdapter`:
 * Author ← Book (many-to-one `author`, nullable many-to-one `category`) and Book ↔ Tag
 * (many-to-many `tags`, inverse `books`), with Author's one-to-many `books`. The routers'
 * `relations` are resolved as the CRUD router resolves them: every relation whose target model has
 * routes too.
 */
import { defineMemoryModel, MemoryAdapter } from '../../../adapters/memory/index.js';
import type { IncludableRelation } from '../../../lib/model/relations.js';
import type { CrudRoutesDoc } from '../../../lib/openapi/types.js';
import type { CollectionDescription, ModelClass, ModelDescription } from '../../../lib/types.js';
import { crudDoc } from './fixtures.js';

/** `authors`: a name, and an email the model hides. */
export class Author {}
/** `books`: a title, its author and an optional category. */
export class Book {}
/** `categories`: a unique name. */
export class Category {}
/** `tags`: a unique name. */
export class Tag {}

/** The four models, declared as an ORM mapping would declare them. */
export function libraryAdapter(): MemoryAdapter {
  const id = { type: 'integer', primary: true, generated: true } as const;
  return new MemoryAdapter({
    models: [
      defineMemoryModel(Author, {
        id,
        name: { type: 'string' },
        email: { type: 'string', hidden: true, nullable: true },
        born: { type: 'date', nullable: true },
        notes: { type: 'json', nullable: true },
      }),
      defineMemoryModel(Book, {
        id,
        title: { type: 'string' },
        author: { relation: { target: Author } },
        category: { relation: { target: Category }, nullable: true },
      }),
      defineMemoryModel(Category, { id, name: { type: 'string', unique: true } }),
      defineMemoryModel(Tag, { id, name: { type: 'string', unique: true } }),
    ],
  });
}

/** A to-many relation of the library, as an adapter describes it. */
function collection(
  name: string,
  kind: CollectionDescription['kind'],
  target: ModelClass,
  extra: Partial<CollectionDescription> = {},
): CollectionDescription {
  return {
    name,
    kind,
    target: target.name,
    targetModel: target,
    targetKey: 'id',
    targetKeyType: 'integer',
    writable: false,
    ...extra,
  };
}

/** The collections of each model (used until the memory adapter describes them itself). */
const COLLECTIONS: ReadonlyMap<ModelClass, readonly CollectionDescription[]> = new Map([
  [Author, [collection('books', 'one-to-many', Book, { inverseField: 'author' })]],
  [Book, [collection('tags', 'many-to-many', Tag, { writable: true })]],
  [Tag, [collection('books', 'many-to-many', Book)]],
]);

/** The model's description, with its collections. */
export function libraryDescription(adapter: MemoryAdapter, model: ModelClass): ModelDescription {
  const description = adapter.describe(model);
  if (description.collections !== undefined && description.collections.length > 0) return description;
  return { ...description, collections: COLLECTIONS.get(model) ?? [] };
}

/** The includable relations of a model: those whose target has one of `docs`. */
function relationsOf(
  description: ModelDescription,
  docs: ReadonlyMap<ModelClass, CrudRoutesDoc>,
): IncludableRelation[] {
  const served = (model: ModelClass) => docs.get(model)?.description;
  const nested = (target: ModelDescription) => () => relationsOf(target, docs);
  const relations: IncludableRelation[] = [];
  for (const field of description.fields) {
    const model = field.relation?.targetModel;
    const target = model === undefined ? undefined : served(model);
    if (target !== undefined) {
      relations.push({ name: field.name, kind: 'many-to-one', target, field, nested: nested(target) });
    }
  }
  for (const item of description.collections ?? []) {
    const target = served(item.targetModel);
    if (target !== undefined) {
      relations.push({ name: item.name, kind: item.kind, target, collection: item, nested: nested(target) });
    }
  }
  return relations;
}

/**
 * The routers of the given models, in that order, each with its relations resolved against the
 * others; `overrides` sets a router's options by model.
 */
export function libraryDocs(
  models: readonly ModelClass[],
  overrides: ReadonlyMap<ModelClass, Partial<CrudRoutesDoc>> = new Map(),
): CrudRoutesDoc[] {
  const adapter = libraryAdapter();
  const docs = new Map<ModelClass, CrudRoutesDoc>();
  for (const model of models) {
    const description = libraryDescription(adapter, model);
    docs.set(
      model,
      crudDoc(description, { relations: () => relationsOf(description, docs), ...overrides.get(model) }),
    );
  }
  return [...docs.values()];
}
