import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigurationError } from '../../../lib/errors.js';
import { buildModelDescription, type ModelFacts } from '../../../lib/model/describe.js';
import { FrameworkModel, PROTECTED_FIELDS } from '../../../lib/model/framework-model.js';
import { describeFields } from '../../support/model-facts.js';
import { field, placeDescription } from '../openapi/fixtures.js';

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

  it('protects a field listed by its ORM property name when it is served under another JSON name', () => {
    class Product extends FrameworkModel {
      static readonly [PROTECTED_FIELDS] = ['approved'];
    }
    const product = describeFields(Product, {
      isApproved: { type: 'boolean', hasDefault: true, property: 'approved' },
      name: { type: 'string' },
    });
    assert.equal(product.fieldsByName.get('isApproved')?.writable, false);
    assert.equal(product.fieldsByName.get('name')?.writable, true);
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

describe('buildModelDescription: embedded objects, arrays, computed and lazy fields', () => {
  const place = placeDescription();
  const address = place.fieldsByName.get('address');

  it('keeps the nested fields of an object field, frozen at every level', () => {
    assert.ok(address?.fields);
    assert.deepEqual(
      address.fields.map((inner) => inner.name),
      ['street', 'city', 'zip', 'geo', 'verified_at', 'token', 'slug', 'notes'],
    );
    const geo = address.fields.find((inner) => inner.name === 'geo');
    assert.deepEqual(
      geo?.fields?.map((inner) => inner.name),
      ['lat', 'lng'],
    );
    for (const value of [address, address.fields, geo, geo?.fields, geo?.fields?.[0]]) {
      assert.equal(Object.isFrozen(value), true);
    }
    assert.equal(
      address.fields.every((inner) => !inner.primary),
      true,
    );
    assert.equal(address.fields.find((inner) => inner.name === 'city')?.writable, true);
  });

  it('never lets a computed field be written or required, even when the adapter says so', () => {
    const label = place.fieldsByName.get('label');
    assert.equal(label?.computed, true);
    assert.equal(label?.writable, false);
    assert.equal(label?.required, false);
    const slug = address?.fields?.find((inner) => inner.name === 'slug');
    assert.equal(slug?.writable, false);
    assert.equal(slug?.required, false);
    const forced = buildModelDescription({
      model: Person,
      name: 'Person',
      primaryKeys: ['id'],
      fields: [
        field('id', 'integer', { generated: true }),
        field('total', 'number', { computed: true, writable: true, required: true }),
      ],
    }).fieldsByName.get('total');
    assert.equal(forced?.writable, false);
    assert.equal(forced?.required, false);
  });

  it('passes queryable through, but never makes an object or an array queryable itself', () => {
    assert.equal(place.fieldsByName.get('name')?.queryable, undefined, 'undefined means queryable');
    assert.equal(place.fieldsByName.get('label')?.queryable, undefined, 'a formula stays queryable');
    assert.equal(place.fieldsByName.get('score')?.queryable, false, "the adapter's false is kept");
    assert.equal(address?.fields?.find((inner) => inner.name === 'notes')?.queryable, false);
    assert.equal(address?.queryable, false);
    assert.equal(place.fieldsByName.get('tags')?.queryable, false);
    const forced = buildModelDescription({
      model: Person,
      name: 'Person',
      primaryKeys: ['id'],
      fields: [
        field('id', 'integer', { generated: true }),
        field('codes', 'array', { itemType: 'integer', queryable: true }),
        field('spot', 'object', { queryable: true, fields: [field('x', 'number')] }),
      ],
    });
    assert.equal(forced.fieldsByName.get('codes')?.queryable, false);
    assert.equal(forced.fieldsByName.get('spot')?.queryable, false);
  });

  it("keeps an integer field's range as the adapter gives it", () => {
    const gauge = describeFields(Person, { level: { type: 'integer', minimum: 0, maximum: 4294967295 } });
    assert.equal(gauge.fieldsByName.get('level')?.minimum, 0);
    assert.equal(gauge.fieldsByName.get('level')?.maximum, 4294967295);
  });

  it('keeps lazy and item types as the adapter gives them', () => {
    assert.equal(place.fieldsByName.get('description')?.lazy, true);
    assert.equal(place.fieldsByName.get('ratings')?.itemType, 'integer');
  });

  it('refuses malformed shapes at registration, naming the property', () => {
    const refuses = (fields: ModelFacts['fields'], pattern: RegExp) =>
      assert.throws(
        () =>
          buildModelDescription({
            model: Person,
            name: 'Person',
            primaryKeys: ['id'],
            fields: [field('id', 'integer', { generated: true }), ...fields],
          }),
        (error: unknown) => error instanceof ConfigurationError && pattern.test(error.message),
      );
    refuses([field('spot', 'object')], /Person\.spot: an object field needs its nested fields/);
    refuses([field('spot', 'object', { fields: [] })], /Person\.spot: an object field needs/);
    refuses([field('codes', 'array')], /Person\.codes: an array field needs its item type/);
    refuses([field('spot', 'object', { fields: [field('a.b', 'string')] })], /contains a dot/);
    refuses(
      [field('spot', 'object', { fields: [field('a', 'string'), field('a', 'integer')] })],
      /nested field "a" is given twice/,
    );
    refuses(
      [field('spot', 'object', { fields: [field('inner', 'object')] })],
      /Person\.spot\.inner: an object field needs/,
    );
    refuses([field('name', 'string', { fields: [field('a', 'string')] })], /only an object field has nested/);
    refuses([field('name', 'string', { itemType: 'string' })], /only an array field has an item type/);
    refuses([field('name', 'string', { maximum: 10 })], /Person\.name: only an integer field has a minimum/);
    refuses([field('n', 'integer', { minimum: 5, maximum: 4 })], /Person\.n: minimum and maximum must be/);
    refuses([field('n', 'integer', { maximum: 2 ** 53 })], /Person\.n: minimum and maximum must be safe/);
    refuses([field('n', 'integer', { minimum: 0.5 })], /Person\.n: minimum and maximum must be safe/);
    // Only a minimum: the default maximum (2147483647) still bounds it.
    refuses([field('n', 'integer', { minimum: 3_000_000_000 })], /Person\.n: minimum and maximum/);
    assert.throws(
      () =>
        buildModelDescription({
          model: Person,
          name: 'Person',
          primaryKeys: ['spot'],
          fields: [field('spot', 'object', { fields: [field('x', 'number')] })],
        }),
      (error: unknown) => error instanceof ConfigurationError && /a key must be a scalar/.test(error.message),
    );
  });
});
