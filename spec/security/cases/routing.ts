/**
 * Identifiers and routing: ids no record can have (non-numeric, negative, beyond 32 and 64 bits,
 * undecodable) answer 404 on every method; unknown routes 404; a wrong method 405 with `Allow`;
 * method-override headers and parameters change nothing.
 */
import assert from 'node:assert/strict';
import { expectAll, expectStatus, type SecurityCase } from '../support/cases.js';
import { describeResponse, type HttpRequest, type HttpResponse } from '../support/client.js';

/** Path ids that name no record of an integer key. */
const HOSTILE_IDS = [
  'abc',
  '-1',
  '0',
  '2147483648',
  '-2147483649',
  '9223372036854775808',
  '18446744073709551616',
  '99999999999999999999999999999999',
  '1.0',
  '1e2',
  '0x1',
  '%201',
  '1%20',
  '%00',
  '1%00',
  '%ZZ',
  '1%2F2',
  "1'%20OR%20'1'='1",
  'NaN',
  'Infinity',
];

function idRequests(prefix: string, headers: Record<string, string>, suffix = ''): HttpRequest[] {
  return HOSTILE_IDS.flatMap((id) =>
    (['GET', 'PUT', 'PATCH', 'DELETE'] as const).map((method) => ({
      method,
      path: `${prefix}/${id}${suffix}`,
      headers:
        method === 'GET' || method === 'DELETE'
          ? headers
          : { ...headers, 'content-type': 'application/json' },
      ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{"name":"x"}' }),
    })),
  );
}

function expectAllowHeader(response: HttpResponse, methods: readonly string[]): void {
  expectStatus(response, 405, 'method_not_allowed');
  const allow = String(response.headers.allow ?? '')
    .split(',')
    .map((method) => method.trim());
  for (const method of methods)
    assert.ok(allow.includes(method), `Allow lists ${method}: ${describeResponse(response)}`);
  assert.ok(
    !allow.includes(response.request.method),
    `Allow does not list the refused method: ${describeResponse(response)}`,
  );
}

/** The identifier cases. */
export const identifierCases: readonly SecurityCase[] = [
  {
    name: 'hostile ids on an open resource answer 404 for GET, PUT, PATCH and DELETE',
    group: 'identifiers',
    requests: () => idRequests('/categories', {}),
    expect: (responses) => expectAll(responses, 404, 'not_found'),
  },
  {
    name: 'hostile ids on a secured, owner-checked resource answer 404 for the authenticated caller',
    group: 'identifiers',
    requests: (world) => idRequests('/posts', world.bearer(world.alice)),
    expect: (responses) => expectAll(responses, 404, 'not_found'),
  },
  {
    name: 'hostile ids on a secured resource answer 401 before anything else without a token',
    group: 'identifiers',
    // '%ZZ' is left out: a path that cannot be percent-decoded matches no route, for anyone (404).
    requests: () =>
      idRequests('/posts', {}).filter((request, index) => index % 4 === 0 && !request.path.includes('%ZZ')),
    expect: (responses) => expectAll(responses, 401),
  },
  {
    name: 'hostile ids on make-admin answer 404 for an admin and change nobody',
    group: 'identifiers',
    requests: (world) =>
      HOSTILE_IDS.map((id) => ({
        method: 'POST',
        path: `/admin/${id}/make-admin`,
        headers: world.bearer(world.admin),
      })),
    expect: (responses) => expectAll(responses, 404, 'not_found'),
  },
  {
    name: 'an integer id that no row has answers 404',
    group: 'identifiers',
    requests: (world) => [
      { method: 'GET', path: '/users/2147483647', headers: world.bearer(world.alice) },
      { method: 'DELETE', path: '/posts/2147483647', headers: world.bearer(world.admin) },
      { method: 'POST', path: '/admin/2147483647/make-admin', headers: world.bearer(world.admin) },
    ],
    expect: (responses) => expectAll(responses, 404, 'not_found'),
  },
];

/** The routing cases. */
export const routingCases: readonly SecurityCase[] = [
  {
    name: 'unknown routes answer 404 problem details',
    group: 'routing',
    requests: () =>
      [
        '/nope',
        '/posts/1/extra',
        '//posts',
        '/posts//1',
        '/../../etc/passwd',
        '/%2e%2e/%2e%2e/etc/passwd',
        '/admin',
        '/admin/1',
        '/admin/1/make-admin/x',
        `/${'a'.repeat(4000)}`,
        '/.env',
        '/users.json',
      ].map((path) => ({ method: 'GET', path })),
    expect: (responses) => expectAll(responses, 404, 'not_found'),
  },
  {
    name: 'a wrong method answers 405 with Allow',
    group: 'routing',
    requests: (world) => [
      { method: 'DELETE', path: '/categories' },
      { method: 'PUT', path: '/posts', headers: world.bearer(world.alice) },
      { method: 'POST', path: `/categories/${world.category}` },
      { method: 'GET', path: '/login' },
      { method: 'DELETE', path: '/register' },
      { method: 'GET', path: `/admin/${world.alice.id}/make-admin`, headers: world.bearer(world.admin) },
      { method: 'TRACE', path: '/categories' },
    ],
    expect: (responses) => {
      const [collection, posts, item, login, register, makeAdmin, trace] = responses as HttpResponse[];
      expectAllowHeader(collection as HttpResponse, ['GET', 'POST']);
      expectAllowHeader(posts as HttpResponse, ['GET', 'POST']);
      expectAllowHeader(item as HttpResponse, ['GET', 'PUT', 'PATCH', 'DELETE']);
      expectAllowHeader(login as HttpResponse, ['POST']);
      expectAllowHeader(register as HttpResponse, ['POST']);
      expectAllowHeader(makeAdmin as HttpResponse, ['POST']);
      expectAllowHeader(trace as HttpResponse, ['GET']);
    },
  },
  {
    name: 'method-override headers and parameters are ignored',
    group: 'routing',
    requests: (world) => {
      const path = `/categories/${world.category}`;
      return [
        { method: 'POST', path, headers: { 'x-http-method-override': 'DELETE' } },
        { method: 'POST', path, headers: { 'x-http-method': 'DELETE' } },
        { method: 'POST', path, headers: { 'x-method-override': 'DELETE' } },
        { method: 'POST', path: `${path}?_method=DELETE` },
        { method: 'GET', path, headers: { 'x-http-method-override': 'DELETE' } },
        {
          method: 'POST',
          path: `/posts/${world.alicePost}`,
          headers: { ...world.bearer(world.bob), 'x-http-method-override': 'DELETE' },
        },
        { method: 'GET', path },
        { method: 'GET', path: `/posts/${world.alicePost}`, headers: world.bearer(world.alice) },
      ];
    },
    expect: (responses) => {
      expectAll(responses.slice(0, 4), 405, 'method_not_allowed');
      expectStatus(responses[4] as HttpResponse, 200);
      expectStatus(responses[5] as HttpResponse, 405);
      expectStatus(responses[6] as HttpResponse, 200);
      expectStatus(responses[7] as HttpResponse, 200);
    },
  },
  {
    name: 'OPTIONS answers 204 with Allow and no body',
    group: 'routing',
    requests: (world) => [{ method: 'OPTIONS', path: `/posts/${world.alicePost}` }],
    expect: (responses) => {
      const response = responses[0] as HttpResponse;
      expectStatus(response, 204);
      assert.match(String(response.headers.allow), /DELETE/);
    },
  },
];
