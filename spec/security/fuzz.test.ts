/**
 * Generated fuzzing from the OpenAPI document the example serves: for every documented operation,
 * random and boundary path ids, query parameters, bodies (valid from the request schema, and
 * hostile variants) and credentials. No request may produce a 5xx, and every response must match
 * the document: a documented status, a documented media type, a body valid against its schema.
 *
 * Bounded: KMA_FUZZ_RUNS runs per operation (default 30; operations that hash a password run a
 * third as many). KMA_FUZZ_SEED replays a failure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { type DatabaseTarget, databaseTargets, requireTarget } from '../support/databases.js';
import { describeResponse } from './support/client.js';
import { hmacToken, now } from './support/forge.js';
import { checkResponse, InvariantLedger } from './support/invariants.js';
import { type Json, operationsOf } from './support/openapi-document.js';
import { type FuzzContext, requestArbitrary } from './support/request-arbitraries.js';
import { ResponseChecker } from './support/response-checker.js';
import { type Actor, SECRET, World } from './support/world.js';

const RUNS = Number(process.env.KMA_FUZZ_RUNS ?? '30');
const SEED = process.env.KMA_FUZZ_SEED === undefined ? undefined : Number(process.env.KMA_FUZZ_SEED);
/** Operations whose successful path hashes a password (bcrypt cost 12 in the example). */
const HASHING = new Set([
  'POST /register',
  'POST /login',
  'POST /users',
  'PUT /users/{id}',
  'PATCH /users/{id}',
]);

/** Deviations found by this suite in code it does not own; a matching failure says so. */
const KNOWN_DEFECTS: readonly { readonly pattern: RegExp; readonly note: string }[] = [
  {
    pattern: /status 409 is not documented[\s\S]*DELETE /,
    note: 'lib/openapi/crud-operations.ts: DELETE /{resource}/{id} answers 409 conflict when other records still reference the row (adapters/mikro-orm maps the foreign-key violation so), but the operation documents no 409; add the Conflict response to DELETE.',
  },
  {
    pattern: /\?(?:.*&)?fields=.*\n?.*must have required property|must have required property[\s\S]*fields=/,
    note: 'lib/openapi/crud-operations.ts: the list 200 schema is an array of the full record schema (every field required, additionalProperties false), but `fields=a,b` returns records with only those fields. Document list items without `required` (or as a oneOf full/partial) so selected-field pages match.',
  },
];

function annotate(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const text = `${error.message}\n${String((error as { cause?: unknown }).cause)}`;
  for (const defect of KNOWN_DEFECTS)
    if (defect.pattern.test(text)) error.message += `\n[DEFECT → lead] ${defect.note}`;
  return error;
}

// Fuzzing on SQLite and PostgreSQL; the adversarial catalogue covers MariaDB's differences.
const targets = databaseTargets().filter(
  (target): target is DatabaseTarget => target === 'sqlite-memory' || target === 'postgresql',
);

for (const target of targets) {
  describe(`OpenAPI fuzzing on ${target}`, await requireTarget(target), () => {
    let world: World;
    let doc: Json;
    let checker: ResponseChecker;
    let context: FuzzContext;
    const ledger = new InvariantLedger();
    let requests = 0;
    /** Statuses seen per operation, to show the fuzzing got past the front door. */
    const statuses = new Map<string, number[]>();

    before(async () => {
      world = await World.start(target);
      const served = await world.send({ method: 'GET', path: '/openapi.json' });
      assert.equal(served.status, 200);
      doc = served.json as Json;
      checker = new ResponseChecker(doc);
      // Records the fuzzing may delete: the accounts it authenticates with stay protected.
      const spare = await Promise.all(['fuzz_a', 'fuzz_b', 'fuzz_c'].map((label) => world.user(label)));
      // One spare user owns a post, so deleting it meets the foreign key.
      const owned = await world.send({
        method: 'POST',
        path: '/posts',
        headers: world.bearer(spare[2] as Actor),
        json: { title: 'spare' },
      });
      assert.equal(owned.status, 201);
      const expired = hmacToken(
        SECRET,
        world.claims(world.alice.id, { iat: now() - 7200, exp: now() - 3600 }),
      );
      context = {
        credentials: [
          undefined,
          ...[world.alice, world.bob, world.admin].map((actor) => `Bearer ${actor.token}`),
          `Bearer ${expired}`,
          'Bearer x.y.z',
        ],
        ids: {
          users: [world.alice.id, world.bob.id, world.admin.id, ...spare.map((actor) => actor.id)],
          posts: [world.alicePost, world.bobPost],
          categories: [world.category],
          labels: [1],
        },
        protectedIds: { users: [world.alice.id, world.bob.id, world.admin.id] },
      };
    });

    after(async () => {
      await world?.stop();
      console.log(
        `OpenAPI fuzzing on ${target}: ${requests} generated requests, ${ledger.checks} invariant checks passed`,
      );
    });

    it('covers every operation of the document', () => {
      const operations = operationsOf(doc).map((operation) => `${operation.method} ${operation.path}`);
      for (const expected of [
        'GET /posts',
        'POST /posts',
        'PUT /posts/{id}',
        'DELETE /users/{id}',
        'POST /register',
        'POST /login',
        'POST /admin/{id}/make-admin',
      ]) {
        assert.ok(operations.includes(expected), expected);
      }
    });

    it('a page with selected fields matches the documented list schema', async () => {
      const operation = operationsOf(doc).find(
        (candidate) => candidate.method === 'GET' && candidate.path === '/categories',
      );
      assert.ok(operation !== undefined);
      const response = await world.send({ method: 'GET', path: '/categories?fields=name' });
      assert.equal(response.status, 200);
      assert.deepEqual(
        checker.problems(operation, response),
        [],
        (KNOWN_DEFECTS[1] as { note: string }).note,
      );
    });

    it('deleting a record other records still reference answers a documented status', async () => {
      const operation = operationsOf(doc).find(
        (candidate) => candidate.method === 'DELETE' && candidate.path === '/users/{id}',
      );
      assert.ok(operation !== undefined);
      const owner = await world.user('fuzz_referenced');
      const post = await world.send({
        method: 'POST',
        path: '/posts',
        headers: world.bearer(owner),
        json: { title: 'keeps its owner' },
      });
      assert.equal(post.status, 201);
      const response = await world.send({
        method: 'DELETE',
        path: `/users/${owner.id}`,
        headers: world.bearer(world.admin),
      });
      assert.ok(response.status < 500, describeResponse(response));
      assert.deepEqual(
        checker.problems(operation, response),
        [],
        (KNOWN_DEFECTS[0] as { note: string }).note,
      );
    });

    it('every documented operation: no 5xx, every response as documented', async (t) => {
      for (const operation of operationsOf(doc)) {
        const key = `${operation.method} ${operation.path}`;
        const numRuns = HASHING.has(key) ? Math.max(5, Math.round(RUNS / 3)) : RUNS;
        await t.test(key, async () => {
          await fc
            .assert(
              fc.asyncProperty(requestArbitrary(doc, operation, context), async (request) => {
                const response = await world.send(request);
                requests += 1;
                statuses.set(key, [...(statuses.get(key) ?? []), response.status]);
                const problems = checker.problems(operation, response);
                if (problems.length > 0)
                  throw new Error(`${problems.join('\n')}\n${describeResponse(response)}`);
                checkResponse(response, ledger);
              }),
              { numRuns, ...(SEED === undefined ? {} : { seed: SEED }) },
            )
            .catch((error: unknown) => {
              throw annotate(error);
            });
        });
      }
      const histogram = [...statuses].map(([key, seen]) => `${key}: ${[...new Set(seen)].sort().join(' ')}`);
      t.diagnostic(histogram.join('\n'));
      const all = new Set([...statuses.values()].flat());
      for (const status of [200, 201, 204, 400, 401, 403, 404, 409, 415, 422])
        assert.ok(all.has(status), `no ${status} was ever produced`);
    });
  });
}
