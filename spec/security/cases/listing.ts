/**
 * Listing abuse: page sizes and offsets out of range, filters, sorts and field selections on
 * hidden fields, operators and paths that could reach other tables or other columns, unknown
 * operators and repeated parameters — all 400 `invalid_query`, never data.
 */
import assert from 'node:assert/strict';
import { expectAll, expectStatus, type SecurityCase } from '../support/cases.js';
import { describeResponse, type HttpResponse } from '../support/client.js';

function invalid(
  name: string,
  resource: '/users' | '/posts' | '/categories',
  queries: readonly string[],
): SecurityCase {
  return {
    name,
    group: 'listing',
    requests: (world) =>
      queries.map((query) => ({
        method: 'GET',
        path: `${resource}?${query}`,
        headers: world.bearer(world.admin),
      })),
    expect: (responses) => expectAll(responses, 400, 'invalid_query'),
  };
}

/** The listing cases. */
export const listingCases: readonly SecurityCase[] = [
  invalid('huge, zero, negative and non-decimal limits', '/categories', [
    'limit=1000000',
    'limit=1001',
    'limit=0',
    'limit=-1',
    'limit=1e3',
    'limit=0x10',
    'limit=99999999999999999999',
    'limit=',
    'limit=10.5',
  ]),
  invalid('negative and malformed offsets', '/categories', [
    'offset=-5',
    'offset=-0',
    'offset=1e309',
    'offset=99999999999999999999',
    'offset=abc',
    'offset=',
  ]),
  {
    name: 'the largest accepted offset answers an empty page, not a database error',
    group: 'listing',
    requests: () => [{ method: 'GET', path: '/categories?offset=9007199254740991&limit=1000' }],
    expect: (responses) => {
      const response = responses[0] as HttpResponse;
      expectStatus(response, 200);
      assert.deepEqual(response.json, [], describeResponse(response));
    },
  },
  invalid('filters on the hidden hashed_password field', '/users', [
    'filter[hashed_password]=x',
    `filter[hashed_password][$like]=${encodeURIComponent('$2b$%')}`,
    'filter[hashed_password][$exists]=true',
    'filter[hashed_password][$gt]=',
    'filter[hashed_password][$in]=a,b',
  ]),
  invalid('sorting on the hidden hashed_password field (binary search by sort order)', '/users', [
    'sort=hashed_password',
    'sort=-hashed_password',
    'sort=id,hashed_password',
    'sort=%2Bhashed_password',
  ]),
  invalid('selecting the hidden hashed_password field', '/users', [
    'fields=hashed_password',
    'fields=id,hashed_password',
    'fields=id,,hashed_password',
  ]),
  invalid('filters that try to reach hidden or unreachable columns through a relation', '/posts', [
    'filter[owner.hashed_password]=x',
    `filter[owner.hashed_password][$like]=${encodeURIComponent('$2%')}`,
    'filter[owner.hashed_password][$exists]=true',
    'filter[owner][hashed_password]=x',
    'sort=owner.hashed_password',
    'sort=-owner.hashed_password',
    'fields=owner.hashed_password',
    'include=owner&fields=owner.hashed_password',
    'filter[owner][$like]=%25',
    'filter[owner.owner.username]=alice',
    'filter[comments.body]=x',
    'include=owner.hashed_password',
  ]),
  invalid('logical and raw operators that are not in the list', '/users', [
    'filter[$or][0][is_admin]=true',
    'filter[$and][0][id]=1',
    'filter[username][$regex]=.*',
    'filter[username][$re]=.*',
    'filter[username][$where]=1',
    'filter[username][$raw]=1%3D1',
    'filter[username][$fulltext]=a',
    'filter[id][$ne][$ne]=1',
    'filter[username][]=alice',
    'filter[__proto__][is_admin]=true',
    'filter[constructor][prototype]=x',
    'filter[username]]=x',
  ]),
  invalid('filter values that do not fit the field', '/users', [
    'filter[id]=abc',
    'filter[id][$gt]=1e400',
    'filter[age][$in]=1,two',
    'filter[is_admin]=yes',
    'filter[username][$exists]=maybe',
    'filter[username]=a%00',
    'filter[username][$like]=a%00%25',
    'filter[username][$ilike]=%00',
    'filter[age][$in]=1,2%00',
    `filter[id][$in]=${Array.from({ length: 101 }, (_, index) => index).join(',')}`,
  ]),
  invalid('repeated and unknown parameters', '/users', [
    'limit=1&limit=1000000',
    'sort=id&sort=hashed_password',
    'where=1%3D1',
    'select=hashed_password',
    'include=owner',
    'populate=*',
  ]),
  invalid('duplicate sort keys and empty names', '/posts', [
    'sort=id,id',
    'sort=-',
    'sort=,',
    'fields=',
    'sort=title,-title',
  ]),
  {
    name: 'a like pattern of 20 000 wildcards is served or refused, never 5xx',
    group: 'listing',
    requests: (world) => [
      {
        method: 'GET',
        path: `/posts?filter[title][$like]=${'%25_'.repeat(10_000)}`,
        headers: world.bearer(world.admin),
      },
    ],
    expect: (responses) => expectStatus(responses[0] as HttpResponse, [200, 400, 414, 431]),
  },
  {
    name: 'a filter and include through a relation reach only what the related router shows',
    group: 'listing',
    requests: (world) => [
      {
        method: 'GET',
        path: '/posts?filter[owner.username]=alice&include=owner',
        headers: world.bearer(world.bob),
      },
    ],
    expect: (responses) => {
      const response = responses[0] as HttpResponse;
      expectStatus(response, 200);
      const posts = response.json as { owner: Record<string, unknown> }[];
      assert.ok(posts.length > 0, describeResponse(response));
      for (const post of posts) {
        assert.equal(post.owner.username, 'alice');
        assert.deepEqual(Object.keys(post.owner).sort(), [
          'age',
          'email',
          'id',
          'is_admin',
          'username',
          'verified',
        ]);
      }
    },
  },
  {
    name: 'a non-admin filtering users by the admin flag sees only readable fields',
    group: 'listing',
    requests: (world) => [
      { method: 'GET', path: '/users?filter[is_admin]=true', headers: world.bearer(world.bob) },
    ],
    expect: (responses) => {
      const response = responses[0] as HttpResponse;
      expectStatus(response, 200);
      for (const user of response.json as Record<string, unknown>[]) {
        assert.deepEqual(Object.keys(user).sort(), [
          'age',
          'email',
          'id',
          'is_admin',
          'username',
          'verified',
        ]);
      }
    },
  },
];
