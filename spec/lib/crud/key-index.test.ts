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

  it('folds the case of A–Z only under an ASCII comparison (SQLite NOCASE)', () => {
    const index = new KeyIndex<string>({ ignoresCase: 'ascii' });
    index.set('FR', 'France');
    index.set('É', 'capital');
    assert.equal(index.get('fr'), 'France');
    assert.equal(index.get('é'), undefined);
    assert.equal(comparableKey('ÉA', { ignoresCase: 'ascii' }), 'Éa');
  });

  it('holds ß equal to s or ss as the collation family does, ẞ only to itself', () => {
    const general = { ...MARIADB, sharpS: 's' } as const;
    const unicode = { ...MARIADB, sharpS: 'ss' } as const;
    assert.equal(comparableKey('straße', general), comparableKey('STRASE', general));
    assert.notEqual(comparableKey('straße', general), comparableKey('STRASSE', general));
    assert.equal(comparableKey('straße', unicode), comparableKey('STRASSE', unicode));
    assert.notEqual(comparableKey('straße', unicode), comparableKey('STRASE', unicode));
    // Without a known rule ß is only itself: the key is left unpaired rather than paired wrongly.
    assert.notEqual(comparableKey('straße', MARIADB), comparableKey('STRASSE', MARIADB));
    assert.notEqual(comparableKey('STRAẞE', unicode), comparableKey('strasse', unicode));
  });

  it('ignores the accents of Latin and Greek letters, not marks MariaDB weighs', () => {
    assert.equal(comparableKey('Ǻngström', MARIADB), 'angstrom');
    assert.equal(comparableKey('ά', MARIADB), 'α');
    // general_ci holds these apart: a Devanagari vowel sign, Cyrillic й, and ≠ (= with a stroke).
    for (const [marked, bare] of [
      ['कि', 'क'],
      ['й', 'и'],
      ['≠', '='],
    ])
      assert.notEqual(comparableKey(marked, MARIADB), comparableKey(bare, MARIADB), marked);
  });

  it('folds the case of letters only where the collations do, and precomposed letters only', () => {
    assert.equal(comparableKey('ΣΟΦΊΑ', MARIADB), 'σοφια');
    // Georgian, Cherokee and Latin Extended-B capitals: general_ci and unicode_ci keep their case.
    for (const capital of ['Ⴀ', 'Ꭰ', 'Ƀ']) assert.equal(comparableKey(capital, MARIADB), capital);
    // JavaScript lowers İ to i and a combining dot; the collations hold İ equal to I (the dot an accent).
    assert.equal(comparableKey('İ', { ignoresCase: true }), 'İ');
    assert.equal(comparableKey('İ', MARIADB), 'i');
    // A decomposed e + acute is two code points to general_ci: not folded into e.
    assert.equal(comparableKey('e\u0301', MARIADB), 'e\u0301');
  });

  it('compares numbers exactly', () => {
    const index = new KeyIndex<string>(MARIADB);
    index.set(1, 'one');
    assert.equal(index.get('1'), 'one');
    assert.equal(comparableKey(' A ', MARIADB), ' a');
  });
});
