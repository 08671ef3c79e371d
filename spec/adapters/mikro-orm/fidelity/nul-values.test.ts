/**
 * A NUL byte in a list query's values, `$like`/`$ilike` patterns included (directly and through a
 * relation), is a 400 `invalid_query` on every target and in both modes: it never reaches the
 * database, whose drivers refuse it each their own way (a 500 on SQLite, a 503 on PostgreSQL).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Oddity, OddityNote } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Oddity, OddityNote],
  routes: new Map<ModelClass, string>([
    [Oddity, '/oddities'],
    [OddityNote, '/oddity_notes'],
  ]),
};

const PATHS = [
  '/oddities?filter[q][$like]=a%00%25',
  '/oddities?filter[q][$ilike]=%00',
  '/oddity_notes?filter[oddity.q][$like]=a%00',
  '/oddity_notes?filter[oddity.q][$ilike]=%25%00%25',
  '/oddities?filter[q]=a%00',
  '/oddities?filter[q][$in]=a,b%00',
];

await describeFidelity(
  'MikroORM fidelity: NUL bytes in list query values',
  (env) => {
    it('answers 400 invalid_query for every one', async () => {
      for (const path of PATHS) {
        const answer = await env().send('GET', path);
        assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`);
        assert.equal((answer.body as Json).code, 'invalid_query', path);
      }
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
