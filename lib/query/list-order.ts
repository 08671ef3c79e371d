/**
 * The order of a list: the request's sort keys, then the model's default order (its ORM's, such
 * as MikroORM's entity `orderBy`), then the primary key.
 */
import type { ModelDescription, SortKey } from '../types.js';

/** The field a sort path starts with: `team` of `team.name`, the path itself for a top-level field. */
function headOf(model: ModelDescription, path: string): string {
  return model.fieldsByName.has(path) ? path : (path.split('.')[0] as string);
}

/**
 * The request's keys, then each default key whose first field no request key starts with (as
 * MikroORM's `em.find` merges an entity's `orderBy` into a query's, `QueryHelper.mergeOrderBy`:
 * `sort=team.name` leaves out a default `team`), then the primary key unless named already. The
 * key last makes offset pages stable; it only orders rows the ORM's order leaves tied, which the
 * database returns in whatever order it reads them.
 */
export function listOrder(model: ModelDescription, requested: readonly SortKey[]): SortKey[] {
  const order = [...requested];
  const heads = new Set(requested.map((key) => headOf(model, key.field)));
  for (const key of model.defaultOrder ?? []) if (!heads.has(headOf(model, key.field))) order.push(key);
  if (!order.some((key) => key.field === model.primaryKey))
    order.push({ field: model.primaryKey, direction: 'asc' });
  return order;
}
