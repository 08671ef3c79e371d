/**
 * Arrays MikroORM would store in a form that reads back changed are refused (422 naming the item),
 * before anything is written; every other array is stored and answered as sent, as MikroORM reads
 * it back (adapters/mikro-orm/array-items.ts). Each case is first shown on MikroORM itself: the
 * values refused are exactly those whose fresh read differs. Every target, both modes; the native
 * enum array on PostgreSQL only.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { buildPlan, type Dialect } from '../../../../adapters/mikro-orm/plan.js';
import { defaultTableName } from '../../../../lib/model/table-name.js';
import type { ModelClass } from '../../../../lib/types.js';
import { Listing, NativeListing } from '../../../fixtures/mikro-orm/round-trips.js';
import { type Answer, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

/** A catalogue of one model on its table's name. */
function catalogueOf(model: ModelClass): Catalogue {
  return { entities: [model], routes: new Map([[model, `/${defaultTableName(model.name)}`]]) };
}

/** An array value of one property, and the dialects where MikroORM reads it back changed. */
interface ArrayCase {
  readonly property: 'tags' | 'nums' | 'kinds';
  readonly value: readonly unknown[];
  readonly changes: readonly Dialect[];
  /** Where it changes: the item the 422 names and what its message says. */
  readonly at?: number;
  readonly why?: RegExp;
}

const GENERIC: readonly Dialect[] = ['sqlite', 'mysql'];
const PG: readonly Dialect[] = ['postgresql'];

const LISTING_CASES: readonly ArrayCase[] = [
  // PostgreSQL: a bare NULL (any case, blanks around it), blanks around a bare item, control
  // characters in a quoted item.
  { property: 'tags', value: ['NULL'], changes: PG, why: /as null/ },
  { property: 'tags', value: ['a', 'null'], changes: PG, at: 1, why: /as null/ },
  { property: 'tags', value: ['Null '], changes: PG, why: /as null/ },
  { property: 'tags', value: [' sp '], changes: PG, why: /blanks/ },
  { property: 'tags', value: ['a', '\tx'], changes: PG, at: 1, why: /blanks/ },
  { property: 'tags', value: ['a', ' '], changes: PG, at: 1, why: /blanks/ },
  { property: 'tags', value: ['a\nb,c'], changes: PG, why: /control characters/ },
  // SQLite, MariaDB: one empty string, an empty string after a quoted item at the end.
  { property: 'tags', value: [''], changes: GENERIC, why: /one empty string/ },
  { property: 'tags', value: ['a,b', ''], changes: GENERIC, at: 1, why: /at the end/ },
  { property: 'tags', value: ['x"y', 'a', ''], changes: GENERIC, at: 2, why: /at the end/ },
  // Read back as sent everywhere.
  { property: 'tags', value: [], changes: [] },
  { property: 'tags', value: ['', ''], changes: [] },
  { property: 'tags', value: ['', 'a'], changes: [] },
  { property: 'tags', value: ['a,b', '', 'c'], changes: [] },
  { property: 'tags', value: ['x"y', 'back\\slash', '{x}', 'a b', 'a\nb', 'NULLS', '"q"', 'é'], changes: [] },
  { property: 'nums', value: [1.5, -2, 1e21, 0.1, 0], changes: [] },
  // An enum array (text with a CHECK on PostgreSQL): a valid item MikroORM writes as null is refused
  // for that reason, not as a value the CHECK does not allow.
  { property: 'kinds', value: ['NULL'], changes: PG, why: /as null/ },
  { property: 'kinds', value: ['a', ' sp '], changes: PG, at: 1, why: /blanks/ },
  { property: 'kinds', value: ['a,b', ''], changes: GENERIC, at: 1, why: /at the end/ },
  { property: 'kinds', value: ['{x}', 'a,b', 'a'], changes: [] },
];

/** Whether MikroORM's own fresh read of an entity it created with this value shows another value. */
async function mikroOrmChanges(
  env: FidelityEnv,
  model: ModelClass,
  property: string,
  value: unknown,
): Promise<boolean> {
  const em = env.em();
  const entity = em.create(model as never, { [property]: value } as never) as { id: number };
  try {
    await em.flush();
  } catch {
    // The database refused what MikroORM wrote for it (PostgreSQL's CHECK or enum type).
    return true;
  }
  // MikroORM may not even load what it wrote (a null item of a native enum array).
  const fresh = await env.mikroJson(model, entity.id).catch(() => undefined);
  // Gone again, so that the API's lists are not MikroORM's rows.
  await env.em().nativeDelete(model as never, { id: entity.id } as never);
  return JSON.stringify(fresh?.[property]) !== JSON.stringify(value);
}

/** Asserts a 422 naming the item of the case, with its reason (not the CHECK's "not allowed"). */
function assertRefused(answer: Answer, test: ArrayCase, label: string): void {
  assert.equal(answer.status, 422, `${label}: ${JSON.stringify(answer.body)}`);
  const [error, ...others] = (answer.body as { errors: { path: string; message: string }[] }).errors;
  assert.equal(others.length, 0, label);
  assert.equal(error?.path, `${test.property}.${test.at ?? 0}`, label);
  assert.match(error?.message ?? '', test.why ?? /./, label);
  assert.doesNotMatch(error?.message ?? '', /not allowed/, label);
}

/** POSTs and PATCHes each case: refused where MikroORM changes it, else answered and stored as sent. */
async function checkCases(env: FidelityEnv, model: ModelClass, cases: readonly ArrayCase[]): Promise<void> {
  const { dialect } = buildPlan(env.adapter.orm, model);
  const route = env.routeOf(model);
  const existing = await env.send('POST', route, {});
  assert.equal(existing.status, 201, JSON.stringify(existing.body));
  const id = (existing.body as Json).id;
  for (const test of cases) {
    const { property, value, changes } = test;
    const label = `${property} ${JSON.stringify(value)} on ${dialect}`;
    const changed = changes.includes(dialect);
    assert.equal(await mikroOrmChanges(env, model, property, value), changed, `MikroORM itself: ${label}`);
    const before = (await env.get<Json[]>(`${route}?limit=1000`)).length;
    const created = await env.send('POST', route, { [property]: value });
    const patched = await env.send('PATCH', `${route}/${String(id)}`, { [property]: value });
    if (changed) {
      assertRefused(created, test, `POST ${label}`);
      assertRefused(patched, test, `PATCH ${label}`);
      assert.equal((await env.get<Json[]>(`${route}?limit=1000`)).length, before, `nothing stored: ${label}`);
      continue;
    }
    for (const answer of [created, patched]) {
      assert.ok(answer.status === 200 || answer.status === 201, `${label}: ${JSON.stringify(answer.body)}`);
      const body = answer.body as Json;
      assert.deepEqual(body[property], value, label);
      assert.deepEqual(body, await env.mikroJson(model, body.id), label);
    }
  }
}

await describeFidelity(
  'MikroORM fidelity: array values',
  (env) => {
    it('Listing: an array that would read back changed is a 422 naming the item, any other is stored as sent', async () => {
      await checkCases(env(), Listing, LISTING_CASES);
    });

    it("Listing: an inline embeddable's array is checked as the model's own", async () => {
      const { dialect } = buildPlan(env().adapter.orm, Listing);
      const route = env().routeOf(Listing);
      const changed = dialect === 'postgresql' ? ['a', 'NULL'] : ['a,b', ''];
      assert.equal(await mikroOrmChanges(env(), Listing, 'labels', { tags: changed }), true);
      const refused = await env().send('POST', route, { labels: { tags: changed } });
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.deepEqual(
        (refused.body as { errors: { path: string }[] }).errors.map((error) => error.path),
        ['labels.tags.1'],
      );
      const kept = ['a,b', '', 'c'];
      const created = await env().send('POST', route, { labels: { tags: kept } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual((created.body as { labels: unknown }).labels, { tags: kept });
      assert.deepEqual(created.body, await env().mikroJson(Listing, (created.body as Json).id));
    });
  },
  undefined,
  { catalogue: catalogueOf(Listing) },
);

await describeFidelity(
  'MikroORM fidelity: native enum arrays',
  (env) => {
    it('NativeListing: an item PostgreSQL would read as null or trim is a 422, and the list stays readable', async () => {
      await checkCases(env(), NativeListing, [
        { property: 'kinds', value: ['NULL'], changes: PG, why: /as null/ },
        { property: 'kinds', value: [' sp '], changes: PG, why: /blanks/ },
        { property: 'kinds', value: ['{x}', 'a,b', '', 'a'], changes: [] },
      ]);
    });

    it('NativeListing: a row holding a null item, written by someone else, is one MikroORM itself cannot load', async () => {
      const em = env().em();
      const table = env().meta(NativeListing).tableName;
      await em.getConnection().execute(`insert into ${table} (kinds) values ('{NULL}')`);
      await assert.rejects(env().em().find(NativeListing, {}), /Invalid enum array items/);
      // Documented (docs/models.md): the list fails as MikroORM's own find does.
      await em.getConnection().execute(`delete from ${table} where kinds = '{NULL}'`);
    });
  },
  undefined,
  { catalogue: catalogueOf(NativeListing), only: ['postgresql'] },
);
