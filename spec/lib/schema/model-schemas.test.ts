import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import addFormatsModule from 'ajv-formats';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { JsonSchema } from '../../../lib/schema/json-schema.js';
import {
  createSchema,
  fieldValueSchema,
  readSchema,
  updateSchema,
} from '../../../lib/schema/model-schemas.js';
import type { ModelDescription } from '../../../lib/types.js';
import { describeFields } from '../../support/model-facts.js';
import {
  gadgetDescription,
  personDescription,
  placeDescription,
  userDescription,
} from '../openapi/fixtures.js';

const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;
// Strict mode: an unknown keyword or a malformed pattern in a generated schema fails the test.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, unicodeRegExp: true });
addFormats(ajv);

const person = personDescription();

function valueValidator(model: ModelDescription, name: string): (value: unknown) => boolean {
  const field = model.fieldsByName.get(name);
  assert.ok(field, `fixture has ${name}`);
  const validate = ajv.compile(fieldValueSchema(field));
  return (value) => validate(value);
}

function accepts(model: ModelDescription, name: string, good: unknown[], bad: unknown[]): void {
  const check = valueValidator(model, name);
  for (const value of good) assert.equal(check(value), true, `${name} accepts ${JSON.stringify(value)}`);
  for (const value of bad) assert.equal(check(value), false, `${name} refuses ${JSON.stringify(value)}`);
}

describe('fieldValueSchema', () => {
  it('string: bounded by maxLength in code points, no NUL', () => {
    accepts(
      person,
      'name',
      ['', 'Ada', '😀'.repeat(100), 'é'.repeat(100)],
      ['a'.repeat(101), 'a\u0000b', '\u0000', 1, null],
    );
  });

  it('text: unbounded, nullable, no NUL', () => {
    accepts(person, 'bio', ['x'.repeat(100_000), null, 'line\nbreak'], ['nul\u0000inside', 3, true]);
  });

  it('uuid: the uuid format', () => {
    accepts(person, 'external_id', ['6f1c2f9e-8c3b-4c53-9a53-5d1d0f8d2a11'], ['not-a-uuid', '', null, 1]);
  });

  it('integer: within int32', () => {
    accepts(person, 'age', [0, -2147483648, 2147483647, 18], [2147483648, -2147483649, 1.5, '18', null]);
  });

  it("integer: the column's own range when the adapter gives one, in every schema", () => {
    class Gauge {}
    const gauge = describeFields(Gauge, {
      unsigned: { type: 'integer', minimum: 0, maximum: 4294967295 },
      small: { type: 'integer', minimum: -32768, maximum: 32767, nullable: true },
    });
    accepts(gauge, 'unsigned', [0, 3000000000, 4294967295], [-1, 4294967296, 1.5]);
    accepts(gauge, 'small', [-32768, 32767, null], [-32769, 32768, 40000]);
    for (const schema of [readSchema(gauge), createSchema(gauge), updateSchema(gauge)]) {
      const small = schema.properties?.small;
      assert.deepEqual([small?.minimum, small?.maximum], [-32768, 32767]);
      assert.deepEqual(small?.type, ['integer', 'null']);
    }
  });

  it('bigint: a decimal string, nullable', () => {
    accepts(
      person,
      'population',
      ['9223372036854775807', '-1', '0', null],
      [12, '1.0', '1e3', '', ' 1', 'abc'],
    );
  });

  it('number, decimal, boolean', () => {
    accepts(person, 'score', [1.5, -3, 0, null], ['1.5', true]);
    accepts(person, 'price', ['10', '10.25', '-0.5'], [10.25, '10.', '.5', '1e2', '', null]);
    accepts(person, 'active', [true, false], ['true', 1, null]);
  });

  it('date, datetime, time', () => {
    accepts(
      person,
      'birthday',
      ['2024-02-29', null],
      ['2023-02-29', '2024-13-01', '2024-01-01T00:00:00Z', 20240101],
    );
    accepts(
      person,
      'created_at',
      ['2024-01-01T10:20:30Z', '2024-01-01T10:20:30.5+02:00'],
      ['2024-01-01', 'now', null],
    );
    accepts(
      person,
      'wakes_at',
      // 24:00:00 is the end of the day PostgreSQL stores (and rounds 23:59:59.5 to).
      ['07:30', '23:59:59', '00:00:00.123', '24:00', '24:00:00', '24:00:00.000', null],
      ['24:01', '24:00:01', '24:00:00.5', '25:00', '7:30', '07:60', '07:30:61', '07:30Z', ''],
    );
  });

  it('json: any JSON value', () => {
    accepts(person, 'meta', [null, 1, 'x', [1, { a: 2 }], { nested: { deep: true } }], []);
  });

  it('enum: string and nullable integer values, with a type', () => {
    accepts(person, 'status', ['active', 'banned'], ['other', null, 0]);
    accepts(person, 'level', [1, 2, 3, null], [4, '1']);
    const level = person.fieldsByName.get('level');
    assert.ok(level);
    assert.deepEqual(fieldValueSchema(level), { enum: [1, 2, 3, null], type: ['integer', 'null'] });
  });

  it('relation: the referenced key schema with a description', () => {
    const owner = person.fieldsByName.get('owner');
    assert.ok(owner);
    const schema = fieldValueSchema(owner);
    assert.equal(schema.type, 'integer');
    assert.equal(schema.maximum, 2147483647);
    assert.match(schema.description ?? '', /User/);
  });

  it('copies JSON defaults only', () => {
    const byName = (name: string) => {
      const found = person.fieldsByName.get(name);
      assert.ok(found);
      return fieldValueSchema(found);
    };
    assert.equal(byName('age').default, 18);
    assert.equal(byName('status').default, 'active');
    assert.deepEqual(byName('meta').default, { tags: [] });
    assert.equal('default' in byName('created_at'), false, 'a Date default is not a JSON value');
    assert.equal('default' in byName('name'), false);
  });
});

describe('readSchema', () => {
  const schema = readSchema(person);

  it('lists every readable field as required and no hidden field', () => {
    const readable = person.fields.filter((f) => !f.hidden).map((f) => f.name);
    assert.deepEqual(Object.keys(schema.properties ?? {}), readable);
    assert.deepEqual(schema.required, readable);
    assert.equal('secret' in (schema.properties ?? {}), false);
    assert.equal(schema.additionalProperties, false);
    const user = readSchema(userDescription());
    assert.equal('hashed_password' in (user.properties ?? {}), false);
    assert.ok('is_admin' in (user.properties ?? {}), 'the admin flag is readable');
  });

  it('does not require nullable fields of a model that omits null values', () => {
    const omitting = readSchema({ ...person, omitsNull: true });
    const alwaysSent = person.fields.filter((f) => !f.hidden && !f.nullable).map((f) => f.name);
    assert.deepEqual(omitting.required, alwaysSent);
    assert.ok(alwaysSent.length < (schema.required?.length ?? 0), 'person has nullable fields');
    assert.deepEqual(omitting.properties, schema.properties);
  });

  it('carries no defaults and validates a stored record', () => {
    for (const property of Object.values(schema.properties ?? {})) assert.equal('default' in property, false);
    const validate = ajv.compile(schema);
    const record = {
      id: 1,
      name: 'Ada',
      bio: null,
      external_id: '6f1c2f9e-8c3b-4c53-9a53-5d1d0f8d2a11',
      age: 36,
      population: null,
      score: 1.5,
      price: '9.99',
      active: true,
      birthday: '1815-12-10',
      created_at: '2024-01-01T00:00:00.000Z',
      wakes_at: null,
      meta: { tags: ['math'] },
      status: 'active',
      level: null,
      owner: 7,
    };
    assert.equal(validate(record), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...record, secret: 'x' }), false, 'a hidden field is not part of a response');
  });
});

describe('createSchema', () => {
  it('offers writable fields only and requires those without default', () => {
    const schema = createSchema(person);
    const names = Object.keys(schema.properties ?? {});
    for (const absent of ['id', 'created_at', 'secret']) assert.equal(names.includes(absent), false, absent);
    assert.ok(names.includes('owner'));
    assert.deepEqual(schema.required, ['name', 'price', 'owner']);
    assert.equal(schema.properties?.age?.default, 18);
    const validate = ajv.compile(schema);
    assert.equal(validate({ name: 'Ada', price: '1', owner: 1 }), true);
    assert.equal(validate({ name: 'Ada', price: '1' }), false);
    assert.equal(validate({ name: 'Ada', price: '1', owner: 1, id: 5 }), false, 'the key is not writable');
  });

  it('drops readOnlyFields from properties and required', () => {
    const schema = createSchema(person, { readOnlyFields: new Set(['owner']) });
    assert.equal('owner' in (schema.properties ?? {}), false);
    assert.deepEqual(schema.required, ['name', 'price']);
  });

  it('adds extra fields and extra required fields', () => {
    const password: JsonSchema = { type: 'string', minLength: 8, writeOnly: true };
    const schema = createSchema(userDescription(), {
      extraFields: { password },
      extraRequired: ['password'],
    });
    assert.deepEqual(Object.keys(schema.properties ?? {}), ['username', 'email', 'age', 'password']);
    assert.deepEqual(schema.required, ['username', 'email', 'password']);
    assert.equal(schema.properties?.password?.writeOnly, true);
  });

  it('refuses an extra required field that is not offered', () => {
    assert.throws(() => createSchema(person, { extraRequired: ['nope'] }), ConfigurationError);
    assert.throws(() => createSchema(person, { extraRequired: ['id'] }), ConfigurationError);
  });

  it('offers a client-given key', () => {
    const schema = createSchema(gadgetDescription());
    assert.deepEqual(schema.required, ['code', 'label']);
    assert.equal(schema.properties?.code?.format, 'uuid');
  });
});

/** A code list with a client-chosen string key and two decimal columns (as the MikroORM adapter describes them on PostgreSQL). */
class Code extends FrameworkModel {}
const codes = describeFields(Code, {
  id: { type: 'string', primary: true, maxLength: 8 },
  price: { type: 'decimal', nullable: true, digits: { integer: 4, scale: 2, fraction: 16383 } },
  share: { type: 'decimal', digits: { integer: 0, scale: 2 } },
  whole: { type: 'decimal', nullable: true, digits: { integer: 3, scale: 0 } },
  loose: { type: 'decimal', nullable: true },
});

describe('write schemas state the rules the server checks', () => {
  const validate = (schema: JsonSchema | undefined) => {
    assert.ok(schema !== undefined);
    return ajv.compile(schema);
  };

  it('a client-chosen key: not "", "." or "..", which no URL reaches', () => {
    const key = validate(createSchema(codes).properties?.id);
    for (const value of ['a', '...', '.a', 'a.', 'x'.repeat(8)]) assert.equal(key(value), true, value);
    for (const value of ['', '.', '..', 'x'.repeat(9)]) assert.equal(key(value), false, value);
    assert.equal(createSchema(codes).properties?.id?.minLength, 1);
    // A query or a path value may be anything the field holds: `filter[id]=` is a filter.
    assert.equal(valueValidator(codes, 'id')(''), true);
    assert.equal('id' in (updateSchema(codes).properties ?? {}), false);
  });

  it('a decimal column: the digits before the point once rounded to its scale, and the fraction cap', () => {
    const price = validate(createSchema(codes).properties?.price);
    const good = ['9999.99', '9999.994', '-9999.994', '0', '-0', '0009999.99', '0.5', '12', null];
    const bad = [
      '12345',
      '12345.5',
      '9999.995',
      '-9999.995',
      '9999.999',
      '1e3',
      '.5',
      '1.',
      5,
      `1.${'0'.repeat(16384)}`,
    ];
    for (const value of good) assert.equal(price(value), true, String(value));
    for (const value of bad) assert.equal(price(value), false, String(value));
    assert.equal(price(`1.${'0'.repeat(16383)}`), true);
    assert.match(
      String(createSchema(codes).properties?.price?.description),
      /at most 4 digits before the point/,
    );

    const share = validate(createSchema(codes).properties?.share);
    for (const value of ['0.99', '0.994', '00.5', '-0.1']) assert.equal(share(value), true, value);
    for (const value of ['1', '0.995', '-0.995', '10.1']) assert.equal(share(value), false, value);
    const whole = validate(updateSchema(codes).properties?.whole);
    for (const value of ['999', '999.4', '0.5', null]) assert.equal(whole(value), true, String(value));
    for (const value of ['999.5', '1000']) assert.equal(whole(value), false, String(value));
    // Without digits (SQLite keeps any number), any decimal.
    assert.equal(validate(createSchema(codes).properties?.loose)(`${'9'.repeat(40)}.5`), true);
  });

  it('holds responses and query values to no column: they show and compare any decimal', () => {
    assert.equal(validate(readSchema(codes).properties?.price)('12345.678'), true);
    assert.equal(valueValidator(codes, 'price')('12345.678'), true);
  });

  it('stays linear on a megabyte of digits', () => {
    const price = validate(createSchema(codes).properties?.price);
    const started = performance.now();
    for (const value of [`${'0'.repeat(500_000)}${'1'.repeat(500_000)}`, `${'0'.repeat(1_000_000)}x`])
      price(value);
    assert.ok(performance.now() - started < 1000, 'the patterns do not backtrack');
  });
});

describe('updateSchema', () => {
  it('has the create properties, nothing required and no defaults', () => {
    const options = { readOnlyFields: new Set(['owner']), extraFields: { password: { type: 'string' } } };
    const update = updateSchema(person, options);
    const create = createSchema(person, options);
    assert.deepEqual(Object.keys(update.properties ?? {}), Object.keys(create.properties ?? {}));
    assert.equal(update.required, undefined);
    for (const property of Object.values(update.properties ?? {})) assert.equal('default' in property, false);
    const validate = ajv.compile(update);
    assert.equal(validate({}), true);
    assert.equal(validate({ age: 'old' }), false);
    assert.equal(validate({ owner: 2 }), false, 'a read-only field is not offered');
  });
});

describe('schemas of embedded objects, arrays, computed and lazy fields', () => {
  const place = placeDescription();
  const read = readSchema(place);
  const create = createSchema(place);
  const update = updateSchema(place);
  const props = (schema: JsonSchema | undefined) => Object.keys(schema?.properties ?? {});

  it('reads an object field as a nested object schema without its hidden fields', () => {
    const address = read.properties?.address;
    assert.equal(address?.type, 'object');
    assert.deepEqual(props(address), ['street', 'city', 'zip', 'geo', 'verified_at', 'slug', 'notes']);
    assert.deepEqual(address?.required, ['street', 'city', 'slug'], 'nullable nested values may be absent');
    assert.equal(address?.additionalProperties, false);
    assert.equal(address?.properties?.slug?.readOnly, true, 'a nested computed field is read-only');
    assert.deepEqual(address?.properties?.geo?.type, ['object', 'null']);
    assert.deepEqual(address?.properties?.geo?.required, ['lat', 'lng']);
    assert.deepEqual(read.properties?.billing?.type, ['object', 'null']);
  });

  it('reads arrays as typed arrays, integer items within int32', () => {
    assert.deepEqual(read.properties?.tags, {
      type: 'array',
      items: { type: 'string', pattern: '^[^\\u0000]*$' },
    });
    assert.deepEqual(read.properties?.ratings, {
      type: ['array', 'null'],
      items: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
    });
    assert.deepEqual(read.properties?.weights?.items, { type: 'number' });
  });

  it('gives the items of an array of an enum the enum, so a value outside it is a 422', () => {
    class Shelf extends FrameworkModel {}
    const shelf = describeFields(Shelf, {
      kinds: { type: 'array', itemType: 'string', enumValues: ['a', 'NULL'], nullable: true },
    });
    assert.deepEqual(readSchema(shelf).properties?.kinds?.items, { enum: ['a', 'NULL'], type: 'string' });
    const validate = ajv.compile(createSchema(shelf));
    assert.equal(validate({ kinds: ['a', 'NULL'] }), true);
    assert.equal(validate({ kinds: ['b'] }), false);
  });

  it('marks computed fields readOnly and leaves lazy fields out of required, with a note', () => {
    assert.equal(read.properties?.label?.readOnly, true);
    assert.equal(read.properties?.score?.readOnly, true);
    assert.equal(read.properties?.name?.readOnly, undefined);
    assert.ok(props(read).includes('description'));
    assert.equal(read.required?.includes('description'), false);
    assert.match(read.properties?.description?.description ?? '', /fields=/);
    assert.equal(read.required?.includes('label'), true, 'a computed field is always sent');
    assert.equal(props(read).includes('secret'), false);
  });

  it('validates a stored record with nested values', () => {
    const validate = ajv.compile(read);
    const record = {
      id: 1,
      name: 'Harbour',
      address: { street: 'Kaigata 1', city: 'Oslo', slug: 'oslo-kaigata-1', geo: { lat: 59.9, lng: 10.7 } },
      billing: null,
      tags: ['sea'],
      ratings: [5, 4],
      weights: null,
      label: 'Harbour (Oslo)',
      score: 4.5,
      opened_at: '2024-01-01T00:00:00.000Z',
    };
    assert.equal(validate(record), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...record, description: 'Long text.' }), true, 'a selected lazy field');
    assert.equal(validate({ ...record, address: { ...record.address, token: 't' } }), false, 'nested hidden');
  });

  it('leaves computed fields out of create and update bodies, at every level', () => {
    for (const schema of [create, update]) {
      assert.equal(props(schema).includes('label'), false);
      assert.equal(props(schema).includes('score'), false);
      assert.equal(props(schema).includes('id'), false);
      assert.deepEqual(props(schema.properties?.address), [
        'street',
        'city',
        'zip',
        'geo',
        'verified_at',
        'notes',
      ]);
    }
    assert.deepEqual(create.required, ['name', 'address']);
    assert.equal(create.properties?.address?.additionalProperties, false);
  });

  it('requires the nested required fields on create; an update object may be partial (it merges)', () => {
    assert.deepEqual(create.properties?.address?.required, ['street', 'city']);
    assert.equal(update.properties?.address?.required, undefined);
    assert.match(String(update.properties?.address?.description), /partial/);
    assert.equal(ajv.compile(create)({ name: 'x', address: { city: 'Oslo' } }), false);
    const validate = ajv.compile(update);
    assert.equal(validate({ address: { street: 'A 1', city: 'Oslo' } }), true);
    assert.equal(validate({ address: { city: 'Oslo' } }), true);
    assert.equal(validate({ billing: null }), true, 'a nullable object may be cleared');
    assert.equal(validate({ address: null }), false, 'a required object may not');
  });

  it('shows defaults in create bodies only', () => {
    assert.deepEqual(create.properties?.tags?.default, []);
    assert.equal('default' in (update.properties?.tags ?? {}), false);
    assert.equal('default' in (read.properties?.tags ?? {}), false);
  });
});
