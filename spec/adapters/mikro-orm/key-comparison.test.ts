/** What MySQL/MariaDB collations ignore when they compare text keys, read from their names. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collationComparison } from '../../../adapters/mikro-orm/key-comparison.js';

const MARIADB = { ignoresCase: true, ignoresAccents: true, ignoresTrailingSpaces: true } as const;

describe('collationComparison (MySQL/MariaDB)', () => {
  it('reads what a collation ignores from its name', () => {
    assert.deepEqual(collationComparison('utf8mb4_general_ci'), MARIADB);
    assert.deepEqual(collationComparison('utf8mb4_uca1400_ai_ci'), MARIADB);
    assert.deepEqual(collationComparison('utf8mb4_uca1400_as_ci'), {
      ignoresCase: true,
      ignoresTrailingSpaces: true,
    });
    assert.deepEqual(collationComparison('utf8mb4_0900_ai_ci'), { ignoresCase: true, ignoresAccents: true });
    assert.deepEqual(collationComparison('utf8mb4_bin'), { ignoresTrailingSpaces: true });
    assert.equal(collationComparison('utf8mb4_nopad_bin'), undefined);
    assert.equal(collationComparison('binary'), undefined);
  });
});
