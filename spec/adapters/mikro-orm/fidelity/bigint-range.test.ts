/**
 * A 64-bit column holds −2^63 … 2^63−1: a value beyond is a 422 naming the field on every database,
 * before any SQL (PostgreSQL and MariaDB would refuse it; SQLite would keep a rounded REAL), in
 * both JSON forms MikroORM gives a bigint (a string, or a number in `mode: 'number'`). Every target,
 * both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Counter } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Counter],
  routes: new Map<ModelClass, string>([[Counter, '/counters']]),
};

await describeFidelity(
  'MikroORM fidelity: bigint columns hold 64 bits',
  (env) => {
    it('a string beyond 64 bits is a 422 naming the field; the bounds are stored', async () => {
      for (const big of ['9223372036854775808', '-9223372036854775809']) {
        const answer = await env().send('POST', '/counters', { big });
        assert.equal(answer.status, 422, JSON.stringify(answer.body));
        assert.deepEqual(
          (answer.body as { errors: { path: string }[] }).errors.map((error) => error.path),
          ['big'],
        );
      }
      for (const big of ['9223372036854775807', '-9223372036854775808']) {
        const answer = await env().send('POST', '/counters', { big });
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        assert.equal((await env().mikroJson(Counter, (answer.body as Json).id))?.big, big);
      }
    });

    it('an embedded bigint beyond 64 bits is a 422 naming it by its dotted path', async () => {
      const answer = await env().send('POST', '/counters', { reading: { n: '9223372036854775808' } });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.deepEqual(
        (answer.body as { errors: { path: string }[] }).errors.map((error) => error.path),
        ['reading.n'],
      );
      const fits = await env().send('POST', '/counters', { reading: { n: '9223372036854775807' } });
      assert.equal(fits.status, 201, JSON.stringify(fits.body));
    });

    it("a number beyond what JavaScript holds exactly in `mode: 'number'` is a 422 naming the field", async () => {
      const answer = await env().send('POST', '/counters', { count: 2 ** 64 });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.deepEqual(
        (answer.body as { errors: { path: string }[] }).errors.map((error) => error.path),
        ['count'],
      );
      // 2^53 + 1 would arrive as 2^53 (JSON numbers are doubles): only safe integers are taken.
      const rounded = await env().send('POST', '/counters', { count: 2 ** 53 });
      assert.equal(rounded.status, 422, JSON.stringify(rounded.body));
      const fits = await env().send('POST', '/counters', { count: 2 ** 53 - 1 });
      assert.equal(fits.status, 201, JSON.stringify(fits.body));
      assert.equal((await env().mikroJson(Counter, (fits.body as Json).id))?.count, 2 ** 53 - 1);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
