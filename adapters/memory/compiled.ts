/**
 * The compiled form of the memory adapter's declarations, as the store and the link code read
 * them: fields with their run-time behaviour and collections with where their links live.
 */
import type {
  CollectionDescription,
  FieldDescription,
  ModelClass,
  ModelDescription,
} from '../../lib/types.js';

/** How the store fills a generated field. */
export type Generator = 'sequence' | 'uuid';

/** One field with its run-time behaviour. */
export interface CompiledField {
  readonly field: FieldDescription;
  /** Produces the default of an insert that does not give the field, in stored form. */
  readonly makeDefault?: () => unknown;
  readonly generator?: Generator;
  /** The referenced model of a many-to-one field. */
  readonly target?: ModelClass;
}

/** A declared model, ready for the store. */
export interface CompiledModel {
  readonly description: ModelDescription;
  readonly fields: readonly CompiledField[];
  readonly fieldsByName: ReadonlyMap<string, CompiledField>;
  readonly primary: CompiledField;
  /** The to-many collections, by JSON name. */
  readonly collections: ReadonlyMap<string, CompiledCollection>;
}

/** Where a collection's links are read (and, for an owning many-to-many, written). */
export type CollectionSource =
  /** One-to-many: the target rows whose many-to-one `field` holds the owner's key. */
  | { readonly kind: 'foreign-key'; readonly field: string }
  /**
   * Many-to-many: the link table of `owner`'s collection `name`; the inverse side reads it from
   * target to owner.
   */
  | {
      readonly kind: 'link-table';
      readonly owner: ModelClass;
      readonly name: string;
      readonly inverse: boolean;
    };

/** One collection with where its links live. */
export interface CompiledCollection {
  readonly description: CollectionDescription;
  readonly source: CollectionSource;
}
