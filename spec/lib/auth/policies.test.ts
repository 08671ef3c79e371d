import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthMixin } from '../../../lib/auth/auth-mixin.js';
import { adminOnlyPolicy, ownerOrAdminPolicy } from '../../../lib/auth/policies.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type {
  AuthDependency,
  CrudMethod,
  ModelDescription,
  PolicyInput,
  RawRecord,
  RequestUser,
} from '../../../lib/types.js';
import { describeFields } from '../../support/model-facts.js';

class User extends AuthMixin(FrameworkModel) {}
class Post extends FrameworkModel {}
class Note extends FrameworkModel {}

const dependency = Object.assign(async () => {}, {
  userModel: User,
  securityScheme: 'test',
}) as AuthDependency;
const userRelation = {
  type: 'integer' as const,
  relation: { kind: 'many-to-one' as const, target: 'User', targetModel: User, targetKey: 'id' },
};
const users = describeFields(User, {
  username: { type: 'string' },
  is_admin: { type: 'boolean', hasDefault: true },
});
const posts = describeFields(Post, { title: { type: 'string' }, owner: userRelation });
const notes = describeFields(Note, { text: { type: 'string' } });

const alice: RequestUser = { id: 1, isAdmin: false };
const bob: RequestUser = { id: 2, isAdmin: false };
const root: RequestUser = { id: 3, isAdmin: true };

function input(
  user: RequestUser | undefined,
  model: ModelDescription,
  record?: RawRecord,
  method: CrudMethod = 'PUT',
): PolicyInput {
  return { user, method, model, ...(record === undefined ? {} : { record }) };
}

describe('admin_only', () => {
  const policy = adminOnlyPolicy(dependency);

  it('needs a user, authenticates by itself and allows admins only', () => {
    assert.equal(policy.requiresUser, true);
    assert.equal(policy.authenticate, dependency);
    assert.equal(policy.allows(input(root, posts)), true);
    assert.equal(policy.allows(input(alice, posts)), false);
    assert.equal(policy.allows(input(undefined, posts)), false);
    assert.equal(policy.name, 'admin_only');
  });
});

describe('owner_or_admin', () => {
  it('allows the owner and admins, refuses others', () => {
    const policy = ownerOrAdminPolicy(dependency, User, Post);
    const record = { id: 10, title: 't', owner: 1 };
    assert.equal(policy.allows(input(alice, posts, record)), true);
    assert.equal(policy.allows(input(bob, posts, record)), false);
    assert.equal(policy.allows(input(root, posts, record)), true);
    assert.equal(policy.allows(input(undefined, posts, record)), false);
    assert.equal(
      policy.allows(input(bob, posts, { id: 11, owner: null })),
      false,
      'an unowned record is not yours',
    );
    assert.equal(policy.authenticate, dependency);
  });

  it('names the ownership field for the router, and narrows lists to the caller', () => {
    const policy = ownerOrAdminPolicy(dependency, User, Post);
    assert.equal(policy.ownerField?.(posts), 'owner');
    assert.deepEqual(policy.scope?.(input(alice, posts, undefined, 'GET')), [
      { field: 'owner', op: '$eq', value: 1 },
    ]);
    assert.equal(policy.scope?.(input(root, posts, undefined, 'GET')), undefined);
    assert.equal(
      policy.allows(input(alice, posts, undefined, 'POST')),
      true,
      'a create: the router sets the owner',
    );
  });

  it('on the user model, a user owns their own record and sets no ownership field', () => {
    const policy = ownerOrAdminPolicy(dependency, User, User);
    assert.equal(policy.ownerField?.(users), undefined);
    assert.equal(policy.allows(input(alice, users, { id: 1, username: 'alice' })), true);
    assert.equal(policy.allows(input(alice, users, { id: 2, username: 'bob' })), false);
    assert.deepEqual(policy.scope?.(input(alice, users, undefined, 'GET')), [
      { field: 'id', op: '$eq', value: 1 },
    ]);
  });

  it('takes an explicit field', () => {
    const shared = describeFields(Post, {
      owner: userRelation,
      editor: userRelation,
      editor_id: { type: 'integer' },
    });
    const policy = ownerOrAdminPolicy(dependency, User, Post, { field: 'editor' });
    assert.equal(policy.ownerField?.(shared), 'editor');
    assert.equal(policy.allows(input(bob, shared, { id: 1, owner: 1, editor: 2 })), true);
  });

  it('refuses at registration a model without an ownership field, or another model', () => {
    assert.throws(
      () => ownerOrAdminPolicy(dependency, User, Note).ownerField?.(notes),
      /no field of Note references User/,
    );
    assert.throws(
      () => ownerOrAdminPolicy(dependency, User, Post).ownerField?.(notes),
      /is used on the router of Note/,
    );
    assert.throws(
      () => ownerOrAdminPolicy(dependency, User, undefined as unknown as typeof Post),
      ConfigurationError,
    );
    assert.throws(() => ownerOrAdminPolicy(dependency, User, Post, { field: '' }), ConfigurationError);
  });
});
