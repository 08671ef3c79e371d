import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel, PROTECTED_FIELDS } from '../../../lib/model/framework-model.js';
import { compileWriteValidator } from '../../../lib/schema/write-validator.js';
import { describeFields } from '../../support/model-facts.js';

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
