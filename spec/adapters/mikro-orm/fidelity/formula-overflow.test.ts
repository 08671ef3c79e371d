/**
 * A formula whose value leaves int32 (`Formulated.twice = n * 2`): PostgreSQL computes it in int4
 * and fails every read of a row where it overflows, where SQLite and MariaDB give the value. No
 * client value is at fault there: the API answers a logged 500 with the generic body, never a 400
 * invalid_query (no filter caused it) nor a 404 (the row exists), and a create or update whose
 * answer cannot be read changes nothing. The formula's schema and filters claim no column's range.
 * Every target, both modes (a formula keeps the model on the plain path in both).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Formulated } from '../../../fixtures/mikro-orm/fidelity.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, idsOf } from './harness.js';

/** What the applications logged as failed requests, newest last. */
const logged: unknown[] = [];

const CATALOGUE: Catalogue = {
  entities: [Formulated],
  routes: new Map([[Formulated, '/formulateds']]),
  logger: { info() {}, warn() {}, error: (_message, error) => logged.push(error) },
};

// 2^30: `n * 2` is 2^31, one past int32.
const BIG = 1_073_741_824;

/** Whether PostgreSQL computes the formula, in int4. */
const overflows = (env: FidelityEnv) => env.target === 'postgresql';

/** The table emptied, then one row whose formula overflows on PostgreSQL, written past the API; its key. */
async function storeBigRow(env: FidelityEnv): Promise<number> {
  const em = env.em();
  await em.nativeDelete(Formulated, {});
  return (await em.insert(Formulated, { n: BIG } as never)) as number;
}

/** Asserts a 500 with the generic body, and that the database's error was logged. */
function assertLogged500(answer: { status: number; body: unknown }, what: string, from: number): void {
  assert.equal(answer.status, 500, `${what}: ${JSON.stringify(answer.body)}`);
  assert.deepEqual(
    { code: (answer.body as { code?: string }).code, detail: (answer.body as { detail?: string }).detail },
    { code: 'internal_error', detail: 'An unexpected error occurred.' },
    what,
  );
  const errors = logged.slice(from).map((error) => String((error as Error)?.message ?? error));
  assert.ok(
    errors.some((message) => /out of range/.test(message)),
    `${what}: logged ${JSON.stringify(errors)}`,
  );
}

await describeFidelity(
  'MikroORM fidelity: a formula that overflows on a stored row',
  (env) => {
    it('documents and filters the formula without a column range', async () => {
      const doc = await env().get<{
        components: { schemas: Record<string, { properties: Record<string, unknown> }> };
      }>('/openapi.json');
      const schema = doc.components.schemas.Formulated?.properties.twice as { maximum?: number };
      assert.equal(schema.maximum, Number.MAX_SAFE_INTEGER);
      // Values past int32 are values of the formula: filters take them and give em.find's rows.
      const e = env();
      const em = e.em();
      await em.nativeDelete(Formulated, {});
      // PostgreSQL fails on a row whose formula overflows (the next test): only rows it computes here.
      for (const n of overflows(e) ? [5, 1_073_741_823] : [5, 1_073_741_823, BIG])
        await em.insert(Formulated, { n } as never);
      for (const [query, where] of [
        ['filter[twice]=2147483648', { twice: 2147483648 }],
        ['filter[twice][$gt]=2147483647', { twice: { $gt: 2147483647 } }],
        ['filter[twice][$in]=10,4294967296', { twice: { $in: [10, 4294967296] } }],
      ] as const) {
        const expected = await e.mikroIds(Formulated, where, { id: 'asc' });
        assert.deepEqual(idsOf(await e.get(`/formulateds?${query}&sort=id`)), expected, query);
      }
    });

    it('answers every read of the row a logged 500 where MikroORM fails, its value elsewhere', async () => {
      const e = env();
      const id = await storeBigRow(e);
      const reads = [
        ['GET', '/formulateds'],
        ['GET', '/formulateds?filter[n]=1073741824'],
        ['GET', '/formulateds?sort=id&limit=1&after='],
        ['GET', `/formulateds/${id}`],
        ['PATCH', `/formulateds/${id}`],
        ['DELETE', `/formulateds/${id}`],
      ] as const;
      if (overflows(e)) {
        await assert.rejects(e.em().find(Formulated, {}), /out of range/);
        for (const [method, path] of reads) {
          const from = logged.length;
          const answer = await e.send(method, path, method === 'PATCH' ? { n: 1 } : undefined);
          assertLogged500(answer, `${method} ${path}`, from);
        }
        // Nothing changed, nothing removed.
        const rows = await e.em().getConnection().execute('select n from formulateds', [], 'all');
        assert.deepEqual(
          rows.map((row: { n: unknown }) => Number(row.n)),
          [BIG],
        );
        return;
      }
      const expected = await e.mikroJson(Formulated, id);
      assert.equal(expected?.twice, 2 * BIG);
      assertSameJson(await e.get('/formulateds'), [expected]);
      assertSameJson(await e.get(`/formulateds/${id}`), expected);
    });

    it('stores nothing when the answer of a create or update cannot be read', async () => {
      const e = env();
      const em = e.em();
      await em.nativeDelete(Formulated, {});
      const small = (await em.insert(Formulated, { n: 1 } as never)) as number;
      const beforeCreate = logged.length;
      const created = await e.send('POST', '/formulateds', { n: BIG });
      const beforeUpdate = logged.length;
      const patched = await e.send('PATCH', `/formulateds/${small}`, { n: BIG });
      const rows = (await e
        .em()
        .getConnection()
        .execute('select id, n from formulateds order by id', [], 'all')) as {
        id: unknown;
        n: unknown;
      }[];
      if (overflows(e)) {
        assertLogged500(created, 'POST', beforeCreate);
        assertLogged500(patched, 'PATCH', beforeUpdate);
        assert.deepEqual(
          rows.map((row) => Number(row.n)),
          [1],
          'the create stored no row and the update changed none',
        );
        return;
      }
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assertSameJson(created.body, await e.mikroJson(Formulated, (created.body as { id: number }).id));
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assertSameJson(patched.body, await e.mikroJson(Formulated, small));
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
