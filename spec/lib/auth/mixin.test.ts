import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_FLAGS, adminFlagOf, findAdminFlag, isTruthyFlag } from '../../../lib/auth/admin-flag.js';
import { AuthMixin, hasAuthMixin } from '../../../lib/auth/auth-mixin.js';
import { ConfigurationError } from '../../../lib/errors.js';
import {
  FrameworkModel,
  MIXIN_FIELDS,
  type MixinFieldSpec,
  mixinFieldsOf,
  PROTECTED_FIELDS,
  protectedFieldsOf,
} from '../../../lib/model/framework-model.js';
import { describeFields } from '../../support/model-facts.js';

class User extends AuthMixin(FrameworkModel) {
  id!: number;
  username!: string;
}

describe('AuthMixin', () => {
  it('adds a hidden hashed_password and an is_admin flag defaulting to false', () => {
    const fields = mixinFieldsOf(User);
    assert.deepEqual(fields.hashed_password, { type: 'string', nullable: false, hidden: true, length: 255 });
    const admin = fields.is_admin as MixinFieldSpec;
    assert.equal(admin.type, 'boolean');
    assert.equal(admin.default, false);
    assert.equal(admin.hidden, false);
  });

  it('adds a verified flag defaulting to false, shown in responses, and hidden nullable token columns', () => {
    const fields = mixinFieldsOf(User);
    assert.deepEqual(fields.verified, { type: 'boolean', nullable: false, hidden: false, default: false });
    for (const name of ['reset_token_hash', 'verify_token_hash']) {
      assert.deepEqual(fields[name], { type: 'string', nullable: true, hidden: true, length: 64 }, name);
    }
    for (const name of ['reset_token_expires', 'verify_token_expires']) {
      assert.deepEqual(fields[name], { type: 'string', nullable: true, hidden: true, length: 32 }, name);
    }
  });

  it('leaves is_admin out when the model declares another admin flag', () => {
    assert.deepEqual(mixinFieldsOf(User).is_admin?.omitWhenDeclared, [
      'is_superuser',
      'is_staff',
      'is_master',
    ]);
  });

  it('protects the hash, the verified flag, the token columns and every admin flag from clients', () => {
    assert.deepEqual(
      [...protectedFieldsOf(User)].sort(),
      [
        'hashed_password',
        'tokens_valid_after',
        'verified',
        'reset_token_hash',
        'reset_token_expires',
        'verify_token_hash',
        'verify_token_expires',
        ...ADMIN_FLAGS,
      ].sort(),
    );
    const description = describeFields(User, {
      username: { type: 'string' },
      hashed_password: { type: 'string', hidden: true },
      is_admin: { type: 'boolean', hasDefault: true },
      is_staff: { type: 'boolean', hasDefault: true },
      verified: { type: 'boolean', hasDefault: true },
    });
    for (const name of ['hashed_password', 'is_admin', 'is_staff', 'verified', 'id']) {
      assert.equal(description.fieldsByName.get(name)?.writable, false, name);
    }
    assert.equal(description.fieldsByName.get('username')?.writable, true);
  });

  it('keeps the markers of the base class', () => {
    abstract class Audited extends FrameworkModel {
      static [MIXIN_FIELDS] = { created_at: { type: 'datetime', nullable: false, hidden: false } as const };
      static [PROTECTED_FIELDS] = ['created_at'];
    }
    class Member extends AuthMixin(Audited) {}
    assert.deepEqual(Object.keys(mixinFieldsOf(Member)).sort(), [
      'created_at',
      'hashed_password',
      'is_admin',
      'reset_token_expires',
      'reset_token_hash',
      'tokens_valid_after',
      'verified',
      'verify_token_expires',
      'verify_token_hash',
    ]);
    assert.ok(protectedFieldsOf(Member).has('created_at'));
    assert.ok(protectedFieldsOf(Member).has('is_master'));
  });

  it('is recognised through subclasses', () => {
    class Staff extends User {}
    assert.equal(hasAuthMixin(User), true);
    assert.equal(hasAuthMixin(Staff), true);
    assert.equal(hasAuthMixin(class Plain extends FrameworkModel {}), false);
  });
});

describe('admin flag discovery', () => {
  const flags = (names: string[]) =>
    describeFields(
      User,
      Object.fromEntries(names.map((name) => [name, { type: 'boolean' as const, hasDefault: true }])),
    );

  it('takes the first of is_admin, is_superuser, is_staff, is_master', () => {
    assert.equal(findAdminFlag(flags(['is_master', 'is_staff', 'is_superuser', 'is_admin'])), 'is_admin');
    assert.equal(findAdminFlag(flags(['is_master', 'is_staff', 'is_superuser'])), 'is_superuser');
    assert.equal(findAdminFlag(flags(['is_master', 'is_staff'])), 'is_staff');
    assert.equal(findAdminFlag(flags(['is_master'])), 'is_master');
    assert.equal(findAdminFlag(flags(['admin'])), undefined);
    assert.throws(() => adminFlagOf(flags([])), ConfigurationError);
  });

  it('refuses a flag served under another JSON name, and another property served under a flag name', () => {
    const renamed = describeFields(User, {
      isAdmin: { type: 'boolean', hasDefault: true, property: 'is_admin' },
    });
    assert.throws(
      () => adminFlagOf(renamed),
      (error: unknown) =>
        error instanceof ConfigurationError && /is_admin.*"isAdmin".*serializedName/.test(error.message),
    );
    const impostor = describeFields(User, {
      is_admin: { type: 'string', hasDefault: true, property: 'title' },
      staff: { type: 'boolean', hasDefault: true, property: 'is_staff' },
    });
    assert.throws(() => adminFlagOf(impostor), ConfigurationError);
  });

  it('reads flags as drivers return them', () => {
    for (const yes of [true, 1, '1', 'true', 1n]) assert.equal(isTruthyFlag(yes), true, String(yes));
    for (const no of [false, 0, '0', 'false', null, undefined, 0n])
      assert.equal(isTruthyFlag(no), false, String(no));
  });
});
