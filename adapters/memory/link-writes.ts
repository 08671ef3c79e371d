/**
 * Checks the collection values of a create or update before anything is written, as a pivot
 * table's constraints would: every key fits the target's key type, refers to an existing row and
 * appears once. The store applies the result only when the record itself is accepted too, so a
 * record and its links change together or not at all.
 */
import type { FieldError } from '../../lib/errors.js';
import type { ModelClass, RawRecord } from '../../lib/types.js';
import type { CompiledCollection, CompiledModel } from './compiled.js';
import type { Key } from './links.js';
import { toStored, ValueProblem } from './values.js';

/** One checked collection write: the whole set of target keys the record's links become. */
export interface LinkWrite {
  /** The owning many-to-many collection written. */
  readonly collection: CompiledCollection;
  /** The stored target keys, in the order given. */
  readonly targets: readonly Key[];
}

/** Whether a row of `model` with that stored key exists (or is the row being written). */
export type KeyExists = (model: ModelClass, key: Key) => boolean;

function checkedKeys(
  collection: CompiledCollection,
  value: readonly unknown[],
  exists: KeyExists,
  problems: FieldError[],
): Key[] {
  const { name, target, targetModel, targetKeyType } = collection.description;
  const keys: Key[] = [];
  const seen = new Set<Key>();
  value.forEach((item, index) => {
    const path = `${name}[${index}]`;
    let key: Key;
    try {
      key = toStored({ type: targetKeyType }, item) as Key;
    } catch (error) {
      if (!(error instanceof ValueProblem)) throw error;
      problems.push({ path, message: error.message });
      return;
    }
    if (key === null) problems.push({ path, message: 'must not be null' });
    else if (seen.has(key)) problems.push({ path, message: 'appears more than once' });
    else if (!exists(targetModel, key))
      problems.push({ path, message: `refers to a ${target} that does not exist` });
    else {
      seen.add(key);
      keys.push(key);
    }
  });
  return keys;
}

/**
 * The collection writes `data` holds, checked; problems are appended to `problems` (paths like
 * `tags[2]`). A collection absent from `data` is not written; a read-only one is a problem.
 */
export function planLinkWrites(
  model: CompiledModel,
  data: Readonly<RawRecord>,
  exists: KeyExists,
  problems: FieldError[],
): LinkWrite[] {
  const writes: LinkWrite[] = [];
  for (const collection of model.collections.values()) {
    const { name, target, writable } = collection.description;
    const value = data[name];
    if (value === undefined) continue;
    if (!writable)
      problems.push({ path: name, message: `is a read-only relation of ${model.description.name}` });
    else if (!Array.isArray(value))
      problems.push({ path: name, message: `must be an array of ${target} keys` });
    else writes.push({ collection, targets: checkedKeys(collection, value, exists, problems) });
  }
  return writes;
}
