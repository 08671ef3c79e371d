/**
 * A write names related records by key (a many-to-one field, a many-to-many array): the caller must
 * be able to read each one through its own router, as `include=` would show it. Otherwise a user
 * could attach a task to a project they may not see, and learn from the answer that it exists
 * (security review, session 16). A record the caller may not read is answered exactly as a key
 * that names no record: the same 422, the same words.
 */
import { ApiError, type FieldError } from '../errors.js';
import { sessionOf } from '../http/session.js';
import type { AppContext, RawRecord } from '../types.js';
import { authenticate, enforce } from './access.js';
import type { CrudPlan, ServedRelation } from './crud-plan.js';
import { KeyIndex } from './key-index.js';

/** The keys a write gives for one relation, each with where it sits in the body. */
function writtenKeys(relation: ServedRelation, data: Readonly<RawRecord>): { path: string; key: unknown }[] {
  if (relation.kind === 'many-to-one') {
    const name = relation.field?.name;
    if (name === undefined || !Object.hasOwn(data, name)) return [];
    const key = data[name];
    return key === null || key === undefined ? [] : [{ path: name, key }];
  }
  const collection = relation.collection;
  if (collection === undefined || !collection.writable) return [];
  const keys = data[collection.name];
  return Array.isArray(keys) ? keys.map((key, index) => ({ path: `${collection.name}.${index}`, key })) : [];
}

/** The refusal of a key the caller may not read: the words a key that names no record gets. */
function unreadable(relation: ServedRelation, path: string, key: unknown): FieldError {
  if (relation.kind === 'many-to-one') return { path, message: 'References a record that does not exist.' };
  const { target, targetKey } = relation.collection ?? { target: '', targetKey: '' };
  return { path, message: `no ${target} has ${targetKey} ${JSON.stringify(key)}` };
}

/**
 * Checks every key a create or update body gives for a relation whose target router guards its
 * reads (`secure`, or a GET policy): its authentication, then its GET policy on each record, as
 * `GET /{id}` decides. A target anyone may read costs nothing; one with a policy costs a list of
 * the named records. Keys naming no record are left to the existing checks.
 */
export async function checkReferencesReadable(
  plan: CrudPlan,
  ctx: AppContext,
  data: Readonly<RawRecord>,
): Promise<void> {
  const relations = plan.relations();
  if (relations.length === 0) return;
  const errors: FieldError[] = [];
  for (const relation of relations) {
    const target = relation.plan;
    const policy = target.options.policies.GET;
    if (policy === undefined && !target.options.secure) continue;
    const written = writtenKeys(relation, data);
    if (written.length === 0) continue;
    const authenticating = authenticate(target, ctx, 'GET');
    if (authenticating !== undefined) await authenticating;
    if (policy === undefined) continue;
    const keyField = target.model.fieldsByName.get(target.model.primaryKey);
    const found = await target.adapter.list(sessionOf(ctx, target.adapter), target.options.model, {
      filters: [{ field: target.model.primaryKey, op: '$in', value: written.map((entry) => entry.key) }],
      sort: [],
      limit: written.length,
      offset: 0,
      withTotal: false,
    });
    const records = new KeyIndex<RawRecord>(keyField?.comparison, keyField?.type ?? 'string');
    for (const row of found.rows) records.set(row[target.model.primaryKey], row);
    for (const { path, key } of written) {
      const record = records.get(key);
      if (record === undefined) continue;
      try {
        const deciding = enforce(target, ctx, 'GET', record);
        if (deciding !== undefined) await deciding;
      } catch (error) {
        if (!(error instanceof ApiError) || (error.status !== 403 && error.status !== 401)) throw error;
        errors.push(unreadable(relation, path, key));
      }
    }
  }
  if (errors.length > 0)
    throw ApiError.validation(errors, 'A reference points to a record that does not exist.');
}
