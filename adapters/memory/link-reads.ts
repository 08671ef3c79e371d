/**
 * Answers `links()`: the (owner, target) pairs of a collection for a set of owners, each owner's
 * ordered by target key and cut at `perOwner`, read in one pass over the target rows (one-to-many)
 * or the link table (many-to-many), never per owner from the store's rows.
 */
import type { ModelClass, RecordId, RelationLink } from '../../lib/types.js';
import { compareStored } from './compare.js';
import type { CompiledCollection } from './compiled.js';
import type { Key } from './links.js';
import type { MemoryStore } from './store.js';
import { keyFromId } from './values.js';

/** The target keys of each owner, in any order. */
type TargetsOf = (owner: Key) => readonly Key[];

function targetsReader(
  store: MemoryStore,
  collection: CompiledCollection,
  owners: ReadonlySet<Key>,
): TargetsOf {
  const { source, description } = collection;
  if (source.kind === 'link-table') {
    const links = store.linkTable(source.owner, source.name);
    return source.inverse ? (owner) => links.ownersOf(owner) : (owner) => links.targetsOf(owner);
  }
  // One-to-many: group the target rows whose foreign key holds one of the owners, in one scan.
  const byOwner = new Map<Key, Key[]>();
  for (const row of store.rows(description.targetModel)) {
    const owner = row[source.field] as Key | null;
    if (owner === null || !owners.has(owner)) continue;
    const targets = byOwner.get(owner) ?? [];
    targets.push(row[description.targetKey] as Key);
    byOwner.set(owner, targets);
  }
  return (owner) => byOwner.get(owner) ?? [];
}

/**
 * The links of `owners` (keys as the core coerced them; unknown ones have no link) in the
 * collection `name` of `model`: per owner, in the order owners are given, target keys ascending,
 * at most `perOwner`.
 */
export function readLinks(
  store: MemoryStore,
  model: ModelClass,
  name: string,
  owners: readonly RecordId[],
  perOwner: number,
): RelationLink[] {
  const compiled = store.modelOf(model);
  const collection = compiled.collections.get(name);
  if (collection === undefined) throw new TypeError(`links: ${model.name} has no collection "${name}".`);
  const keyType = compiled.primary.field.type;
  const ownerKeys = new Set<Key>();
  for (const id of owners) {
    const key = keyFromId(keyType, id);
    if (key !== undefined) ownerKeys.add(key);
  }
  const limit = Math.max(0, Math.floor(perOwner));
  const targetsOf = targetsReader(store, collection, ownerKeys);
  const targetType = collection.description.targetKeyType;
  const links: RelationLink[] = [];
  for (const owner of ownerKeys) {
    const targets = [...targetsOf(owner)].sort((a, b) => compareStored(targetType, a, b)).slice(0, limit);
    for (const target of targets) links.push({ owner, target });
  }
  return links;
}
