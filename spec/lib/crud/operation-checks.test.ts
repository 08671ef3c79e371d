/**
 * The operation table is the truth of both dispatch and documentation: for every generated
 * operation, a request that fails its checks from the k-th on is refused by the k-th, with that
 * check's status, and the OpenAPI document lists that status among the operation's responses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineMemoryModel, MemoryAdapter } from '../../../adapters/memory/index.js';
import { Application } from '../../../lib/application.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { CRUD_OPERATIONS } from '../../../lib/crud/crud-routes.js';
import { ApiError } from '../../../lib/errors.js';
import type { OperationCheck } from '../../../lib/http/operation.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { AppContext, AuthDependency, CrudMethod, Policy } from '../../../lib/types.js';
import { serve, type TestServer } from '../../support/http.js';

class Badge extends FrameworkModel {}
/** Holds a badge: a badge with a pin cannot be deleted (the delete's `store` check). */
class Pin extends FrameworkModel {}

/** `Authorization: Test <id>`; no header is a 401. */
const testAuth: AuthDependency = Object.assign(
  async (ctx: AppContext, next: () => Promise<unknown>) => {
    const match = /^Test (\d+)$/.exec(ctx.get('authorization'));
    if (match === null) throw ApiError.unauthorized();
    ctx.state.user = { id: Number(match[1]), isAdmin: false };
    await next();
  },
  { securityScheme: 'TestAuth' },
);

/** Only user 1 may do anything. */
const onlyOne: Policy = {
  name: 'only_one',
  requiresUser: true,
  description: 'User 1 only.',
  allows: ({ user }) => user?.id === 1,
};

const STATUS: Readonly<Record<OperationCheck, number>> = {
  caller: 401,
  record: 404,
  policy: 403,
  query: 400,
  body: 422,
  store: 409,
};

describe('the operation table against the handlers and the document', () => {
  let server: TestServer;
  let document: { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };

  before(async () => {
    const adapter = new MemoryAdapter({
      models: [
        defineMemoryModel(Badge, {
          id: { type: 'integer', primary: true, generated: true },
          name: { type: 'string', unique: true, maxLength: 20 },
        }),
        defineMemoryModel(Pin, {
          id: { type: 'integer', primary: true, generated: true },
          badge: { relation: { target: Badge } },
        }),
      ],
    });
    const app = new Application({ title: 'checks', adapter });
    const policy = Object.fromEntries(
      (['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as CrudMethod[]).map((m) => [m, onlyOne]),
    );
    new CrudRouter({ model: Badge, secure: true, auth_dependency: testAuth, policy }).register_routes(app);
    server = await serve(app.callback());
    const session = adapter.openSession();
    await adapter.create(session, Badge, { name: 'taken' });
    await adapter.create(session, Badge, { name: 'mine' });
    await adapter.create(session, Pin, { badge: 2 });
    document = (await (await server.request('/openapi.json')).json()) as typeof document;
  });
  after(() => server.close());

  for (const operation of CRUD_OPERATIONS) {
    it(`${operation.method} ${operation.path}: refused by the first failing check, in the declared order`, async () => {
      for (let first = 0; first < operation.checks.length; first++) {
        const failing = new Set(operation.checks.slice(first));
        const headers: Record<string, string> = {};
        if (!failing.has('caller')) headers.authorization = failing.has('policy') ? 'Test 2' : 'Test 1';
        const id = failing.has('record') ? '999' : '2';
        const query = failing.has('query')
          ? operation.name === 'list'
            ? '?limit=0'
            : '?include=nothing'
          : '';
        const path = `${operation.path === '/' ? '/badges' : `/badges/${id}`}${query}`;
        const body =
          operation.body === undefined
            ? undefined
            : failing.has('body')
              ? { name: 5 }
              : { name: failing.has('store') ? 'taken' : `fresh-${operation.name}-${first}` };
        const response = await server.request(path, {
          method: operation.method,
          headers,
          ...(body === undefined ? {} : { json: body }),
        });
        const check = operation.checks[first] as OperationCheck;
        assert.equal(response.status, STATUS[check], `${check} first: ${await response.text()}`);
        const documented =
          document.paths[operation.path === '/' ? '/badges' : '/badges/{id}']?.[
            operation.method.toLowerCase()
          ]?.responses;
        assert.ok(documented !== undefined && String(STATUS[check]) in documented, `${check} is documented`);
      }
    });
  }
});
