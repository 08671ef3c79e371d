/**
 * The PostgreSQL array literal parser of array-items.ts reads literals as the server does: each
 * literal is cast to `text[]` by a real server and the items compared (a refused literal: undefined).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parsePostgresArray } from '../../../adapters/mikro-orm/array-items.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../support/databases.js';

const LITERALS = [
  '{}',
  '{ }',
  ' { } ',
  '{a,b}',
  '{NULL}',
  '{null,Null , nULL}',
  '{ a , b }',
  '{"NULL"}',
  '{\\NULL}',
  '{"",""}',
  '{a b,  c\td  }',
  '{"a\\"b","c\\\\d","\\n\\t"}',
  '{a\\ ,b}',
  '{"{x}","a,b"}',
  '{a,}',
  '{,a}',
  '{a"b}',
  '{"a"b}',
  '{a}x',
  'a',
  '{"x}',
];

const option = await requireTarget('postgresql');
describe('parsePostgresArray against PostgreSQL', option, () => {
  let db: TestDatabase | undefined;
  let client: import('pg').Client | undefined;
  before(async () => {
    db = await createTestDatabase('postgresql');
    const { default: pg } = await import('pg');
    client = new pg.Client({ connectionString: db.url.replace(/^postgresql:/, 'postgres:') });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.drop();
  });

  it('gives the items the server gives, and refuses what the server refuses', async () => {
    for (const literal of LITERALS) {
      let server: (string | null)[] | undefined;
      try {
        const result = await client?.query<{ v: (string | null)[] }>('select $1::text[] as v', [literal]);
        server = result?.rows[0]?.v;
      } catch {
        server = undefined;
      }
      assert.deepEqual(parsePostgresArray(literal), server, literal);
    }
  });
});
