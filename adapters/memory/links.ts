/**
 * `LinkTable`: the links of one owning many-to-many collection, as a pivot table holds them
 * (owner key, target key), indexed both ways so that either side's delete or read is direct.
 * Its foreign keys behave like MikroORM's pivot tables: deleting or re-keying a row on either
 * side cascades to its links.
 */

/** A stored primary key (the Map key of a row). */
export type Key = string | number;

function add(index: Map<Key, Set<Key>>, from: Key, to: Key): void {
  const set = index.get(from);
  if (set === undefined) index.set(from, new Set([to]));
  else set.add(to);
}

function remove(index: Map<Key, Set<Key>>, from: Key, to: Key): void {
  const set = index.get(from);
  set?.delete(to);
  if (set?.size === 0) index.delete(from);
}

/** The pivot rows of one owning many-to-many collection. */
export class LinkTable {
  readonly #byOwner = new Map<Key, Set<Key>>();
  readonly #byTarget = new Map<Key, Set<Key>>();

  /** The target keys linked to an owner, in insertion order. */
  targetsOf(owner: Key): readonly Key[] {
    return [...(this.#byOwner.get(owner) ?? [])];
  }

  /** The owner keys linked to a target, in insertion order. */
  ownersOf(target: Key): readonly Key[] {
    return [...(this.#byTarget.get(target) ?? [])];
  }

  /** Makes `targets` the owner's whole set of links. */
  replace(owner: Key, targets: readonly Key[]): void {
    this.removeOwner(owner);
    for (const target of targets) {
      add(this.#byOwner, owner, target);
      add(this.#byTarget, target, owner);
    }
  }

  /** Drops every link of an owner (the owner row is deleted). */
  removeOwner(owner: Key): void {
    for (const target of this.targetsOf(owner)) remove(this.#byTarget, target, owner);
    this.#byOwner.delete(owner);
  }

  /** Drops every link to a target (the target row is deleted). */
  removeTarget(target: Key): void {
    for (const owner of this.ownersOf(target)) remove(this.#byOwner, owner, target);
    this.#byTarget.delete(target);
  }

  /** Moves an owner's links to its new key (ON UPDATE CASCADE). */
  renameOwner(from: Key, to: Key): void {
    const targets = this.targetsOf(from);
    this.removeOwner(from);
    for (const target of targets) {
      add(this.#byOwner, to, target);
      add(this.#byTarget, target, to);
    }
  }

  /** Moves the links to a target to its new key (ON UPDATE CASCADE). */
  renameTarget(from: Key, to: Key): void {
    const owners = this.ownersOf(from);
    this.removeTarget(from);
    for (const owner of owners) {
      add(this.#byOwner, owner, to);
      add(this.#byTarget, to, owner);
    }
  }

  /** Drops every link. */
  clear(): void {
    this.#byOwner.clear();
    this.#byTarget.clear();
  }
}
