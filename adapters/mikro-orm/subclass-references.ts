/**
 * A to-one relation to a class below the root of a single-table hierarchy (`Review.photo` → `Photo`,
 * which shares the table `media` with `Clip`) names a row of that class only. The foreign key
 * references the shared table, so the database accepts a `Clip`'s key, but MikroORM never loads
 * that row as a `Photo` (its populate adds the discriminator condition and finds nothing, so the
 * relation reads as null): such a write is refused like a key that names no row (422), on both
 * paths, with one query per such relation the write sets.
 */
import type { EntityManager, EntityMetadata, EntityProperty } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { FieldDescription } from '../../lib/types.js';
import type { AnyMikroORM } from './describe.js';

/** What this module reads of a field's plan (plan.ts imports it, so it does not import plan.ts). */
export interface ReferenceField {
  readonly field: FieldDescription;
  readonly prop: EntityProperty;
}

// biome-ignore lint/suspicious/noExplicitAny: internal bridge to MikroORM's generic signatures
type AnyEntity = any;

/** Whether rows of the entity's table may belong to classes that are not it nor below it. */
function sharesTableWithOthers(meta: EntityMetadata | undefined): boolean {
  return meta !== undefined && meta.root.inheritanceType === 'sti' && meta.root.class !== meta.class;
}

/** The served to-one relations whose target is such a class (the registry's own metadata of it). */
export function subclassReferences<F extends ReferenceField>(orm: AnyMikroORM, fields: readonly F[]): F[] {
  return fields.filter((field) => {
    const target = field.field.relation?.targetModel;
    return (
      target !== undefined &&
      sharesTableWithOthers(orm.getMetadata().find(target as never) as EntityMetadata | undefined)
    );
  });
}

/**
 * The relations among `references` whose written key (in `values`, by property name, as MikroORM
 * takes it) names no row of the target class: the key of another class's row, or of none. Read
 * through the write's session (its transaction, when there is one) with MikroORM's query builder,
 * which adds the target's discriminator condition as `em.find` does and applies no filter (a
 * relation to a filtered target is filtered-references.ts's to check, with the filters on).
 */
export async function unloadableReferences<F extends ReferenceField>(
  session: EntityManager,
  references: readonly F[],
  values: Readonly<Record<string, unknown>>,
): Promise<F[]> {
  const wrong: F[] = [];
  for (const field of references) {
    const key = values[field.prop.name];
    const target = field.field.relation?.targetModel;
    if (key === null || key === undefined || target === undefined) continue;
    const meta = field.prop.targetMeta as EntityMetadata;
    const keyName = meta.primaryKeys[0] as string;
    const rows = await (session as unknown as SqlEntityManager)
      .createQueryBuilder(target as AnyEntity, 'kma_target')
      .select(keyName as AnyEntity)
      .where({ [keyName]: key })
      .limit(1)
      .execute('all');
    if ((rows as unknown[]).length === 0) wrong.push(field);
  }
  return wrong;
}
