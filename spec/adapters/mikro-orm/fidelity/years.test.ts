/**
 * Years at the edges of what each database holds: a write the column cannot hold as sent is a 422
 * naming the field (MariaDB holds 1000 to 9999, and mysql2 reads 0050 back as 1950; PostgreSQL has
 * no year 0); an early year a database does hold round-trips, and filters, sorts and the keyset
 * walk take it (Date.UTC once read the years 0 to 99 as 1900 to 1999). A leap second (`23:59:60`),
 * which RFC 3339 allows and no JavaScript Date holds, is a 422 everywhere. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Almanac } from '../../../fixtures/mikro-orm/fidelity.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = { entities: [Almanac], routes: new Map([[Almanac, '/almanacs']]) };

/** The first year the target's date columns hold. */
function firstYear(env: FidelityEnv): number {
  if (env.target === 'mariadb') return 1000;
  if (env.target === 'postgresql') return 1;
  return 0;
}

/** Asserts a 422 whose only error names `path`. */
function assertRefused(answer: { status: number; body: unknown }, path: string, what: string): void {
  assert.equal(answer.status, 422, `${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  const errors = (answer.body as { errors?: { path: string }[] }).errors ?? [];
  assert.deepEqual(
    errors.map((error) => error.path),
    [path],
    what,
  );
}

await describeFidelity(
  'MikroORM fidelity: years',
  (env) => {
    it('refuses a leap second in a body, naming the field', async () => {
      assertRefused(await env().send('POST', '/almanacs', { at: '2016-12-31T23:59:60Z' }), 'at', 'POST');
      const created = await env().send('POST', '/almanacs', { at: '2016-12-31T23:59:59Z' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      assertRefused(
        await env().send('PATCH', `/almanacs/${id}`, { at: '2016-12-31T23:59:60Z' }),
        'at',
        'PATCH',
      );
      assert.equal(((await env().mikroJson(Almanac, id)) as Json).at, '2016-12-31T23:59:59.000Z');
    });

    it('refuses a year before the first the database holds, naming the field', async () => {
      const first = firstYear(env());
      if (first === 0) return;
      const early = String(first - 1).padStart(4, '0');
      const at = '2020-01-01T00:00:00Z';
      assertRefused(await env().send('POST', '/almanacs', { day: `${early}-12-31`, at }), 'day', 'date');
      assertRefused(
        await env().send('POST', '/almanacs', { at: `${early}-06-30T12:00:00Z` }),
        'at',
        'datetime',
      );
      const year = String(first).padStart(4, '0');
      const kept = await env().send('POST', '/almanacs', {
        day: `${year}-01-01`,
        at: `${year}-06-30T12:00:00Z`,
      });
      assert.equal(kept.status, 201, JSON.stringify(kept.body));
      assertSameJson(kept.body, await env().mikroJson(Almanac, (kept.body as Json).id));
    });

    it('refuses a datetime an offset carries past the year 9999, SQLite too (its JSON form would be no date-time)', async () => {
      const late = await env().send('POST', '/almanacs', { at: '9999-12-31T23:30:00-01:00' });
      assertRefused(late, 'at', 'year 10000');
      const created = await env().send('POST', '/almanacs', { at: '2020-01-01T00:00:00Z' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const path = `/almanacs/${String((created.body as Json).id)}`;
      assertRefused(await env().send('PATCH', path, { at: '9999-12-31T23:59:59-00:30' }), 'at', 'PATCH');
    });

    it('keeps any year in an object embeddable, one JSON value, as MikroORM does', async () => {
      const span = { from: '0500-01-01', at: '0500-01-01T00:00:00.000Z' };
      const created = await env().send('POST', '/almanacs', { at: '2020-01-01T00:00:00Z', span });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual((created.body as Json).span, span);
      assertSameJson(created.body, await env().mikroJson(Almanac, (created.body as Json).id));
    });

    it('keeps an early year it holds, and filters, sorts and pages by it', async () => {
      const year = env().target === 'mariadb' ? '1001' : '0050';
      // Both modes share the database: each writes its own day.
      const date = env().mode === 'fast' ? '05' : '06';
      const day = `${year}-05-${date}`;
      const at = `${year}-05-${date}T05:05:05.000Z`;
      const created = await env().send('POST', '/almanacs', { day, at });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      assert.equal((created.body as Json).day, day);
      assert.equal((created.body as Json).at, at);
      assertSameJson(created.body, await env().mikroJson(Almanac, id));
      for (const filter of [`filter[day]=${day}`, `filter[at]=${at}`]) {
        const found = await env().send('GET', `/almanacs?${filter}`);
        assert.equal(found.status, 200, `${filter}: ${JSON.stringify(found.body)}`);
        assert.deepEqual(
          (found.body as Json[]).map((row) => row.id),
          [id],
          filter,
        );
      }
      // The first page ends on the early row; its next link must be accepted.
      const first = await env().send(
        'GET',
        `/almanacs?sort=at,id&filter[at][$gte]=${at}&filter[at][$lte]=2017-01-01T00:00:00Z&limit=1&after=`,
      );
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(((first.body as Json[])[0] as Json).at, at);
      const next = /<([^>]+)>;\s*rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
      assert.ok(next !== undefined, 'the leap-second test wrote a later row: there is a next page');
      const url = new URL(next, 'http://localhost');
      const page = await env().send('GET', `${url.pathname}${url.search}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      assert.ok((page.body as Json[]).length > 0);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
