/** What MySQL/MariaDB and SQLite collations ignore when they compare text keys, and when the adapter knows it. */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { MikroORM } from '@mikro-orm/core';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import { MariaDbDriver } from '@mikro-orm/mariadb';
import { MikroOrmAdapter, mikroOrmOptions } from '../../../adapters/mikro-orm/index.js';
import {
  collationComparison,
  icuComparison,
  sqliteCollationComparison,
} from '../../../adapters/mikro-orm/key-comparison.js';
import { exactKeyEntities, Realm } from '../../fixtures/mikro-orm/fidelity.js';

const MARIADB = { ignoresCase: true, ignoresAccents: true, ignoresTrailingSpaces: true } as const;

describe('collationComparison (MySQL/MariaDB)', () => {
  it('reads what a collation ignores from its name', () => {
    assert.deepEqual(collationComparison('utf8mb4_general_ci'), { ...MARIADB, sharpS: 's' });
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

  it('says what ß equals only for the families whose rule is known (general: s, unicode: ss)', () => {
    assert.equal(collationComparison('utf8mb4_general_nopad_ci')?.sharpS, 's');
    assert.equal(collationComparison('utf8mb4_unicode_ci')?.sharpS, 'ss');
    assert.equal(collationComparison('utf8mb4_unicode_520_nopad_ci')?.sharpS, 'ss');
    assert.equal(collationComparison('utf8mb4_uca1400_ai_ci')?.sharpS, undefined);
    assert.equal(collationComparison('utf8mb4_general_ci')?.sharpS, 's');
    assert.equal(collationComparison('utf8mb4_0900_as_cs')?.sharpS, undefined);
  });
});

describe('collationComparison of language collations', () => {
  it('folds neither case nor accents (Swedish å is no a, Turkish I no i), only PAD SPACE', () => {
    for (const name of [
      'utf8mb4_swedish_ci',
      'utf8mb4_turkish_ci',
      'utf8mb4_german2_ci',
      'latin1_swedish_ci',
      'utf8mb4_uca1400_swedish_ai_ci',
    ])
      assert.deepEqual(collationComparison(name), { ignoresTrailingSpaces: true }, name);
    assert.equal(collationComparison('utf8mb4_sv_0900_ai_ci'), undefined);
    assert.deepEqual(collationComparison('utf8mb3_general_ci'), { ...MARIADB, sharpS: 's' });
  });
});

describe('sqliteCollationComparison', () => {
  it('reads NOCASE (A–Z only) and RTRIM; BINARY and others compare exactly', () => {
    assert.deepEqual(sqliteCollationComparison('NOCASE'), { ignoresCase: 'ascii' });
    assert.deepEqual(sqliteCollationComparison('nocase'), { ignoresCase: 'ascii' });
    assert.deepEqual(sqliteCollationComparison('RTRIM'), { ignoresTrailingSpaces: true });
    assert.equal(sqliteCollationComparison('BINARY'), undefined);
  });
});

describe('icuComparison (PostgreSQL nondeterministic collations)', () => {
  it('reads the strength of an ICU locale: 1 ignores case and accents, 2 case; others compare exactly', () => {
    assert.deepEqual(icuComparison('und-u-ks-level1'), { ignoresCase: true, ignoresAccents: true });
    assert.deepEqual(icuComparison('und-u-ks-level2'), { ignoresCase: true });
    assert.deepEqual(icuComparison('@colStrength=secondary'), { ignoresCase: true });
    assert.equal(icuComparison('und-u-ks-level1-kc-true'), undefined);
    assert.equal(icuComparison('und-u-ks-level3'), undefined);
    assert.equal(icuComparison('und'), undefined);
    assert.deepEqual(icuComparison('en-US-u-ks-level2'), { ignoresCase: true });
    // Tailored languages fold otherwise: Swedish å is no a, Turkish I no i.
    assert.equal(icuComparison('sv-u-ks-level1'), undefined);
    assert.equal(icuComparison('tr-u-ks-level2'), undefined);
  });
});

describe('keyComparisonOf on MariaDB, without a connection to read collations from', () => {
  const opened: MikroORM[] = [];
  after(() => Promise.all(opened.map((orm) => orm.close())));

  /** An adapter over an ORM built without connecting, as `new MikroOrmAdapter(orm)` may be. */
  function adapter(collate?: string): MikroOrmAdapter {
    const orm = new MikroORM(
      mikroOrmOptions({
        driver: MariaDbDriver,
        dbName: 'unreached',
        metadataProvider: ReflectMetadataProvider,
        entities: [...exactKeyEntities],
        ...(collate === undefined ? {} : { collate }),
      }),
    );
    opened.push(orm);
    return new MikroOrmAdapter(orm);
  }

  it('matches keys exactly when no collation is declared (the table may be utf8mb4_bin)', () => {
    const code = adapter()
      .describe(Realm)
      .fields.find((field) => field.name === 'code');
    assert.equal(code?.comparison, undefined);
  });

  it('uses the collation declared by MikroORM’s collate option', () => {
    const code = adapter('utf8mb4_unicode_ci')
      .describe(Realm)
      .fields.find((field) => field.name === 'code');
    assert.deepEqual(code?.comparison, { ...MARIADB, sharpS: 'ss' });
  });
});
