/**
 * The to-many relations of an entity, read from MikroORM's metadata: one-to-many inverse sides and
 * many-to-many owning and inverse sides, with the table and columns that hold their links (the
 * target's foreign key column, or the pivot table's two join columns).
 */
import { type EntityMetadata, type EntityProperty, type Platform, ReferenceKind } from '@mikro-orm/core';
import { INT32_MAX, INT32_MIN } from '../../lib/schema/model-schemas.js';
import type { CollectionDescription, FieldType, ModelClass } from '../../lib/types.js';
import { collectionOrderOf, type LinkOrderKey } from './default-order.js';
import { type AnyMikroORM, jsonNameOf, owningSideHidden } from './describe.js';
import { fieldTypeOf, integerRangeOf } from './field-types.js';

/** Where the links of one collection are stored: owner and target key columns of one table. */
export interface LinkTable {
  /** The table's name, and its schema when MikroORM maps it to one. */
  readonly table: string;
  readonly schema: string | undefined;
  /** The column holding the owner's key (a foreign key column or a pivot join column). */
  readonly ownerColumn: string;
  /** The column holding the target's key (its primary key column or a pivot join column). */
  readonly targetColumn: string;
}

/** The target's table, which a pivot's links join to be ordered by the target's columns. */
export interface TargetTable {
  readonly table: string;
  readonly schema: string | undefined;
  /** Its primary key column. */
  readonly keyColumn: string;
}

/** One collection as the adapter serves it. */
export interface CollectionPlan {
  readonly description: CollectionDescription;
  readonly prop: EntityProperty;
  readonly targetMeta: EntityMetadata;
  readonly links: LinkTable;
  /** The order of each owner's links, as MikroORM's populate gives it; the target key follows. */
  readonly order: readonly LinkOrderKey[];
  /** The target's table, when the order names its columns and the links are in a pivot. */
  readonly targetTable?: TargetTable;
}

/** The single primary key property of a table-backed entity whose key type the core serves, or undefined. */
function servableKey(meta: EntityMetadata | undefined): EntityProperty | undefined {
  if (meta === undefined || meta.abstract || meta.embeddable || meta.virtual || meta.view) return undefined;
  if (meta.expression !== undefined || meta.primaryKeys.length !== 1) return undefined;
  const key = meta.getPrimaryProps()[0];
  if (key === undefined || key.kind !== ReferenceKind.SCALAR || key.fieldNames?.length !== 1)
    return undefined;
  return fieldTypeOf(key) === undefined ? undefined : key;
}

/** The schema of a table, as MikroORM qualifies it (none for `*`, the wildcard schema). */
function schemaOf(orm: AnyMikroORM, meta: EntityMetadata): string | undefined {
  const schema = meta.schema ?? (orm.config.get('schema') as string | undefined);
  return schema === undefined || schema === '*' ? undefined : schema;
}

/**
 * Where a one-to-many collection's links are: the target table's foreign key to the owner. Only a
 * foreign key of one column that references the owner's primary key (a `targetKey` or a composite
 * key would need a join the links statement does not make).
 */
function oneToManyLinks(
  orm: AnyMikroORM,
  owner: EntityMetadata,
  prop: EntityProperty,
  target: EntityMetadata,
): { links: LinkTable; inverse: EntityProperty } | undefined {
  const inverse = prop.mappedBy === undefined ? undefined : target.properties[prop.mappedBy as never];
  const inverseProp = inverse as EntityProperty | undefined;
  if (inverseProp === undefined || inverseProp.kind !== ReferenceKind.MANY_TO_ONE) return undefined;
  if (inverseProp.targetKey !== undefined || inverseProp.fieldNames?.length !== 1) return undefined;
  if (inverseProp.targetMeta?.class !== owner.class) return undefined;
  const targetKey = target.getPrimaryProps()[0] as EntityProperty;
  return {
    inverse: inverseProp,
    links: {
      table: target.tableName,
      schema: schemaOf(orm, target),
      ownerColumn: inverseProp.fieldNames[0] as string,
      targetColumn: targetKey.fieldNames[0] as string,
    },
  };
}

/**
 * Where a many-to-many collection's links are: its pivot table. MikroORM gives both sides the same
 * pivot with the join columns swapped, so `joinColumns` always reference this side. Polymorphic
 * pivots (a discriminator column) and pivots keyed otherwise than by the two primary keys are left out.
 */
function manyToManyLinks(
  orm: AnyMikroORM,
  owner: EntityMetadata,
  prop: EntityProperty,
): LinkTable | undefined {
  if (prop.polymorphic === true || prop.discriminatorColumn !== undefined) return undefined;
  const pivot =
    prop.pivotEntity === undefined ? undefined : orm.getMetadata().find(prop.pivotEntity as never);
  const ownerKey = owner.getPrimaryProps()[0] as EntityProperty;
  const [ownerColumn, ...moreOwner] = prop.joinColumns ?? [];
  const [targetColumn, ...moreTarget] = prop.inverseJoinColumns ?? [];
  if (pivot === undefined || ownerColumn === undefined || targetColumn === undefined) return undefined;
  if (moreOwner.length > 0 || moreTarget.length > 0) return undefined;
  // A pivot whose join column references another column than the owner's key (`referencedColumnNames`).
  const owning = prop.mappedBy === undefined ? prop : prop.targetMeta?.properties[prop.mappedBy as never];
  const referenced = (owning as EntityProperty | undefined)?.referencedColumnNames;
  if (prop.mappedBy === undefined && referenced !== undefined && referenced[0] !== ownerKey.fieldNames[0])
    return undefined;
  return { table: pivot.tableName, schema: schemaOf(orm, pivot), ownerColumn, targetColumn };
}

/**
 * Whether a many-to-many's pivot entity holds values of its own (a role, a date, another relation)
 * beside its two join columns and its key. Setting such a collection makes MikroORM delete the
 * pivot rows and insert new ones, which lose those values (and their keys): such a collection is
 * served, never written; its rows are written through the pivot entity's own router.
 */
function pivotHoldsValues(pivot: EntityMetadata | undefined, prop: EntityProperty): boolean {
  if (pivot === undefined) return false;
  const joins = new Set([...(prop.joinColumns ?? []), ...(prop.inverseJoinColumns ?? [])]);
  return pivot.props.some(
    (other) =>
      other.persist !== false &&
      other.primary !== true &&
      other.kind !== ReferenceKind.ONE_TO_MANY &&
      other.kind !== ReferenceKind.MANY_TO_MANY &&
      !(other.fieldNames ?? []).every((column) => joins.has(column)),
  );
}

/**
 * The collections of an entity the core can serve, by JSON name. Left out, not refused: a
 * collection MikroORM does not persist (the inverse sides it adds itself to pivots declared on one
 * side only), one whose target the adapter cannot serve (no single primary key of a type the core
 * knows, a view or virtual entity, a subclass of an inheritance hierarchy, whose rows share a
 * table with other classes), links stored otherwise than in one foreign key or one plain pivot,
 * and an order (`orderBy`) the links statement cannot give (default-order.ts, `collectionOrderOf`).
 */
export function collectionPlans(orm: AnyMikroORM, meta: EntityMetadata): CollectionPlan[] {
  const plans: CollectionPlan[] = [];
  if (servableKey(meta) === undefined) return plans;
  for (const prop of Object.values(meta.properties) as EntityProperty[]) {
    if (prop.kind !== ReferenceKind.ONE_TO_MANY && prop.kind !== ReferenceKind.MANY_TO_MANY) continue;
    // A hidden owning side hides the link from this end too (a hidden reviewer, a review's author).
    if (prop.persist === false || prop.hidden === true || owningSideHidden(prop)) continue;
    // The registry's own metadata: a property's `targetMeta` may be an earlier copy of it.
    const target =
      prop.targetMeta === undefined ? undefined : orm.getMetadata().find(prop.targetMeta.class as never);
    const targetKey = servableKey(target);
    if (target === undefined || targetKey === undefined) continue;
    if (target.root.class !== target.class || target.discriminatorColumn !== undefined) continue;
    const targetKeyType = fieldTypeOf(targetKey, orm.em.getPlatform());
    if (targetKeyType === undefined) continue;
    const common = {
      name: jsonNameOf(prop),
      target: target.className,
      targetModel: target.class as unknown as ModelClass,
      // The key's JSON name, as the target's own fields are named.
      targetKey: jsonNameOf(targetKey),
      targetKeyType,
      ...keyRangeOf(targetKey, targetKeyType, orm.em.getPlatform()),
    };
    const pivot =
      prop.pivotEntity === undefined ? undefined : orm.getMetadata().find(prop.pivotEntity as never);
    // An order include= cannot follow: left out rather than embedded in another order.
    const order = collectionOrderOf(prop, target, pivot);
    if (order === undefined) continue;
    const targetTable = order.some((key) => key.table === 'target')
      ? {
          table: target.tableName,
          schema: schemaOf(orm, target),
          keyColumn: targetKey.fieldNames[0] as string,
        }
      : undefined;
    const ordered = { order, ...(targetTable === undefined ? {} : { targetTable }) };
    if (prop.kind === ReferenceKind.ONE_TO_MANY) {
      const found = oneToManyLinks(orm, meta, prop, target);
      if (found === undefined) continue;
      const description: CollectionDescription = Object.freeze({
        ...common,
        kind: 'one-to-many',
        inverseField: jsonNameOf(found.inverse),
        writable: false,
      });
      plans.push({ description, prop, targetMeta: target, links: found.links, ...ordered });
    } else {
      const links = manyToManyLinks(orm, meta, prop);
      if (links === undefined) continue;
      const description: CollectionDescription = Object.freeze({
        ...common,
        kind: 'many-to-many',
        writable: prop.owner === true && prop.mappedBy === undefined && !pivotHoldsValues(pivot, prop),
      });
      plans.push({ description, prop, targetMeta: target, links, ...ordered });
    }
  }
  return plans;
}

/** An integer key's column range, as the target's own key field states it (describe.ts): unsigned on MySQL/MariaDB. */
function keyRangeOf(
  key: EntityProperty,
  type: FieldType,
  platform: Platform,
): Pick<CollectionDescription, 'targetKeyRange'> {
  const range = type === 'integer' ? integerRangeOf(key, platform) : undefined;
  // A 32-bit integer's range is every integer key's without one.
  if (range === undefined || (range.minimum === INT32_MIN && range.maximum === INT32_MAX)) return {};
  return { targetKeyRange: range };
}
