/**
 * The relations a router lets requests include (`include=`), filter and sort through: each one
 * resolved against the router that serves its target model, so that an embedded record is
 * serialized, checked and documented by its own router's rules.
 */
import type { CollectionDescription, FieldDescription, ModelDescription } from '../types.js';

/** A relation of a served model whose target is served too. */
export interface IncludableRelation {
  /** The relation's JSON name, as `include=` names it. */
  readonly name: string;
  /** To-one (a key field), one-to-many or many-to-many. */
  readonly kind: 'many-to-one' | 'one-to-many' | 'many-to-many';
  /** The target model, as its own router describes it. */
  readonly target: ModelDescription;
  /** For a many-to-one: the field holding the target's key. */
  readonly field?: FieldDescription;
  /** For a to-many relation: the collection. */
  readonly collection?: CollectionDescription;
  /** The target router's own includable relations (the second step of a dotted `include=` path). */
  nested(): readonly IncludableRelation[];
}

/** Deepest dotted `include=` path (`comments.author` is 2). */
export const MAX_INCLUDE_DEPTH = 2;

/** Default and largest number of records of one to-many relation embedded per record. */
export const INCLUDE_LIMITS = {
  /** Records per embedded collection when the router does not say. */
  defaultLimit: 100,
  /** Largest `include_limit` a router may set. */
  maxLimit: 1000,
} as const;
