/**
 * Checks the to-many collections an adapter lists in `ModelFacts.collections`, so that a mistake
 * stops the start-up with the model and collection named instead of failing on an `include=`.
 */
import { ConfigurationError } from '../errors.js';
import type { CollectionDescription, FieldDescription } from '../types.js';

/** What makes one collection unservable, or undefined when the core can serve it. */
function problemOf(
  collection: CollectionDescription,
  fields: ReadonlyMap<string, FieldDescription>,
): string | undefined {
  const { name, kind } = collection;
  // A dot would make `include=a.b` ambiguous; a field of the same name would shadow the collection.
  if (name === '' || name.includes('.')) return 'has an empty name or one with a dot';
  if (fields.has(name)) return 'has the name of a field';
  if (kind !== 'one-to-many' && kind !== 'many-to-many')
    return `has the kind "${String(kind)}"; use one-to-many or many-to-many`;
  if (typeof collection.targetModel !== 'function') return 'has no targetModel (the target class)';
  if (collection.target === '' || collection.targetKey === '') return 'needs its target and targetKey';
  // A key of a custom type is described as 'json' (its JSON form is the type's): served as such.
  if (collection.targetKeyType === 'object' || collection.targetKeyType === 'array')
    return `has a ${collection.targetKeyType} targetKeyType; a key is a scalar`;
  const range = collection.targetKeyRange;
  if (
    range !== undefined &&
    (collection.targetKeyType !== 'integer' ||
      !Number.isSafeInteger(range.minimum) ||
      !Number.isSafeInteger(range.maximum) ||
      range.minimum > range.maximum)
  )
    return 'has a targetKeyRange that is not a range of safe integers for an integer key';
  if (kind === 'one-to-many') {
    if (typeof collection.inverseField !== 'string' || collection.inverseField === '')
      return "is one-to-many without inverseField (the target's many-to-one back to this model)";
    // Its links are the targets' foreign keys: writing them is the targets' own update.
    if (collection.writable) return 'is one-to-many and writable; only an owning many-to-many is';
  } else if (collection.inverseField !== undefined) {
    return 'is many-to-many with an inverseField; only a one-to-many has one';
  }
  return undefined;
}

/** The collections, checked and frozen; undefined when there are none. */
export function checkedCollections(
  model: string,
  collections: readonly CollectionDescription[] | undefined,
  fields: ReadonlyMap<string, FieldDescription>,
): readonly CollectionDescription[] | undefined {
  if (collections === undefined || collections.length === 0) return undefined;
  const seen = new Set<string>();
  for (const collection of collections) {
    const problem = seen.has(collection.name) ? 'is given twice' : problemOf(collection, fields);
    if (problem !== undefined)
      throw new ConfigurationError(`Model ${model}: collection "${collection.name}" ${problem}.`);
    seen.add(collection.name);
  }
  return Object.freeze(collections.map((collection) => Object.freeze({ ...collection })));
}
