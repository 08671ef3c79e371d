/**
 * The shape of an adversarial case: a name, the group of the issue it belongs to, the request(s)
 * built from the world, and what the responses must show. Cases that mean to change the set of
 * administrators say how; every other case must leave it as it was.
 */
import assert from 'node:assert/strict';
import type { HttpRequest, HttpResponse } from './client.js';
import { describeResponse } from './client.js';
import type { World } from './world.js';

/** The groups of the catalogue. */
export type CaseGroup =
  | 'jwt'
  | 'mass-assignment'
  | 'login'
  | 'input'
  | 'identifiers'
  | 'routing'
  | 'authorization'
  | 'listing'
  | 'headers';

/** One named case of the catalogue. */
export interface SecurityCase {
  readonly name: string;
  readonly group: CaseGroup;
  /** The requests, sent one after the other (in parallel when `parallel` is set). */
  readonly requests: (world: World) => readonly HttpRequest[] | Promise<readonly HttpRequest[]>;
  readonly parallel?: boolean;
  /** Assertions on the responses (and, when needed, on the stored rows). */
  readonly expect: (responses: readonly HttpResponse[], world: World) => void | Promise<void>;
  /** The admin ids after the case, for the cases meant to change them. */
  readonly admins?: (
    before: ReadonlySet<number>,
    world: World,
  ) => ReadonlySet<number> | Promise<ReadonlySet<number>>;
  /** A known defect in code this suite does not own: the lead's fix makes the case pass. */
  readonly defect?: string;
}

/** Shorthand for a case of one request. */
export function single(
  group: CaseGroup,
  name: string,
  request: (world: World) => HttpRequest | Promise<HttpRequest>,
  expect: (response: HttpResponse, world: World) => void | Promise<void>,
): SecurityCase {
  return {
    name,
    group,
    requests: async (world) => [await request(world)],
    expect: (responses, world) => expect(responses[0] as HttpResponse, world),
  };
}

/** The response has this status (and, for a problem, this code). */
export function expectStatus(
  response: HttpResponse,
  status: number | readonly number[],
  code?: string,
): void {
  const allowed = typeof status === 'number' ? [status] : status;
  assert.ok(
    allowed.includes(response.status),
    `expected ${allowed.join('|')}: ${describeResponse(response)}`,
  );
  if (code !== undefined) {
    assert.equal((response.json as { code?: unknown } | undefined)?.code, code, describeResponse(response));
    assert.match(
      String(response.headers['content-type']),
      /^application\/problem\+json/,
      describeResponse(response),
    );
  }
}

/** Every response has this status (and code). */
export function expectAll(
  responses: readonly HttpResponse[],
  status: number | readonly number[],
  code?: string,
): void {
  for (const response of responses) expectStatus(response, status, code);
}

/** A 401 with the Bearer challenge. */
export function expectUnauthorized(response: HttpResponse): void {
  expectStatus(response, 401);
  assert.match(String(response.headers['www-authenticate']), /^Bearer/, describeResponse(response));
  assert.ok(
    ['unauthorized', 'invalid_token'].includes(
      String((response.json as { code?: unknown } | undefined)?.code),
    ),
    describeResponse(response),
  );
}
