/**
 * How a model is declared to the `MemoryAdapter`: there is no ORM metadata to read, so each model
 * class comes with a field declaration (and its to-many collections) that says what an ORM
 * mapping would say.
 */
import type { FieldType, ModelClass } from '../../lib/types.js';

/** A JSON value, as a `json` field stores it and as a static default may be written. */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | readonly JsonValue[]
  | { readonly [key: string]: JsonValue };

/** A default: a static value, or a function called on every insert (e.g. `() => new Date()`). */
export type MemoryDefault = JsonValue | Date | (() => unknown);

/** Options every field kind shares. */
interface MemoryFieldOptions {
  /** NULL allowed (default false). A primary key is never nullable. */
  readonly nullable?: boolean;
  /** Used when a create does not give the field; an explicit `null` is stored as null (like SQL). */
  readonly default?: MemoryDefault;
  /** A unique constraint; NULLs never collide (like SQL). */
  readonly unique?: boolean;
  /** Never in a response, a filter, a sort or a field selection (the core enforces it). */
  readonly hidden?: boolean;
}

/** A column of a scalar type. */
export interface MemoryScalarField extends MemoryFieldOptions {
  /** The field's scalar kind. */
  readonly type: FieldType;
  /** The primary key; exactly one field per model. */
  readonly primary?: boolean;
  /** The store produces the value: a sequence for `integer`/`bigint`, a random UUID for `uuid`. */
  readonly generated?: boolean;
  /** Longest accepted value of a `string`/`text` field, in characters. */
  readonly maxLength?: number;
  /** The accepted values of an `enum` field (required for `enum`). */
  readonly enumValues?: readonly (string | number)[];
  /** A scalar field has no relation. */
  readonly relation?: never;
}

/** A many-to-one relation, stored (and exposed) as the referenced row's primary key. */
export interface MemoryRelationField extends MemoryFieldOptions {
  /** The many-to-one relation's target. */
  readonly relation: {
    /** The referenced model, or a function returning it (for models declared later or cycles). */
    readonly target: ModelClass | (() => ModelClass);
  };
  /** A relation takes its type from the target's primary key. */
  readonly type?: never;
  /** A relation cannot be the primary key. */
  readonly primary?: never;
  /** A relation's value is never generated. */
  readonly generated?: never;
  /** Not for relations. */
  readonly maxLength?: never;
  /** Not for relations. */
  readonly enumValues?: never;
}

/** One field of a memory model: a scalar column or a many-to-one relation. */
export type MemoryFieldDeclaration = MemoryScalarField | MemoryRelationField;

/** The model a collection points at, or a function returning it (for cycles and later declarations). */
export type MemoryTarget = ModelClass | (() => ModelClass);

/**
 * A one-to-many collection: the inverse side of a many-to-one field of the target that points back
 * at this model. Read-only: it changes when target rows change their field.
 */
export interface MemoryOneToMany {
  /** One-to-many. */
  readonly kind: 'one-to-many';
  /** The model holding the many-to-one field. */
  readonly target: MemoryTarget;
  /** The target's many-to-one field (pointing at this model) that holds this model's key. */
  readonly inverseField: string;
}

/**
 * A many-to-many collection. Without `mappedBy` it is the owning side: it keeps its own links
 * (a pivot table in SQL) and a client sets it as an array of target keys. With `mappedBy` it is
 * the inverse side: it reads the links of the target's owning collection of that name, read-only.
 */
export interface MemoryManyToMany {
  /** Many-to-many. */
  readonly kind: 'many-to-many';
  /** The related model. */
  readonly target: MemoryTarget;
  /** For the inverse side: the name of the target's owning many-to-many collection. */
  readonly mappedBy?: string;
}

/** One to-many relation of a memory model; never a field of its records. */
export type MemoryCollectionDeclaration = MemoryOneToMany | MemoryManyToMany;

/** A model class with its fields, as given to `new MemoryAdapter({ models })`. */
export interface MemoryModelDeclaration<M extends ModelClass = ModelClass> {
  /** The model class. */
  readonly model: M;
  /** Fields in the order they appear in records and documents. Columns of `[MIXIN_FIELDS]` are added. */
  readonly fields: Readonly<Record<string, MemoryFieldDeclaration>>;
  /** The table name an ORM mapping would give explicitly; a static `__tablename__` still wins. */
  readonly table?: string;
  /** The to-many relations, by JSON name (the name `include=` and request bodies use). */
  readonly collections?: Readonly<Record<string, MemoryCollectionDeclaration>>;
}

/** The options of `defineMemoryModel` besides the fields. */
export interface MemoryModelOptions {
  /** The table name an ORM mapping would give explicitly; a static `__tablename__` still wins. */
  readonly table?: string;
  /** The to-many relations, by JSON name. */
  readonly collections?: Readonly<Record<string, MemoryCollectionDeclaration>>;
}

/**
 * Declares a model for the `MemoryAdapter`; the same as writing the object literal, with the
 * model's type kept for the caller.
 *
 * @example
 * class Person extends FrameworkModel {}
 * const people = defineMemoryModel(Person, {
 *   id: { type: 'integer', primary: true, generated: true },
 *   name: { type: 'string', maxLength: 100 },
 * });
 * const adapter = new MemoryAdapter({ models: [people] });
 *
 * @example
 * // Relations: a many-to-one field, its one-to-many inverse, and both sides of a many-to-many.
 * const models = [
 *   defineMemoryModel(Author, { id, name: { type: 'string' } }, {
 *     collections: { books: { kind: 'one-to-many', target: () => Book, inverseField: 'author' } },
 *   }),
 *   defineMemoryModel(Book, { id, author: { relation: { target: Author } } }, {
 *     collections: { tags: { kind: 'many-to-many', target: () => Tag } }, // owning: `"tags": [1, 4]`
 *   }),
 *   defineMemoryModel(Tag, { id, name: { type: 'string' } }, {
 *     collections: { books: { kind: 'many-to-many', target: Book, mappedBy: 'tags' } }, // read-only
 *   }),
 * ];
 */
export function defineMemoryModel<M extends ModelClass>(
  model: M,
  fields: Readonly<Record<string, MemoryFieldDeclaration>>,
  options: MemoryModelOptions = {},
): MemoryModelDeclaration<M> {
  return {
    model,
    fields,
    ...(options.table === undefined ? {} : { table: options.table }),
    ...(options.collections === undefined ? {} : { collections: options.collections }),
  };
}
