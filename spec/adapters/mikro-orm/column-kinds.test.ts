/**
 * What the adapter tells the core of columns whose kind the field type does not give: which number
 * columns are single precision (no keyset sort key), and which text-like fields take no `$like`
 * (a uuid, a foreign key to one, a native enum, an enum of numbers). The same on every target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import type { ModelClass } from '../../../lib/types.js';
import { Precision, Uk, UkRef } from '../../fixtures/mikro-orm/column-kinds.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

for (const target of databaseTargets()) {
  describe(`MikroOrmAdapter.describe: column kinds on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    let adapter: MikroOrmAdapter;

    before(async () => {
      db = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Precision, Uk, UkRef],
        schema: 'create',
      });
    });
    after(async () => {
      await adapter?.close();
      await db?.drop();
    });

    /** The named fields of a model, each with the flag read from its description. */
    function flags(model: ModelClass, names: readonly string[], flag: 'singlePrecision' | 'patterns') {
      const fields = adapter.describe(model).fieldsByName;
      return Object.fromEntries(names.map((name) => [name, fields.get(name)?.[flag]]));
    }

    it('marks single-precision columns, not doubles', () => {
      assert.deepEqual(
        flags(Precision, ['single', 'float4', 'double', 'float8', 'spelled'], 'singlePrecision'),
        {
          single: true,
          float4: true,
          double: undefined,
          float8: undefined,
          spelled: undefined,
        },
      );
    });

    it('rules patterns out on uuids, keys to them and enums of numbers, not on text', () => {
      assert.deepEqual(flags(Uk, ['id', 'plain', 'rank', 'name'], 'patterns'), {
        id: false,
        plain: undefined,
        rank: false,
        name: undefined,
      });
      assert.deepEqual(flags(UkRef, ['uk'], 'patterns'), { uk: false });
    });
  });
}
