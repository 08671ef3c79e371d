/**
 * Many-to-many writes: a body gives a collection as an array of target keys (`"tags": [1, 4]`).
 * Before the write, each key must be given once and name an existing record; every bad item is
 * named by its index (`tags.1`), as ajv names the items of any array.
 */
import { ApiError, type FieldError } from '../errors.js';
import { sessionOf } from '../http/session.js';
import { writableCollections } from '../schema/model-schemas.js';
import type { AppContext, RawRecord } from '../types.js';
import type { CrudPlan } from './crud-plan.js';
import { comparableKey, KeyIndex } from './key-index.js';
import { recordKey } from './record-key.js';

/**
 * 422 for duplicate or unknown keys in the writable collections of validated data, with `more`:
 * the errors of other checks of the same keys (reference-reads.ts), answered in one list so that
 * which check found what is not told (a path named by both is named once).
 */
export async function checkCollectionKeys(
  plan: CrudPlan,
  ctx: AppContext,
  data: Readonly<RawRecord>,
  more: readonly FieldError[] = [],
): Promise<void> {
  const collections = writableCollections(plan.model, plan.readOnlyFields).filter((collection) =>
    Array.isArray(data[collection.name]),
  );
  const errors: FieldError[] = [...more];
  for (const collection of collections) {
    const keys = data[collection.name] as readonly unknown[];
    // Keys the database holds equal (a MySQL/MariaDB collation: `be` and `BE`) name one record.
    const comparison = plan.adapter
      .describe(collection.targetModel)
      .fieldsByName.get(collection.targetKey)?.comparison;
    const first = new Map<string, number>();
    keys.forEach((key, index) => {
      const mapKey =
        comparison !== undefined && typeof key === 'string'
          ? comparableKey(key, comparison)
          : recordKey(key, collection.targetKeyType);
      const seen = first.get(mapKey);
      if (seen === undefined) first.set(mapKey, index);
      else
        errors.push({ path: `${collection.name}.${index}`, message: `repeats ${collection.name}.${seen}` });
    });
    if (first.size === 0) continue;
    const found = await plan.adapter.list(sessionOf(ctx, plan.adapter), collection.targetModel, {
      filters: [
        {
          field: collection.targetKey,
          op: '$in',
          value: [...first.keys()].map((key) => keys[first.get(key) as number]),
        },
      ],
      sort: [{ field: collection.targetKey, direction: 'asc' }],
      limit: first.size,
      offset: 0,
      withTotal: false,
      fields: [collection.targetKey],
    });
    const existing = new KeyIndex<true>(comparison, collection.targetKeyType);
    for (const row of found.rows) existing.set(row[collection.targetKey], true);
    for (const index of first.values()) {
      if (existing.get(keys[index]) === undefined) {
        errors.push({
          path: `${collection.name}.${index}`,
          message: `no ${collection.target} has ${collection.targetKey} ${JSON.stringify(keys[index])}`,
        });
      }
    }
  }
  if (errors.length === 0) return;
  const named = new Map<string, FieldError>();
  for (const error of errors) if (!named.has(error.path)) named.set(error.path, error);
  throw ApiError.validation(
    [...named.values()].sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true })),
  );
}
