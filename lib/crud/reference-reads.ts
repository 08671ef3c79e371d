/**
 * A write names related records by key (a many-to-one field, a many-to-many array): the caller must
 * be able to read each one through its own router, as `include=` would show it. Otherwise a user
 * could attach a task to a project they may not see, and learn from the answer that it exists
 * (security review, session 16). A record the caller may not read is answered exactly as a key
 * that names no record: the same 422, the same words, in the same list as the other keys' errors.
 * A many-to-one value the record holds already stays writable: a PUT that repeats what GET gave
 * changes nothing. A many-to-many array is checked whole (GET does not show it; telling which
 * linked keys pass would show links `include=` hides).
 */
import { ApiError, type FieldError } from '../errors.js';
import { sessionOf } from '../http/session.js';
import type { AppContext, RawRecord } from '../types.js';
import { authenticate, enforce } from './access.js';
import type { CrudPlan, ServedRelation } from './crud-plan.js';
import { KeyIndex } from './key-index.js';

/** One key a write gives for a relation, and where it sits in the body. */
interface WrittenKey {
  readonly path: string;
  readonly key: unknown;
}

/** The keys a write gives for one relation. */
function writtenKeys(relation: ServedRelation, data: Readonly<RawRecord>): WrittenKey[] {
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

/** The key field of the relation's target, as the relation names it. */
function targetKeyOf(relation: ServedRelation): string {
  return (
    relation.field?.relation?.targetKey ?? relation.collection?.targetKey ?? relation.plan.model.primaryKey
  );
}

/** The error of a key the caller may not read, or that names no record: the words each check gives. */
function namesNothing(relation: ServedRelation, { path, key }: WrittenKey): FieldError {
  if (relation.kind === 'many-to-one') return { path, message: 'References a record that does not exist.' };
  return {
    path,
    message: `no ${relation.collection?.target} has ${targetKeyOf(relation)} ${JSON.stringify(key)}`,
  };
}

/** Whether the caller may read this record through the target's router (its GET policy). */
async function readable(target: CrudPlan, ctx: AppContext, record: RawRecord): Promise<boolean> {
  try {
    const deciding = enforce(target, ctx, 'GET', record);
    if (deciding !== undefined) await deciding;
    return true;
  } catch (error) {
    // Any answer of the policy's (a 403, a 404 it chose) refuses; a crash is the server's.
    if (error instanceof ApiError) return false;
    throw error;
  }
}

/**
 * The errors of the keys a create or update body gives for relations whose target router guards
 * its reads (`secure`, or a GET policy): its authentication runs (its 401), then its GET policy on
 * each named record, as `GET /{id}` decides. A key naming no record is an error here too where the
 * target has a policy, so that a missing and an unreadable one read alike; elsewhere missing keys
 * are left to the other checks. A target anyone may read costs nothing; one with a policy costs a
 * list of the named records per relation. `current`: the stored record of an update.
 */
export async function unreadableReferences(
  plan: CrudPlan,
  ctx: AppContext,
  data: Readonly<RawRecord>,
  current?: Readonly<RawRecord>,
): Promise<FieldError[]> {
  const relations = plan.writtenRelations();
  if (relations.length === 0) return [];
  const errors: FieldError[] = [];
  for (const relation of relations) {
    const target = relation.plan;
    const policy = target.options.policies.GET;
    if (policy === undefined && !target.options.secure) continue;
    let written = writtenKeys(relation, data);
    // A many-to-one value the record holds already is no new link.
    const field = relation.field?.name;
    const stored = current === undefined || field === undefined ? undefined : current[field];
    if (stored !== undefined && stored !== null && written.length > 0) {
      const held = new KeyIndex<true>(undefined, relation.field?.type);
      held.set(stored, true);
      written = written.filter((entry) => held.get(entry.key) === undefined);
    }
    if (written.length === 0) continue;
    const authenticating = authenticate(target, ctx, 'GET');
    if (authenticating !== undefined) await authenticating;
    if (policy === undefined) continue;
    const keyName = targetKeyOf(relation);
    const keyField = target.model.fieldsByName.get(keyName);
    const found = await target.adapter.list(sessionOf(ctx, target.adapter), target.options.model, {
      filters: [{ field: keyName, op: '$in', value: written.map((entry) => entry.key) }],
      sort: [],
      limit: written.length,
      offset: 0,
      withTotal: false,
    });
    const records = new KeyIndex<RawRecord>(keyField?.comparison, keyField?.type);
    for (const row of found.rows) records.set(row[keyName], row);
    const verdicts = await Promise.all(
      written.map(async (entry) => {
        const record = records.get(entry.key);
        return record !== undefined && (await readable(target, ctx, record));
      }),
    );
    written.forEach((entry, index) => {
      if (verdicts[index] !== true) errors.push(namesNothing(relation, entry));
    });
  }
  return errors;
}
