/**
 * `KeyIndex` pairs a key with a record as the database did: exactly, else under the key's declared
 * comparison when one record alone answers it, so that a loose match never picks a record.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { comparableKey, KeyIndex } from '../../../lib/crud/key-index.js';

const MARIADB = { ignoresCase: true, ignoresAccents: true, ignoresTrailingSpaces: true } as const;

describe('KeyIndex', () => {
  it('matches exactly without a comparison (PostgreSQL, SQLite: fr and FR are two records)', () => {
    const index = new KeyIndex<string>(undefined);
    index.set('FR', 'France');
    assert.equal(index.get('FR'), 'France');
    assert.equal(index.get('fr'), undefined);
    assert.equal(index.get('FR '), undefined);
  });

  it('matches a key the database holds equal (case, accents, trailing spaces), the exact one first', () => {
    const index = new KeyIndex<string>(MARIADB);
    index.set('FR', 'France');
    index.set('Ré', 'accented');
    assert.deepEqual(
      ['fr', 'FR  ', 're', 'RÉ'].map((key) => index.get(key)),
      ['France', 'France', 'accented', 'accented'],
    );
    assert.equal(index.get('NL'), undefined);
  });

  it('leaves a key two records answer loosely unmatched, and still finds each exactly', () => {
    const index = new KeyIndex<string>(MARIADB);
    index.set('fr', 'lower');
    index.set('FR', 'upper');
    assert.equal(index.get('Fr'), undefined);
    assert.equal(index.get('fr'), 'lower');
    assert.equal(index.get('FR'), 'upper');
  });

  it('compares numbers exactly', () => {
    const index = new KeyIndex<string>(MARIADB);
    index.set(1, 'one');
    assert.equal(index.get('1'), 'one');
    assert.equal(comparableKey(' A ', MARIADB), ' a');
  });
});
