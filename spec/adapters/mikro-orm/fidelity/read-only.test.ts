/**
 * A `readonly: true` entity: MikroORM never writes one (a flush skips it), so the API serves its two
 * reads, as MikroORM loads the rows, and answers every write with 405, storing nothing. Every
 * target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ExchangeRate } from '../../../fixtures/mikro-orm/fidelity.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [ExchangeRate],
  routes: new Map([[ExchangeRate, '/exchange_rates']]),
};

/** The rows, written past MikroORM (which would skip them) by the test's own SQL. */
async function seed(env: FidelityEnv): Promise<void> {
  const connection = env.em().getConnection();
  await connection.execute('delete from exchange_rates');
  await connection.execute(
    "insert into exchange_rates (id, currency, rate) values (1, 'EUR', 1.0850), (2, 'GBP', 1.2700)",
  );
}

/** The table as MikroORM loads it. */
async function storedRates(env: FidelityEnv): Promise<Json[]> {
  const rows = await env.em().find(ExchangeRate, {}, { orderBy: { id: 'asc' } });
  return Promise.all(rows.map((row) => env.exactJson(ExchangeRate, row)));
}

await describeFidelity(
  'MikroORM fidelity: a readonly entity',
  (env) => {
    it('serves the list and the record as MikroORM loads them', async () => {
      const stored = await storedRates(env());
      assert.equal(stored.length, 2);
      const list = await env().send('GET', '/exchange_rates?sort=id');
      assert.equal(list.status, 200, JSON.stringify(list.body));
      assertSameJson(list.body, stored);
      const one = await env().send('GET', '/exchange_rates/2');
      assert.equal(one.status, 200, JSON.stringify(one.body));
      assertSameJson(one.body, stored[1]);
    });

    it('answers every write with 405 naming the reads, and stores nothing', async () => {
      const before = await storedRates(env());
      const writes: [string, string, unknown][] = [
        ['POST', '/exchange_rates', { id: 3, currency: 'CHF', rate: '1.1300' }],
        ['PUT', '/exchange_rates/1', { currency: 'EUR', rate: '9.9999' }],
        ['PATCH', '/exchange_rates/1', { rate: '9.9999' }],
        ['DELETE', '/exchange_rates/1', undefined],
      ];
      for (const [method, path, body] of writes) {
        const answer = await env().send(method, path, body);
        assert.equal(
          answer.status,
          405,
          `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`,
        );
        assert.equal(answer.headers.get('allow'), 'GET, HEAD, OPTIONS', `${method} ${path}`);
        assert.match(answer.headers.get('content-type') ?? '', /application\/problem\+json/);
      }
      assertSameJson(await storedRates(env()), before);
    });

    it('documents the reads only, with no write schema', async () => {
      const document = (await env().send('GET', '/openapi.json')).body as {
        paths: Record<string, Record<string, unknown>>;
        components: { schemas: Record<string, unknown> };
      };
      const methods = (path: string) =>
        Object.keys(document.paths[path] ?? {}).filter((key) => key !== 'parameters');
      assert.deepEqual(methods('/exchange_rates'), ['get']);
      assert.deepEqual(methods('/exchange_rates/{id}'), ['get']);
      const schemas = Object.keys(document.components.schemas).filter((name) =>
        name.startsWith('ExchangeRate'),
      );
      assert.ok(
        schemas.every((name) => !/Create|Update|Patch/.test(name)),
        `write schemas: ${schemas.join(', ')}`,
      );
    });
  },
  seed,
  { catalogue: CATALOGUE },
);
