/**
 * Mass assignment: no body, on registration or on an update, makes an admin, sets a password
 * hash, picks a primary key, or pollutes a prototype. Checked on the stored rows, not only on
 * the responses.
 */
import assert from 'node:assert/strict';
import { expectStatus, type SecurityCase, single } from '../support/cases.js';
import { describeResponse, type HttpResponse, objectOf } from '../support/client.js';
import { PASSWORD, type World } from '../support/world.js';

/** Every admin flag name the plugin knows, and names an attacker might guess. */
const ADMIN_FIELDS = {
  is_admin: true,
  is_superuser: true,
  is_staff: true,
  is_master: true,
  admin: true,
  isAdmin: true,
  IS_ADMIN: true,
  role: 'admin',
  roles: ['admin'],
  permissions: ['*'],
};
/** A bcrypt hash (cost 4) of the text "attacker-password". */
const FOREIGN_HASH = '$2b$04$VLeEV0yXUT8g7PYLqkuCu.0Khu6ZpnIuz9ORBIkY6XBrlQEIeKRkW';

function registration(username: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { username, email: `${username}@example.com`, password: PASSWORD, ...extra };
}

/** The stored user is not an admin and its hash is not one the client sent. */
async function assertHarmless(world: World, id: unknown): Promise<void> {
  const row = await world.userRow(Number(id));
  assert.ok(row !== undefined, `user ${String(id)} was stored`);
  assert.ok(!row.is_admin, 'the stored user is not an admin');
  assert.notEqual(row.hashed_password, FOREIGN_HASH, 'the stored hash is not the one the client sent');
  assert.match(
    String(row.hashed_password),
    /^(\$2[aby]\$12\$|!unset$)/,
    'the stored hash is the server’s own bcrypt hash, or the unusable marker of a user made without a password',
  );
}

/** A registration that is either refused (400/415/422) or stores a harmless user. */
async function refusedOrHarmless(response: HttpResponse, world: World, username: string): Promise<void> {
  if (response.status === 201) {
    assert.equal(objectOf(response).is_admin, false, describeResponse(response));
    await assertHarmless(world, objectOf(response).id);
  } else {
    expectStatus(response, [400, 415, 422]);
    assert.equal(await world.countUsers(username), 0, 'a refused registration stores nothing');
  }
}

function rawRegistration(name: string, username: string, body: string): SecurityCase {
  return single(
    'mass-assignment',
    name,
    () => ({ method: 'POST', path: '/register', headers: { 'content-type': 'application/json' }, body }),
    (response, world) => refusedOrHarmless(response, world, username),
  );
}

/** The mass-assignment cases. */
export const massAssignmentCases: readonly SecurityCase[] = [
  single(
    'mass-assignment',
    'register with every admin flag name set',
    () => ({ method: 'POST', path: '/register', json: registration('ma_flags', ADMIN_FIELDS) }),
    async (response, world) => {
      expectStatus(response, 201);
      assert.equal(objectOf(response).is_admin, false);
      await assertHarmless(world, objectOf(response).id);
    },
  ),
  single(
    'mass-assignment',
    'register with admin flags as strings and numbers ("true", 1)',
    () => ({
      method: 'POST',
      path: '/register',
      json: registration('ma_truthy', { is_admin: 'true', is_superuser: 1, is_staff: '1' }),
    }),
    async (response, world) => {
      expectStatus(response, 201);
      await assertHarmless(world, objectOf(response).id);
    },
  ),
  single(
    'mass-assignment',
    'register with hashed_password set to a hash the attacker knows',
    () => ({
      method: 'POST',
      path: '/register',
      json: registration('ma_hash', { hashed_password: FOREIGN_HASH }),
    }),
    async (response, world) => {
      expectStatus(response, 201);
      await assertHarmless(world, objectOf(response).id);
    },
  ),
  single(
    'mass-assignment',
    "register with the admin's primary key",
    (world) => ({ method: 'POST', path: '/register', json: registration('ma_id', { id: world.admin.id }) }),
    async (response, world) => {
      expectStatus(response, 201);
      assert.notEqual(objectOf(response).id, world.admin.id);
      const admin = await world.userRow(world.admin.id);
      assert.equal(admin?.username, 'root_admin', 'the admin row is untouched');
    },
  ),
  rawRegistration(
    'register with "__proto__": {"is_admin": true}',
    'ma_proto',
    JSON.stringify(registration('ma_proto')).replace(/}$/, ',"__proto__":{"is_admin":true}}'),
  ),
  rawRegistration(
    'register with a unicode-escaped "\\u005f_proto__" key',
    'ma_proto_escaped',
    JSON.stringify(registration('ma_proto_escaped')).replace(/}$/, ',"\\u005f_proto__":{"is_admin":true}}'),
  ),
  rawRegistration(
    'register with "constructor": {"prototype": {"is_admin": true}}',
    'ma_ctor',
    JSON.stringify(registration('ma_ctor', { constructor: { prototype: { is_admin: true } } })),
  ),
  single(
    'mass-assignment',
    'register form-encoded with is_admin=true is refused (JSON only)',
    () => ({
      method: 'POST',
      path: '/register',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `username=ma_form&email=ma_form%40example.com&password=${encodeURIComponent(PASSWORD)}&is_admin=true&is_admin%5B%5D=1`,
    }),
    async (response, world) => {
      expectStatus(response, 415, 'unsupported_media_type');
      assert.equal(await world.countUsers('ma_form'), 0);
    },
  ),
  {
    name: 'after the prototype attempts, no plain object has gained is_admin',
    group: 'mass-assignment',
    requests: () => [],
    expect: () => {
      assert.equal(({} as Record<string, unknown>).is_admin, undefined, 'Object.prototype is polluted');
      assert.equal((Object.prototype as Record<string, unknown>).is_admin, undefined);
    },
  },
  single(
    'mass-assignment',
    'update own user with every admin flag name',
    (world) => ({
      method: 'PUT',
      path: `/users/${world.alice.id}`,
      headers: world.bearer(world.alice),
      json: { age: 31, ...ADMIN_FIELDS },
    }),
    async (response, world) => {
      expectStatus(response, 200);
      assert.equal(objectOf(response).is_admin, false);
      assert.equal(objectOf(response).age, 31, 'the writable field was written');
      assert.ok(!(await world.userRow(world.alice.id))?.is_admin);
    },
  ),
  {
    name: 'update own user with hashed_password leaves the stored hash alone',
    group: 'mass-assignment',
    requests: (world) => [
      {
        method: 'PATCH',
        path: `/users/${world.alice.id}`,
        headers: world.bearer(world.alice),
        json: { hashed_password: FOREIGN_HASH },
      },
    ],
    expect: async (responses, world) => {
      expectStatus(responses[0] as HttpResponse, 200);
      const row = await world.userRow(world.alice.id);
      assert.notEqual(row?.hashed_password, FOREIGN_HASH);
    },
  },
  single(
    'mass-assignment',
    'update own user with a new primary key',
    (world) => ({
      method: 'PUT',
      path: `/users/${world.alice.id}`,
      headers: world.bearer(world.alice),
      json: { id: 1_999_999_999 },
    }),
    async (response, world) => {
      expectStatus(response, 200);
      assert.equal(objectOf(response).id, world.alice.id);
      assert.equal(await world.userRow(1_999_999_999), undefined);
    },
  ),
  single(
    'mass-assignment',
    'update own user with "__proto__" and "constructor.prototype" admin flags',
    (world) => ({
      method: 'PATCH',
      path: `/users/${world.alice.id}`,
      headers: { ...world.bearer(world.alice), 'content-type': 'application/json' },
      body: '{"age":32,"constructor":{"prototype":{"is_admin":true}},"__proto__":{"is_admin":true}}',
    }),
    async (response, world) => {
      expectStatus(response, [200, 400, 422]);
      assert.ok(!(await world.userRow(world.alice.id))?.is_admin);
      assert.equal(({} as Record<string, unknown>).is_admin, undefined);
    },
  ),
  single(
    'mass-assignment',
    'update own user form-encoded with is_admin=true is refused',
    (world) => ({
      method: 'PUT',
      path: `/users/${world.alice.id}`,
      headers: { ...world.bearer(world.alice), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'is_admin=true&age=40',
    }),
    async (response, world) => {
      expectStatus(response, 415, 'unsupported_media_type');
      assert.ok(!(await world.userRow(world.alice.id))?.is_admin);
    },
  ),
  single(
    'mass-assignment',
    'even an admin cannot set admin flags through POST /users (only make-admin grants them)',
    (world) => ({
      method: 'POST',
      path: '/users',
      headers: world.bearer(world.admin),
      json: registration('ma_by_admin', ADMIN_FIELDS),
    }),
    async (response, world) => {
      expectStatus(response, 201);
      assert.equal(objectOf(response).is_admin, false);
      await assertHarmless(world, objectOf(response).id);
    },
  ),
  single(
    'mass-assignment',
    'even an admin cannot set admin flags or the hash through PUT /users/{id}',
    (world) => ({
      method: 'PUT',
      path: `/users/${world.bob.id}`,
      headers: world.bearer(world.admin),
      json: { ...ADMIN_FIELDS, hashed_password: FOREIGN_HASH },
    }),
    async (response, world) => {
      expectStatus(response, 200);
      assert.equal(objectOf(response).is_admin, false);
      await assertHarmless(world, world.bob.id);
    },
  ),
  single(
    'mass-assignment',
    'create a post with id, owner and unknown fields: only its writable fields are taken',
    (world) => ({
      method: 'POST',
      path: '/posts',
      headers: world.bearer(world.bob),
      json: {
        id: world.alicePost,
        title: 'mine',
        owner: world.alice.id,
        is_admin: true,
        hashed_password: FOREIGN_HASH,
      },
    }),
    (response, world) => {
      expectStatus(response, 201);
      const body = objectOf(response);
      assert.notEqual(body.id, world.alicePost);
      assert.equal(body.owner, world.bob.id, 'the owner comes from the token');
      assert.deepEqual(Object.keys(body).sort(), ['body', 'category', 'id', 'owner', 'title']);
      assert.equal(body.category, null);
    },
  ),
];
