import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectOwnership, ownerIdOf, sameKey } from '../../../lib/auth/ownership.js';
import { ConfigurationError } from '../../../lib/errors.js';
import type { ModelClass } from '../../../lib/types.js';
import { describeFields } from '../../support/model-facts.js';

class User {}
class Category {}
class Post {}

const toUser = (name = 'User', targetModel: ModelClass | undefined = User) => ({
  type: 'integer' as const,
  relation: {
    kind: 'many-to-one' as const,
    target: name,
    targetKey: 'id',
    ...(targetModel === undefined ? {} : { targetModel }),
  },
});
const toCategory = {
  type: 'integer' as const,
  relation: { kind: 'many-to-one' as const, target: 'Category', targetModel: Category, targetKey: 'id' },
};

describe('ownership detection', () => {
  it('takes the one many-to-one field that references the user model, whatever its name', () => {
    const post = describeFields(Post, { title: { type: 'string' }, writer: toUser(), category: toCategory });
    assert.deepEqual(detectOwnership(post, User), { kind: 'field', field: 'writer' });
  });

  it('matches the user model by name when the relation does not carry the class', () => {
    const post = describeFields(Post, { writer: toUser('User', undefined) });
    assert.deepEqual(detectOwnership(post, User), { kind: 'field', field: 'writer' });
  });

  it('prefers owner, then user, then author, then created_by among several', () => {
    const cases: [string[], string][] = [
      [['reviewer', 'author', 'owner'], 'owner'],
      [['created_by', 'user', 'author'], 'user'],
      [['created_by', 'editor', 'author'], 'author'],
      [['editor', 'created_by'], 'created_by'],
    ];
    for (const [names, expected] of cases) {
      const model = describeFields(Post, Object.fromEntries(names.map((name) => [name, toUser()])));
      assert.deepEqual(detectOwnership(model, User), { kind: 'field', field: expected }, names.join(','));
    }
  });

  it('refuses several candidates without a preferred name', () => {
    const model = describeFields(Post, { editor: toUser(), reviewer: toUser() });
    assert.throws(() => detectOwnership(model, User), ConfigurationError);
  });

  it('ignores relations to other models and scalar fields named owner', () => {
    const model = describeFields(Post, { owner: { type: 'integer' }, category: toCategory });
    assert.equal(detectOwnership(model, User), undefined);
  });

  it('makes a user record its own owner', () => {
    const user = describeFields(User, { username: { type: 'string' }, invited_by: toUser() });
    assert.deepEqual(detectOwnership(user, User), { kind: 'self' });
  });

  it('takes an explicit field, which must exist', () => {
    const post = describeFields(Post, { owner: toUser(), owner_id: { type: 'integer' } });
    assert.deepEqual(detectOwnership(post, User, 'owner_id'), { kind: 'field', field: 'owner_id' });
    assert.throws(() => detectOwnership(post, User, 'nope'), /has no field "nope"/);
  });

  it('reads the owner key from a key or a referenced row', () => {
    const post = describeFields(Post, { owner: toUser() });
    const ownership = { kind: 'field', field: 'owner' } as const;
    assert.equal(ownerIdOf({ id: 1, owner: 7 }, ownership, post), 7);
    assert.equal(ownerIdOf({ id: 1, owner: { id: 8, username: 'x' } }, ownership, post), 8);
    const user = describeFields(User, {});
    assert.equal(ownerIdOf({ id: 9 }, { kind: 'self' }, user), 9);
  });

  it('compares keys across number and string forms only', () => {
    assert.equal(sameKey(7, 7), true);
    assert.equal(sameKey('7', 7), true);
    assert.equal(sameKey(9007199254740993n, '9007199254740993'), true);
    assert.equal(sameKey(7, 8), false);
    assert.equal(sameKey(null, 7), false);
    assert.equal(sameKey(undefined, 7), false);
    assert.equal(sameKey({ id: 7 }, 7), false);
    assert.equal(sameKey(7, undefined), false);
  });
});
