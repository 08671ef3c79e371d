import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../../../lib/errors.js';
import { buildModelDescription } from '../../../lib/model/describe.js';
import { FrameworkModel, PROTECTED_FIELDS } from '../../../lib/model/framework-model.js';
import { describeFields } from '../../support/model-facts.js';

class Person extends FrameworkModel {}
class Tag extends FrameworkModel {
  static override __tablename__ = 'labels';
}
class Account extends FrameworkModel {
  static readonly [PROTECTED_FIELDS] = ['hashed_password', 'is_admin'];
}
class Country extends FrameworkModel {}

describe('buildModelDescription', () => {
  it('names the table by the plural rule and lets __tablename__ win', () => {
    assert.equal(describeFields(Person, { name: { type: 'string' } }).table, 'people');
    const tag = describeFields(Tag, { name: { type: 'string' } });
    assert.equal(tag.table, 'labels');
    assert.equal(tag.resource, 'labels');
  });

  it('never lets a client write a generated key or a protected field', () => {
    const account = describeFields(Account, {
      hashed_password: { type: 'string', hidden: true },
      is_admin: { type: 'boolean', hasDefault: true },
      name: { type: 'string' },
    });
    assert.equal(account.fieldsByName.get('id')?.writable, false);
    assert.equal(account.fieldsByName.get('hashed_password')?.writable, false);
    assert.equal(account.fieldsByName.get('is_admin')?.writable, false);
    assert.equal(account.fieldsByName.get('name')?.writable, true);
  });

  it('lets a client give a natural key that the database does not generate', () => {
    const country = buildModelDescription({
      model: Country,
      name: 'Country',
      primaryKeys: ['code'],
      fields: [
        {
          name: 'code',
          type: 'string',
          nullable: false,
          required: true,
          hasDefault: false,
          unique: true,
          hidden: false,
          primary: true,
          generated: false,
        },
      ],
    });
    assert.equal(country.primaryKey, 'code');
    assert.equal(country.fieldsByName.get('code')?.writable, true);
  });

  it('refuses composite and missing primary keys with a clear message', () => {
    assert.throws(
      () => buildModelDescription({ model: Person, name: 'Person', primaryKeys: ['a', 'b'], fields: [] }),
      (error: unknown) =>
        error instanceof ConfigurationError && /composite primary key \(a, b\)/.test(error.message),
    );
    assert.throws(
      () => buildModelDescription({ model: Person, name: 'Person', primaryKeys: [], fields: [] }),
      ConfigurationError,
    );
  });
});
