/**
 * MikroORM's entity `orderBy` (`@Entity({ orderBy: { name: 'asc' } })`) as the core's default
 * order. `em.find` appends it to every query's own order (`QueryHelper.mergeOrderBy`: a property
 * named by an earlier entry is skipped), so lists sort by it after the request's keys. What the
 * core cannot sort by is refused at registration, naming the entity and the key.
 *
 * Also the order MikroORM's populate gives a collection (`collectionOrderOf`), which `include=`
 * follows.
 */
import { type EntityMetadata, type EntityProperty, ReferenceKind } from '@mikro-orm/core';
import { ConfigurationError } from '../../lib/errors.js';
import type { SortKey } from '../../lib/types.js';
import { isInverseOneToOne, jsonNameOf, servedProperties } from './describe.js';

/** A direction and NULL placement. */
type Direction = Pick<SortKey, 'direction' | 'nulls'>;

/** A MikroORM order value (`'asc'`, `'DESC NULLS LAST'`, `QueryOrder.ASC`, `1`, `-1`) as a direction, or undefined. */
export function directionOf(value: unknown): Direction | undefined {
  if (value === 1) return { direction: 'asc' };
  if (value === -1) return { direction: 'desc' };
  if (typeof value !== 'string') return undefined;
  // MikroORM lower-cases and trims a direction before it checks it.
  const match = /^(asc|desc)(?: nulls (first|last))?$/i.exec(value.trim());
  if (match === null) return undefined;
  const direction = (match[1] as string).toLowerCase() as SortKey['direction'];
  const nulls = match[2]?.toLowerCase() as SortKey['nulls'];
  return nulls === undefined ? { direction } : { direction, nulls };
}

/** The entries of an `orderBy` (one map or an array of maps), in order. */
export function orderEntries(orderBy: unknown): [string | symbol, unknown][] {
  const maps = Array.isArray(orderBy) ? orderBy : orderBy === undefined || orderBy === null ? [] : [orderBy];
  return maps.flatMap((map) =>
    typeof map === 'object' && map !== null
      ? Reflect.ownKeys(map).map((name): [string | symbol, unknown] => [
          name,
          (map as Record<PropertyKey, unknown>)[name],
        ])
      : [],
  );
}

/** Why lists cannot sort by this property (a column of the entity's table or a computed one), or undefined. */
function unsortable(meta: EntityMetadata, prop: EntityProperty): string | undefined {
  if (!servedProperties(meta).includes(prop)) return 'a property the API does not serve';
  if (prop.kind === ReferenceKind.EMBEDDED) return 'an embedded value as a whole';
  if (isInverseOneToOne(prop)) return 'the inverse side of a one-to-one';
  // A getter or other in-memory value: no column to order by (a formula has its expression).
  if (prop.persist === false && prop.formula === undefined) return 'a value that is not stored';
  return undefined;
}

/** The keys one `orderBy` entry gives, `prefix` being the JSON path so far; throws what it cannot. */
function keysOf(
  meta: EntityMetadata,
  name: string,
  value: unknown,
  prefix: string,
  depth: number,
): SortKey[] {
  const prop = meta.properties[name as never] as EntityProperty | undefined;
  const path = `${prefix}${name}`;
  if (prop === undefined) throw refused(meta, path, 'names no property');
  const direction = directionOf(value);
  if (direction !== undefined) {
    const reason = unsortable(meta, prop);
    if (reason !== undefined) throw refused(meta, path, `is ${reason}`);
    return [{ field: `${prefix}${jsonNameOf(prop)}`, ...direction }];
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw refused(meta, path, `has the direction ${JSON.stringify(value)}`);
  const target = prop.targetMeta;
  const toOne =
    (prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE) &&
    !isInverseOneToOne(prop);
  // One step into a many-to-one's target, as `sort=team.name`; any depth into embedded values.
  const into = (toOne && depth === 0) || prop.kind === ReferenceKind.EMBEDDED;
  if (!into || target === undefined || !servedProperties(meta).includes(prop))
    throw refused(meta, path, 'goes through a collection, a JSON value or more than one relation');
  return orderEntries(value).flatMap(([inner, innerValue]) => {
    if (typeof inner === 'symbol') throw refused(meta, path, 'holds a raw SQL fragment');
    if (toOne && directionOf(innerValue) === undefined)
      throw refused(meta, `${path}.${inner}`, 'goes further than one field of the related entity');
    return keysOf(target, inner, innerValue, `${prefix}${jsonNameOf(prop)}.`, depth + 1);
  });
}

/** The registration error of an `orderBy` key lists cannot follow. */
function refused(meta: EntityMetadata, path: string, reason: string): ConfigurationError {
  return new ConfigurationError(
    `${meta.className}: its orderBy sorts by "${path}", which ${reason}; koa-model-api cannot sort its lists that way. Order by the entity's own properties, a many-to-one's key or one field of its target, or a field of an embedded value (asc or desc, with nulls first or last), or remove the orderBy.`,
  );
}

/**
 * The default order of an entity's rows: its `orderBy` as sort keys by JSON name, an entry for a
 * property named by an earlier one left out as `em.find` leaves it out. Empty when it has none.
 */
export function defaultOrderOf(meta: EntityMetadata): SortKey[] {
  const keys: SortKey[] = [];
  const seen = new Set<string>();
  for (const [name, value] of orderEntries(meta.orderBy)) {
    if (typeof name === 'symbol') throw refused(meta, '(raw SQL)', 'is a raw SQL fragment');
    if (seen.has(name)) continue;
    seen.add(name);
    keys.push(...keysOf(meta, name, value, '', 0));
  }
  return keys;
}

/** One key of a collection's order, a column of the table holding the links or of the target's. */
export interface LinkOrderKey {
  /** The column's name. */
  readonly column: string;
  /** `links`: the table of the links (the target's own for a one-to-many, else the pivot); `target`: the target's, joined to a pivot. */
  readonly table: 'links' | 'target';
  readonly direction: SortKey['direction'];
  readonly nulls?: SortKey['nulls'];
}

/** The single column of a target property a links statement can order by (no formula, custom order or join), or undefined. */
function plainColumn(prop: EntityProperty | undefined): string | undefined {
  if (prop === undefined || prop.persist === false || prop.formula !== undefined) return undefined;
  if (prop.customOrder !== undefined || prop.fieldNames?.length !== 1) return undefined;
  const toOne =
    (prop.kind === ReferenceKind.MANY_TO_ONE || prop.kind === ReferenceKind.ONE_TO_ONE) &&
    !isInverseOneToOne(prop);
  return prop.kind === ReferenceKind.SCALAR || toOne ? prop.fieldNames[0] : undefined;
}

/**
 * The order MikroORM's populate gives a collection's targets: the collection's own `orderBy`, then
 * the target entity's (as `EntityLoader` merges them), or for a many-to-many with neither and a
 * fixed order (`fixedOrder`, or a pivot entity with a key of its own) the pivot's key. Empty when
 * there is none (the database's order; the links statement orders by target key). Undefined when a
 * key is no plain column of the target (a relation path, an embedded or JSON value, a formula, an
 * enum's custom order): the collection is then left out.
 */
export function collectionOrderOf(
  prop: EntityProperty,
  target: EntityMetadata,
  pivot: EntityMetadata | undefined,
): LinkOrderKey[] | undefined {
  const keys: LinkOrderKey[] = [];
  const seen = new Set<string>();
  const table = prop.kind === ReferenceKind.ONE_TO_MANY ? 'links' : 'target';
  for (const [name, value] of [...orderEntries(prop.orderBy), ...orderEntries(target.orderBy)]) {
    if (typeof name === 'symbol') return undefined;
    if (seen.has(name)) continue;
    seen.add(name);
    const direction = directionOf(value);
    const column = plainColumn(target.properties[name as never] as EntityProperty | undefined);
    if (direction === undefined || column === undefined) return undefined;
    keys.push({ column, table, ...direction });
  }
  if (keys.length > 0 || prop.kind !== ReferenceKind.MANY_TO_MANY || prop.fixedOrder !== true) return keys;
  const name = prop.fixedOrderColumn;
  const column =
    name === undefined
      ? undefined
      : ((pivot?.properties[name as never] as EntityProperty | undefined)?.fieldNames?.[0] ?? name);
  return column === undefined ? undefined : [{ column, table: 'links', direction: 'asc' }];
}
