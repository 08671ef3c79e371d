/**
 * MariaDB: a filter value the column's character set cannot hold (an emoji for a latin1 column)
 * makes the database refuse the comparison ("Illegal mix of collations"): a 400 naming the filter,
 * not a 500. Both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { LatinWord } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity } from './harness.js';

const CATALOGUE: Catalogue = { entities: [LatinWord], routes: new Map([[LatinWord, '/latin_words']]) };

await describeFidelity(
  'MikroORM fidelity: a filter value outside the column character set',
  (env) => {
    it('is a 400 invalid_query, for equality and $in alike', async () => {
      for (const query of [
        'filter[name]=%F0%9F%98%80',
        'filter[name][$in]=%F0%9F%98%80,a',
        'filter[name][$ne]=%CE%A9',
      ]) {
        const answer = await env().send('GET', `/latin_words?${query}`);
        assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
        assert.equal((answer.body as { code?: string }).code, 'invalid_query');
      }
      const fits = await env().send('GET', '/latin_words?filter[name]=caf%C3%A9');
      assert.equal(fits.status, 200, JSON.stringify(fits.body));
    });
  },
  undefined,
  { catalogue: CATALOGUE, only: ['mariadb'] },
);
