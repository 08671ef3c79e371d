import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel, PROTECTED_FIELDS } from '../../../lib/model/framework-model.js';
import { compileWriteValidator } from '../../../lib/schema/write-validator.js';
import { describeFields } from '../../support/model-facts.js';
import { placeDescription } from '../openapi/fixtures.js';

class Member extends FrameworkModel {
  static readonly [PROTECTED_FIELDS] = ['is_admin', 'hashed_password'];
}
const model = describeFields(Member, {
  username: { type: 'string', maxLength: 20, unique: true },
  age: { type: 'integer', hasDefault: true, default: 18 },
  is_admin: { type: 'boolean', hasDefault: true },
  hashed_password: { type: 'string', hidden: true },
  owner: { type: 'integer', relation: { kind: 'many-to-one', target: 'Member', targetKey: 'id' } },
});

function problems(run: () => unknown): readonly { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 422);
    return error.errors ?? [];
  }
  assert.fail('expected a 422');
}

describe('compileWriteValidator', () => {
  const create = compileWriteValidator(model, {
    mode: 'create',
    strict: false,
    readOnlyFields: new Set(['owner']),
  });
  const update = compileWriteValidator(model, {
    mode: 'update',
    strict: false,
    readOnlyFields: new Set(['owner']),
  });
  const strictCreate = compileWriteValidator(model, {
    mode: 'create',
    strict: true,
    readOnlyFields: new Set(['owner']),
  });

  it('drops the key, protected, read-only and unknown fields silently by default', () => {
    const body = JSON.parse(
      '{"id":5,"username":"ann","is_admin":true,"hashed_password":"x","owner":9,"nope":1,"__proto__":{"polluted":1}}',
    );
    assert.deepEqual(create(body), { username: 'ann' });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it('names every refused field with strict', () => {
    const errors = problems(() => strictCreate({ username: 'ann', is_admin: true, id: 3, nope: 1 }));
    assert.deepEqual(errors.map((error) => error.path).sort(), ['id', 'is_admin', 'nope']);
  });

  it('gives one entry per invalid field', () => {
    const errors = problems(() => create({ username: 'x'.repeat(21), age: 'old' }));
    assert.deepEqual(errors.map((error) => error.path).sort(), ['age', 'username']);
    const missing = problems(() => create({}));
    assert.deepEqual(missing, [{ path: 'username', message: 'is required' }]);
  });

  it('refuses a string holding a lone surrogate (stored as U+FFFD otherwise), accepts surrogate pairs', () => {
    const body = JSON.parse('{"username":"ann\\ud800"}') as Record<string, unknown>;
    assert.deepEqual(
      problems(() => create(body)),
      [{ path: 'username', message: 'must be well-formed Unicode text (a lone surrogate)' }],
    );
    assert.equal(problems(() => update(JSON.parse('{"username":"\\udc00x"}')))[0]?.path, 'username');
    assert.deepEqual(create({ username: 'ann 😀' }), { username: 'ann 😀' });
    // An object's keys are stored as well (a JSON column).
    const extra = compileWriteValidator(model, {
      mode: 'update',
      strict: false,
      extraFields: { settings: {} },
    });
    assert.deepEqual(
      problems(() => extra(JSON.parse('{"settings":{"ok":{"\\ud800":1}}}'))).map((error) => error.path),
      ['settings'],
    );
  });

  it('refuses a NUL inside a JSON value or its keys, naming the field (PostgreSQL cannot store one)', () => {
    const extra = compileWriteValidator(model, {
      mode: 'update',
      strict: false,
      extraFields: { settings: {}, other: {} },
    });
    for (const json of ['{"settings":{"a":"x\\u0000y"},"other":1}', '{"settings":{"k\\u0000":1},"other":1}'])
      assert.deepEqual(
        problems(() => extra(JSON.parse(json))).map((error) => error.path),
        ['settings'],
        json,
      );
    assert.deepEqual(extra({ settings: { a: 'x' }, other: 1 }), { settings: { a: 'x' }, other: 1 });
  });

  it('refuses a number beyond a double (1e400 parses to Infinity, which JSON writes as null)', () => {
    assert.deepEqual(
      problems(() => update(JSON.parse('{"age":1e400}'))).map((error) => error.path),
      ['age'],
    );
    // A plugin field takes any JSON: only this check stands in its way.
    const extra = compileWriteValidator(model, {
      mode: 'update',
      strict: false,
      extraFields: { settings: {} },
    });
    assert.deepEqual(
      problems(() => extra(JSON.parse('{"settings":{"n":[1,-1e999]}}'))),
      [{ path: 'settings', message: 'must be a finite number' }],
    );
  });

  it('refuses a client-chosen key of "", "." or "..", which no URL reaches', () => {
    class Code extends FrameworkModel {}
    const codes = describeFields(Code, { id: { type: 'string', primary: true, maxLength: 10 } });
    const createCode = compileWriteValidator(codes, { mode: 'create', strict: false });
    for (const code of ['.', '..', ''])
      assert.deepEqual(
        problems(() => createCode({ id: code })),
        [
          // The schema refuses them too (`minLength`, `not`); this message says why.
          { path: 'id', message: 'A key of "", "." or ".." cannot be addressed in a URL.' },
        ],
      );
    assert.deepEqual(createCode({ id: '...' }), { id: '...' });
  });

  it('refuses a decimal its column cannot hold, saying what the column holds, nested ones too', () => {
    class Price extends FrameworkModel {}
    const prices = describeFields(Price, {
      amount: { type: 'decimal', digits: { integer: 4, scale: 2 } },
    });
    const createPrice = compileWriteValidator(prices, { mode: 'create', strict: false });
    assert.deepEqual(createPrice({ amount: '9999.994' }), { amount: '9999.994' });
    for (const amount of ['12345', '9999.995'])
      assert.deepEqual(
        problems(() => createPrice({ amount })),
        [
          {
            path: 'amount',
            message:
              'must be a decimal of at most 4 digits before the point, once rounded to 2 places, as its column holds',
          },
        ],
      );
    const places = describeFields(Price, {
      total: {
        type: 'object',
        fields: [
          {
            name: 'net',
            type: 'decimal',
            nullable: false,
            required: true,
            hasDefault: false,
            unique: false,
            hidden: false,
            primary: false,
            generated: false,
            writable: true,
            digits: { integer: 1, scale: 0 },
          },
        ],
      },
    });
    const createPlace = compileWriteValidator(places, { mode: 'create', strict: false });
    assert.deepEqual(
      problems(() => createPlace({ total: { net: '9.5' } })),
      [
        {
          path: 'total.net',
          message:
            'must be a decimal of at most 1 digit before the point, once rounded to a whole number, as its column holds',
        },
      ],
    );
  });

  it('accepts partial updates and refuses non-objects', () => {
    assert.deepEqual(update({ age: 30 }), { age: 30 });
    assert.deepEqual(update({}), {});
    assert.equal(problems(() => update([1, 2]))[0]?.path, '');
    assert.equal(problems(() => update('text'))[0]?.path, '');
  });

  it('adds plugin input fields, required on create', () => {
    const withPassword = compileWriteValidator(model, {
      mode: 'create',
      strict: false,
      extraFields: { password: { type: 'string', minLength: 8 } },
      extraRequired: ['password'],
    });
    assert.deepEqual(withPassword({ username: 'ann', owner: 1, password: 'long enough' }), {
      username: 'ann',
      owner: 1,
      password: 'long enough',
    });
    assert.deepEqual(
      problems(() => withPassword({ username: 'ann', owner: 1 })),
      [{ path: 'password', message: 'is required' }],
    );
  });
});

describe('compileWriteValidator: embedded objects, arrays and computed fields', () => {
  const place = placeDescription();
  const create = compileWriteValidator(place, { mode: 'create', strict: false });
  const update = compileWriteValidator(place, { mode: 'update', strict: false });
  const strictCreate = compileWriteValidator(place, { mode: 'create', strict: true });
  const address = { street: 'Kaigata 1', city: 'Oslo' };

  it('accepts a nested object and drops computed, hidden and unknown fields at every level', () => {
    const body = {
      name: 'Harbour',
      address: { ...address, slug: 'x', token: 't', extra: 1, geo: { lat: 1, lng: 2, alt: 3 } },
      label: 'mine',
      score: 5,
      tags: ['a', 'b'],
    };
    const frozen = structuredClone(body);
    assert.deepEqual(create(body), {
      name: 'Harbour',
      address: { ...address, geo: { lat: 1, lng: 2 } },
      tags: ['a', 'b'],
    });
    assert.deepEqual(body, frozen, 'the request body is not changed');
  });

  it('names every refused field by its dotted path with strict', () => {
    const errors = problems(() =>
      strictCreate({
        name: 'Harbour',
        address: { ...address, slug: 'x', extra: 1, geo: { lat: 1, lng: 2, alt: 3 } },
        label: 'mine',
      }),
    );
    assert.deepEqual(
      [...errors].sort((a, b) => a.path.localeCompare(b.path)),
      [
        { path: 'address.extra', message: 'is not a field of Place.address' },
        { path: 'address.geo.alt', message: 'is not a field of Place.address.geo' },
        { path: 'address.slug', message: 'is not writable' },
        { path: 'label', message: 'is not writable' },
      ],
    );
  });

  it('gives one 422 entry per offending nested path', () => {
    const errors = problems(() =>
      create({ name: 'Harbour', address: { street: 7, geo: { lat: 'north', lng: 2 } } }),
    );
    assert.deepEqual(errors.map((error) => error.path).sort(), [
      'address.city',
      'address.geo.lat',
      'address.street',
    ]);
    assert.deepEqual(
      errors.find((error) => error.path === 'address.city'),
      { path: 'address.city', message: 'is required' },
    );
    assert.equal(problems(() => create({ name: 'Harbour', address: 'Oslo' }))[0]?.path, 'address');
    assert.equal(problems(() => create({ name: 'Harbour', address: [address] }))[0]?.path, 'address');
  });

  it('allows null for a nullable object only', () => {
    assert.deepEqual(update({ billing: null }), { billing: null });
    assert.deepEqual(
      problems(() => update({ address: null })).map((error) => error.path),
      ['address'],
    );
  });

  it('merges an update object into the stored one: partial where one is stored, whole where none is', () => {
    const stored = {
      id: 1,
      name: 'Harbour',
      address: { ...address, geo: { lat: 1, lng: 2 } },
      billing: null,
    };
    assert.deepEqual(update({ address: { city: 'Bergen' } }, stored), { address: { city: 'Bergen' } });
    assert.deepEqual(update({ address: { geo: { lat: 5 } } }, stored), { address: { geo: { lat: 5 } } });
    // No billing stored: a new object must be whole.
    assert.deepEqual(
      problems(() => update({ billing: { since: '2024-01-02' } }, stored)),
      [{ path: 'billing.iban', message: 'is required' }],
    );
    assert.deepEqual(update({ billing: { iban: 'NO93' } }, stored), { billing: { iban: 'NO93' } });
    // A nested object created inside a stored one: its own required fields, level by level.
    const noGeo = { ...stored, address: { ...address, geo: null } };
    assert.deepEqual(
      problems(() => update({ address: { city: 'Bergen', geo: { lat: 5 } } }, noGeo)),
      [{ path: 'address.geo.lng', message: 'is required' }],
    );
    // Without the stored record nothing can be merged: every required field is required.
    assert.deepEqual(
      problems(() => update({ address: { city: 'Oslo' } })),
      [{ path: 'address.street', message: 'is required' }],
    );
    assert.deepEqual(update({ address }), { address });
  });

  it('checks array items by item type, integers within int32, one entry per item', () => {
    assert.deepEqual(update({ ratings: [1, -2147483648, 2147483647] }), {
      ratings: [1, -2147483648, 2147483647],
    });
    const errors = problems(() =>
      update({ ratings: [1, 2.5, 2147483648], tags: ['a', 1], weights: 'heavy' }),
    );
    assert.deepEqual(errors.map((error) => error.path).sort(), [
      'ratings.1',
      'ratings.2',
      'tags.1',
      'weights',
    ]);
    assert.deepEqual(update({ weights: [0.5, 2], ratings: null }), { weights: [0.5, 2], ratings: null });
  });
});

describe('compileWriteValidator: fields the ORM sets on every update (onUpdate)', () => {
  class Ledger extends FrameworkModel {}
  const touched = {
    name: 'touched',
    type: 'string',
    nullable: true,
    required: false,
    hasDefault: false,
    unique: false,
    hidden: false,
    primary: false,
    generated: false,
    writable: true,
    setOnUpdate: true,
  } as const;
  const ledger = describeFields(Ledger, {
    title: { type: 'string' },
    stamp: { type: 'string', setOnUpdate: true },
    audit: {
      type: 'object',
      nullable: true,
      fields: [
        { ...touched, name: 'note', setOnUpdate: false },
        { ...touched, nullable: false, required: true },
      ],
    },
  });

  it('takes them on create, at the top and inside an embedded object', () => {
    const create = compileWriteValidator(ledger, { mode: 'create', strict: true });
    const body = { title: 't', stamp: 's', audit: { note: 'n', touched: 'x' } };
    assert.deepEqual(create(body), body);
    assert.deepEqual(
      problems(() => create({ title: 't', stamp: 's', audit: { note: 'n' } })),
      [{ path: 'audit.touched', message: 'is required' }],
    );
  });

  it('drops them on update, or names them with strict; a new object does not need them', () => {
    const update = compileWriteValidator(ledger, { mode: 'update', strict: false });
    assert.deepEqual(update({ title: 'u', stamp: 's', audit: { note: 'n', touched: 'x' } }), {
      title: 'u',
      audit: { note: 'n' },
    });
    const strictUpdate = compileWriteValidator(ledger, { mode: 'update', strict: true });
    assert.deepEqual(
      problems(() => strictUpdate({ stamp: 's', audit: { touched: 'x' } }))
        .map((error) => error.path)
        .sort(),
      ['audit.touched', 'stamp'],
    );
    assert.deepEqual(strictUpdate({ audit: { note: 'n' } }, { id: 1, title: 't', stamp: 's', audit: null }), {
      audit: { note: 'n' },
    });
  });
});
