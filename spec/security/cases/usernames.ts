/**
 * Look-alike usernames (issue 15): while `root_admin` exists, every spelling built to pass for it
 * is refused (422) or collides with it (409); a name is stored in its normal form (NFKC, lower
 * case) and logs in under any case of it.
 */
import assert from 'node:assert/strict';
import { expectStatus, type SecurityCase } from '../support/cases.js';
import { describeResponse, type HttpRequest, type HttpResponse } from '../support/client.js';
import { ADMIN, PASSWORD } from '../support/world.js';

function register(username: string, label: string): HttpRequest {
  return {
    method: 'POST',
    path: '/register',
    json: { username, email: `${label}@example.com`, password: PASSWORD },
  };
}

/** Spellings of the admin's name: case, width, invisible, foreign, spaced, combined and reversed. */
const LOOK_ALIKES: readonly string[] = [
  'Root_Admin',
  'ROOT_ADMIN',
  'ｒｏｏｔ＿ａｄｍｉｎ',
  'root_admin\u200b',
  'root_\u0430dmin',
  ' root_admin',
  'root_admin\t',
  'root_admin\u0301',
  'root_admi\u0338n',
  '\u202eroot_admin',
  'root\u2060_admin',
];

/** The username cases. */
export const usernameCases: readonly SecurityCase[] = [
  {
    name: "look-alikes of the admin's username are refused (422) or collide with it (409), never registered",
    group: 'input',
    requests: () => LOOK_ALIKES.map((name, index) => register(name, `lookalike${index}`)),
    expect: (responses) => {
      for (const response of responses) {
        expectStatus(response, [409, 422]);
        const errors = (response.json as { errors?: { path: string }[] }).errors ?? [];
        assert.equal(errors[0]?.path, 'username', describeResponse(response));
      }
    },
  },
  {
    name: 'a full-width, capitalised username is stored in its normal form and logs in under any case',
    group: 'input',
    requests: () => [
      register('ＮｏｒｍａＬｉｚｅｄ', 'normalised'),
      { method: 'POST', path: '/login', json: { username: 'normalized', password: PASSWORD } },
      { method: 'POST', path: '/login', json: { username: 'NORMALIZED', password: PASSWORD } },
    ],
    expect: (responses) => {
      const [created, lower, upper] = responses as [HttpResponse, HttpResponse, HttpResponse];
      expectStatus(created, 201);
      assert.equal((created.json as { username?: unknown }).username, 'normalized');
      expectStatus(lower, 200);
      expectStatus(upper, 200);
    },
  },
  {
    name: 'logging in as a look-alike of the admin is an unknown user, never the admin',
    group: 'input',
    requests: () => [
      { method: 'POST', path: '/login', json: { username: 'root_\u0430dmin', password: ADMIN.password } },
      { method: 'POST', path: '/login', json: { username: 'root_admin\u200b', password: ADMIN.password } },
      // Spellings MariaDB's default collation matches with root_admin (accents, case, trailing space).
      { method: 'POST', path: '/login', json: { username: 'röot_admin', password: ADMIN.password } },
      { method: 'POST', path: '/login', json: { username: 'ROOT_ÀDMIN', password: ADMIN.password } },
      { method: 'POST', path: '/login', json: { username: 'root_admin ', password: ADMIN.password } },
    ],
    expect: (responses) => {
      for (const response of responses) expectStatus(response, 401, 'invalid_credentials');
    },
  },
];
