/**
 * Response headers: CORS never reflects an arbitrary origin with credentials, every response says
 * `nosniff`, none says `X-Powered-By`, and the auth routes' responses (errors included) are
 * `Cache-Control: no-store`.
 */
import assert from 'node:assert/strict';
import { expectStatus, type SecurityCase } from '../support/cases.js';
import { describeResponse, type HttpRequest, type HttpResponse } from '../support/client.js';
import { PASSWORD, type World } from '../support/world.js';

const EVIL = 'https://evil.example';

/** A spread of routes: JSON, problem, docs, OpenAPI, health, auth. */
function spread(world: World): HttpRequest[] {
  return [
    { method: 'GET', path: '/categories' },
    { method: 'GET', path: '/posts' },
    { method: 'GET', path: '/posts', headers: world.bearer(world.alice) },
    { method: 'GET', path: '/nope' },
    { method: 'GET', path: '/openapi.json' },
    { method: 'GET', path: '/docs' },
    { method: 'GET', path: '/health/live' },
    { method: 'POST', path: '/login', json: { username: 'nobody_h', password: 'wrong password' } },
    { method: 'DELETE', path: '/categories' },
    { method: 'POST', path: '/categories', headers: { 'content-type': 'text/plain' }, body: 'x' },
  ];
}

function withOrigin(request: HttpRequest, origin: string): HttpRequest {
  const headers = { ...(request.headers as Record<string, string> | undefined), origin };
  return { ...request, headers };
}

function assertNoCorsGrant(response: HttpResponse): void {
  const allowOrigin = response.headers['access-control-allow-origin'];
  const credentials = response.headers['access-control-allow-credentials'];
  const message = `${describeResponse(response)} ACAO=${String(allowOrigin)} ACAC=${String(credentials)}`;
  assert.ok(allowOrigin !== EVIL && allowOrigin !== 'null', `the origin is reflected: ${message}`);
  assert.notEqual(credentials, 'true', `credentials are allowed cross-origin: ${message}`);
}

/** The header cases. */
export const headerCases: readonly SecurityCase[] = [
  {
    name: 'CORS: an arbitrary Origin is never reflected with credentials (simple requests)',
    group: 'headers',
    requests: (world) => [
      ...spread(world).map((request) => withOrigin(request, EVIL)),
      withOrigin({ method: 'GET', path: '/categories' }, 'null'),
    ],
    expect: (responses) => responses.forEach(assertNoCorsGrant),
  },
  {
    name: 'CORS: a preflight from an arbitrary Origin grants nothing',
    group: 'headers',
    requests: (world) => [
      {
        method: 'OPTIONS',
        path: `/posts/${world.alicePost}`,
        headers: {
          origin: EVIL,
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'authorization',
        },
      },
      {
        method: 'OPTIONS',
        path: '/login',
        headers: {
          origin: EVIL,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      },
    ],
    expect: (responses) =>
      responses.forEach((response) => {
        expectStatus(response, [204, 404, 405]);
        assertNoCorsGrant(response);
        assert.equal(response.headers['access-control-allow-methods'], undefined, describeResponse(response));
      }),
  },
  {
    name: 'every response carries X-Content-Type-Options: nosniff and no X-Powered-By',
    group: 'headers',
    requests: spread,
    expect: (responses) =>
      responses.forEach((response) => {
        assert.equal(response.headers['x-content-type-options'], 'nosniff', describeResponse(response));
        assert.equal(response.headers['x-powered-by'], undefined, describeResponse(response));
        assert.equal(response.headers.server, undefined, `no Server banner: ${describeResponse(response)}`);
      }),
  },
  {
    name: 'auth responses are Cache-Control: no-store (success and failure of register, login, make-admin)',
    group: 'headers',
    requests: async (world) => {
      const target = await world.user('nostore_target');
      return [
        {
          method: 'POST',
          path: '/register',
          json: { username: 'nostore', email: 'nostore@example.com', password: PASSWORD },
        },
        { method: 'POST', path: '/register', json: { username: 'x' } },
        { method: 'POST', path: '/login', json: { username: 'nostore', password: PASSWORD } },
        { method: 'POST', path: '/login', json: { username: 'nostore', password: 'wrong password' } },
        {
          method: 'POST',
          path: '/login',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=password&username=nostore&password=${encodeURIComponent(PASSWORD)}`,
        },
        { method: 'POST', path: `/admin/${target.id}/make-admin`, headers: world.bearer(world.bob) },
        {
          method: 'POST',
          path: '/login',
          headers: { 'content-type': 'application/json' },
          body: '{bad json',
        },
      ];
    },
    expect: (responses) => {
      const statuses = responses.map((response) => response.status);
      assert.deepEqual(
        statuses,
        [201, 422, 200, 401, 200, 403, 400],
        responses.map(describeResponse).join('\n'),
      );
      responses.forEach((response) => {
        assert.equal(response.headers['cache-control'], 'no-store', describeResponse(response));
      });
    },
  },
  {
    name: 'error bodies are problem details without stack traces or SQL',
    group: 'headers',
    requests: (world) => [
      { method: 'POST', path: '/categories', json: { name: 'general' } },
      {
        method: 'POST',
        path: '/register',
        json: { username: 'alice', email: 'alice2@example.com', password: PASSWORD },
      },
      { method: 'GET', path: '/users?filter[id]=abc', headers: world.bearer(world.alice) },
      {
        method: 'POST',
        path: '/categories',
        headers: { 'content-type': 'application/json' },
        body: '{"name":',
      },
    ],
    expect: (responses) => {
      expectStatus(responses[0] as HttpResponse, 409, 'conflict');
      expectStatus(responses[1] as HttpResponse, 409, 'conflict');
      for (const response of responses) {
        assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
        assert.doesNotMatch(
          response.text,
          /\bat [\w.<>]+ \(|node:internal|\.js:\d+|SELECT |INSERT INTO|UNIQUE constraint|duplicate key|SQLITE_|ER_DUP/i,
          describeResponse(response),
        );
      }
    },
  },
];
