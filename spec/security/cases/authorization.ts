/**
 * Authorization: another user's records cannot be changed or deleted through any method (IDOR),
 * the owner of a post cannot be changed, nobody promotes themselves, only admins grant the admin
 * flag, and a deleted user's token stops working at once. Every refusal is checked on the stored
 * rows too.
 */
import assert from 'node:assert/strict';
import { expectAll, expectStatus, expectUnauthorized, type SecurityCase, single } from '../support/cases.js';
import { type HttpResponse, objectOf } from '../support/client.js';

/** The authorization cases. */
export const authorizationCases: readonly SecurityCase[] = [
  {
    name: "IDOR: Bob cannot PUT, PATCH or DELETE Alice's post",
    group: 'authorization',
    requests: (world) => {
      const path = `/posts/${world.alicePost}`;
      const headers = world.bearer(world.bob);
      return [
        { method: 'PUT', path, headers, json: { title: 'taken over' } },
        { method: 'PATCH', path, headers, json: { title: 'taken over' } },
        { method: 'DELETE', path, headers },
      ];
    },
    expect: async (responses, world) => {
      expectAll(responses, 403, 'forbidden');
      const row = await world.postRow(world.alicePost);
      assert.ok(row !== undefined, 'the post still exists');
      assert.notEqual(row.title, 'taken over');
    },
  },
  {
    name: "IDOR: Bob cannot PUT, PATCH or DELETE Alice's user record, nor create users",
    group: 'authorization',
    requests: (world) => {
      const path = `/users/${world.alice.id}`;
      const headers = world.bearer(world.bob);
      return [
        {
          method: 'PUT',
          path,
          headers,
          json: { email: 'bob-owns-alice@example.com', password: 'hijacked password' },
        },
        { method: 'PATCH', path, headers, json: { username: 'hijacked' } },
        { method: 'DELETE', path, headers },
        {
          method: 'POST',
          path: '/users',
          headers,
          json: { username: 'sockpuppet', email: 'sock@example.com', password: 'sock password' },
        },
      ];
    },
    expect: async (responses, world) => {
      expectAll(responses, 403, 'forbidden');
      const row = await world.userRow(world.alice.id);
      assert.equal(row?.username, 'alice');
      assert.equal(row?.email, 'alice@example.com');
      assert.equal(await world.countUsers('sockpuppet'), 0);
    },
  },
  {
    name: 'IDOR: a user cannot delete their own account (admin only in the example)',
    group: 'authorization',
    requests: (world) => [
      { method: 'DELETE', path: `/users/${world.bob.id}`, headers: world.bearer(world.bob) },
    ],
    expect: async (responses, world) => {
      expectStatus(responses[0] as HttpResponse, 403, 'forbidden');
      assert.ok((await world.userRow(world.bob.id)) !== undefined);
    },
  },
  {
    name: 'IDOR: anonymous callers get 401 on every method of secured records',
    group: 'authorization',
    requests: (world) => [
      { method: 'GET', path: `/posts/${world.alicePost}` },
      { method: 'PUT', path: `/posts/${world.alicePost}`, json: { title: 'anon' } },
      { method: 'PATCH', path: `/posts/${world.alicePost}`, json: { title: 'anon' } },
      { method: 'DELETE', path: `/posts/${world.alicePost}` },
      { method: 'GET', path: '/posts' },
      { method: 'POST', path: '/posts', json: { title: 'anon' } },
      { method: 'GET', path: `/users/${world.alice.id}` },
      { method: 'DELETE', path: `/users/${world.alice.id}` },
      { method: 'POST', path: '/labels', json: { name: 'anon' } },
    ],
    expect: (responses) => responses.forEach(expectUnauthorized),
  },
  {
    name: 'reads of other users’ posts are allowed by the example’s policy (no GET policy) and show no secrets',
    group: 'authorization',
    requests: (world) => [
      { method: 'GET', path: `/posts/${world.alicePost}`, headers: world.bearer(world.bob) },
    ],
    expect: (responses, world) => {
      const response = responses[0] as HttpResponse;
      expectStatus(response, 200);
      assert.equal(objectOf(response).owner, world.alice.id);
    },
  },
  {
    name: 'changing the owner of a post by PUT and PATCH is ignored',
    group: 'authorization',
    requests: (world) => [
      {
        method: 'PUT',
        path: `/posts/${world.alicePost}`,
        headers: world.bearer(world.alice),
        json: { owner: world.bob.id, title: 'still mine' },
      },
      {
        method: 'PATCH',
        path: `/posts/${world.alicePost}`,
        headers: world.bearer(world.alice),
        json: { owner: String(world.bob.id) },
      },
    ],
    expect: async (responses, world) => {
      for (const response of responses) {
        expectStatus(response, 200);
        assert.equal(objectOf(response).owner, world.alice.id);
      }
      const row = await world.postRow(world.alicePost);
      assert.equal(Number(row?.owner_id ?? row?.owner), world.alice.id, 'the stored owner is Alice');
    },
  },
  {
    name: 'an admin editing a post does not become its owner',
    group: 'authorization',
    requests: (world) => [
      {
        method: 'PATCH',
        path: `/posts/${world.bobPost}`,
        headers: world.bearer(world.admin),
        json: { title: 'moderated', owner: world.admin.id },
      },
    ],
    expect: (responses, world) => {
      const response = responses[0] as HttpResponse;
      expectStatus(response, 200);
      assert.equal(objectOf(response).owner, world.bob.id);
    },
  },
  {
    name: 'self-promotion through make-admin is refused',
    group: 'authorization',
    requests: (world) => [
      { method: 'POST', path: `/admin/${world.alice.id}/make-admin`, headers: world.bearer(world.alice) },
    ],
    expect: (responses) => expectStatus(responses[0] as HttpResponse, 403, 'forbidden'),
  },
  {
    name: 'make-admin of another user by a non-admin is refused; anonymously it is 401',
    group: 'authorization',
    requests: (world) => [
      { method: 'POST', path: `/admin/${world.bob.id}/make-admin`, headers: world.bearer(world.alice) },
      { method: 'POST', path: `/admin/${world.bob.id}/make-admin` },
      {
        method: 'POST',
        path: `/admin/${world.bob.id}/make-admin`,
        headers: { 'x-user-id': String(world.admin.id), 'x-admin': 'true' },
      },
    ],
    expect: (responses) => {
      expectStatus(responses[0] as HttpResponse, 403, 'forbidden');
      expectUnauthorized(responses[1] as HttpResponse);
      expectUnauthorized(responses[2] as HttpResponse);
    },
  },
  {
    name: 'labels: a non-admin cannot create, change or delete (admin_only on an open router)',
    group: 'authorization',
    requests: (world) => [
      { method: 'POST', path: '/labels', headers: world.bearer(world.bob), json: { name: 'bob-label' } },
      { method: 'PUT', path: '/labels/1', headers: world.bearer(world.bob), json: { name: 'bob-label' } },
      { method: 'DELETE', path: '/labels/1', headers: world.bearer(world.bob) },
    ],
    expect: (responses) => {
      expectStatus(responses[0] as HttpResponse, 403, 'forbidden');
      // No label 1 exists: a refused caller learns nothing either way (403 or 404).
      expectStatus(responses[1] as HttpResponse, [403, 404]);
      expectStatus(responses[2] as HttpResponse, [403, 404]);
    },
  },
  {
    name: 'an admin grants the admin flag (the one case meant to change the admins); idempotent',
    group: 'authorization',
    requests: async (world) => {
      const promoted = await world.user('promoted');
      const second = await world.user('promoted_by_promoted');
      const path = `/admin/${promoted.id}/make-admin`;
      return [
        { method: 'POST', path, headers: world.bearer(world.admin) },
        { method: 'POST', path, headers: world.bearer(world.admin) },
        { method: 'POST', path: `/admin/${second.id}/make-admin`, headers: world.bearer(promoted) },
      ];
    },
    expect: (responses) => {
      const [first, again, byPromoted] = responses as HttpResponse[];
      expectStatus(first as HttpResponse, 200);
      assert.equal(objectOf(first as HttpResponse).is_admin, true);
      expectStatus(again as HttpResponse, 200);
      // The promotion takes effect on the token issued before it: now they may promote others.
      expectStatus(byPromoted as HttpResponse, 200);
    },
    admins: async (before, world) =>
      new Set([...before, (await world.user('promoted')).id, (await world.user('promoted_by_promoted')).id]),
  },
  {
    name: "a deleted user's token stops working at once",
    group: 'authorization',
    requests: async (world) => {
      const doomed = await world.user('doomed');
      return [
        { method: 'GET', path: '/posts', headers: world.bearer(doomed) },
        { method: 'DELETE', path: `/users/${doomed.id}`, headers: world.bearer(world.admin) },
        { method: 'GET', path: '/posts', headers: world.bearer(doomed) },
      ];
    },
    expect: (responses) => {
      const [before, deleted, after] = responses as HttpResponse[];
      expectStatus(before as HttpResponse, 200);
      expectStatus(deleted as HttpResponse, 204);
      expectUnauthorized(after as HttpResponse);
    },
  },
  single(
    'authorization',
    'state set by a client cannot impersonate: X-User-Id style headers are ignored',
    (world) => ({
      method: 'GET',
      path: '/posts',
      headers: {
        'x-user-id': String(world.admin.id),
        'x-forwarded-user': 'root_admin',
        'x-remote-user': 'root_admin',
      },
    }),
    expectUnauthorized,
  ),
];
