/**
 * A to-one relation whose target has MikroORM filters (a soft-delete `@Filter`) names a row a read
 * of the target finds. MikroORM itself accepts a key of a row its filter hides, but then joins the
 * target with its filter on every load of the owner (`autoJoinRefsForFilters`): the owner is left
 * out (a `NOT NULL` key) or shows the relation as null. Such a write would make a row no request
 * reaches, or one that reads back otherwise than written: it is refused like a key naming no row
 * (422), on both paths, as a many-to-many link to a hidden row is (lib/crud/collection-writes.ts).
 * One `em.count` per such relation the write sets, through the write's session (its filter
 * arguments, its transaction); relations to targets without filters cost nothing.
 */
import type { EntityManager, EntityMetadata, EntityProperty } from '@mikro-orm/core';
import type { RuntimeFilters } from './runtime-filters.js';
import type { ReferenceField } from './subclass-references.js';

/**
 * Whether MikroORM filters that are on by default apply to reads of the entity: its own, the ORM's,
 * or added with `em.addFilter()`. The runtime registry's start-up probe asked MikroORM which
 * entities its filters reach (an ORM filter scoped to other entities, or one with `default: false`,
 * reaches none), and it answers yes until that probe is done.
 */
export function readsFiltered(meta: EntityMetadata, runtime: RuntimeFilters): boolean {
  return runtime.reaches(meta);
}

/** The served, written to-one relations whose target's reads MikroORM filters (worked out again when filters are added). */
export function filteredTargetReferences<F extends ReferenceField>(
  fields: readonly F[],
  runtime: RuntimeFilters,
): F[] {
  return fields.filter((field) => {
    const target = field.prop.targetMeta;
    return (
      field.field.relation !== undefined &&
      field.field.writable !== false &&
      target !== undefined &&
      readsFiltered(target, runtime)
    );
  });
}

/**
 * The relations among `references` whose written key (in `values`, by property name, as MikroORM
 * takes it) names no row that `em.count` of the target finds with the session's filters on: a row
 * a filter hides, or none at all.
 */
export async function hiddenReferences<F extends ReferenceField>(
  session: EntityManager,
  references: readonly F[],
  values: Readonly<Record<string, unknown>>,
): Promise<F[]> {
  const hidden: F[] = [];
  for (const field of references) {
    const key = values[field.prop.name];
    const target = (field.prop as EntityProperty).targetMeta;
    if (key === null || key === undefined || target?.class === undefined) continue;
    const keyName = target.primaryKeys[0] as string;
    if ((await session.count(target.class, { [keyName]: key } as never)) === 0) hidden.push(field);
  }
  return hidden;
}
