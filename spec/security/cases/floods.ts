/**
 * Registration floods (issue 15): a taken name answers 409 without a password hash, parallel
 * duplicates never reach a 5xx, and the answers to a flood are 409 or the throttle's 429.
 */
import assert from 'node:assert/strict';
import { expectStatus, type SecurityCase } from '../support/cases.js';
import type { HttpRequest } from '../support/client.js';
import { PASSWORD } from '../support/world.js';

function register(username: string, email: string): HttpRequest {
  return { method: 'POST', path: '/register', json: { username, email, password: PASSWORD } };
}

/** The flood cases. */
export const floodCases: readonly SecurityCase[] = [
  {
    name: 'registering a taken username under another case answers 409 naming the field',
    group: 'login',
    requests: (world) => [register(world.alice.username.toUpperCase(), 'alice-again@example.com')],
    expect: (responses) => {
      const [response] = responses;
      assert.ok(response !== undefined);
      expectStatus(response, 409, 'conflict');
      assert.deepEqual((response.json as { errors?: unknown }).errors, [
        { path: 'username', message: 'already exists' },
      ]);
    },
  },
  {
    name: 'registering a taken email answers 409 naming the field',
    group: 'login',
    requests: (world) => [register('fresh_for_email', `${world.bob.username}@example.com`)],
    expect: (responses) => {
      const [response] = responses;
      assert.ok(response !== undefined);
      expectStatus(response, 409, 'conflict');
      assert.equal((response.json as { errors?: { path: string }[] }).errors?.[0]?.path, 'email');
    },
  },
  {
    name: 'eight parallel duplicate registrations answer 409 (or 429), never 5xx',
    group: 'login',
    parallel: true,
    requests: (world) =>
      Array.from({ length: 8 }, (_, index) => register(world.bob.username, `bob-dup-${index}@example.com`)),
    expect: (responses) => {
      for (const response of responses) expectStatus(response, [409, 429]);
    },
  },
];
