/**
 * The CrudRouter's security hooks (secure, auth_dependency, policy, ownership), composition into
 * plain Koa apps, and the outage path, with a test policy and a test authentication dependency
 * on the in-memory adapter (the full route behaviour is the conformance suite's job).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { defineMemoryModel, MemoryAdapter } from '../../../adapters/memory/index.js';
import { Application } from '../../../lib/application.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { ApiError, ConfigurationError } from '../../../lib/errors.js';
import { problemMiddleware } from '../../../lib/http/problem-middleware.js';
import { sessionOf, useAdapter } from '../../../lib/http/session.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { WriteHooks } from '../../../lib/model/write-hooks.js';
import { add_swagger_ui } from '../../../lib/swagger-ui.js';
import type {
  AppContext,
  AuthDependency,
  ListQuery,
  ListResult,
  ModelClass,
  Policy,
  RawRecord,
} from '../../../lib/types.js';
import { serve, type TestServer } from '../../support/http.js';

class Member extends FrameworkModel {}
class Note extends FrameworkModel {}
class Memo extends FrameworkModel {}

const silent = { info() {}, warn() {}, error() {} };

function makeAdapter(): MemoryAdapter {
  return new MemoryAdapter({
    models: [
      defineMemoryModel(Member, {
        id: { type: 'integer', primary: true, generated: true },
        name: { type: 'string' },
        is_admin: { type: 'boolean', default: false },
      }),
      defineMemoryModel(Note, {
        id: { type: 'integer', primary: true, generated: true },
        text: { type: 'string' },
        owner: { relation: { target: Member } },
      }),
      defineMemoryModel(Memo, {
        id: { type: 'integer', primary: true, generated: true },
        text: { type: 'string' },
      }),
    ],
  });
}

/** Test authentication: `Authorization: Test <id>[:admin]`. */
const testAuth: AuthDependency = Object.assign(
  async (ctx: AppContext, next: () => Promise<unknown>) => {
    const header = ctx.get('authorization');
    const match = /^Test (\d+)(:admin)?$/.exec(header);
    if (match === null) throw ApiError.unauthorized();
    ctx.state.user = { id: Number(match[1]), isAdmin: match[2] !== undefined };
    await next();
  },
  { userModel: Member, securityScheme: 'test' },
);

/** Test policy: the owner of the record or an admin; a list shows only one's own rows. */
const ownerOrAdmin: Policy = {
  name: 'test_owner_or_admin',
  requiresUser: true,
  authenticate: testAuth,
  description: 'Owner or admin (test).',
  allows: ({ user, record }) =>
    user !== undefined && (user.isAdmin || record === undefined || record.owner === user.id),
  scope: ({ user }) => (user?.isAdmin ? undefined : [{ field: 'owner', op: '$eq', value: user?.id }]),
};

const adminOnly: Policy = {
  name: 'test_admin_only',
  requiresUser: true,
  authenticate: testAuth,
  description: 'Admins only (test).',
  allows: ({ user }) => user?.isAdmin === true,
};

const as = (id: number, admin = false) => ({ authorization: `Test ${id}${admin ? ':admin' : ''}` });

describe('CrudRouter security hooks', () => {
  let server: TestServer;
  let adapter: MemoryAdapter;
  before(async () => {
    adapter = makeAdapter();
    const app = new Application({ title: 'hooks', adapter, logger: silent });
    new CrudRouter({ model: Member }).register_routes(app);
    new CrudRouter({
      model: Note,
      secure: true,
      auth_dependency: testAuth,
      policy: { GET: ownerOrAdmin, PUT: ownerOrAdmin, DELETE: adminOnly },
    }).register_routes(app);
    new CrudRouter({
      model: Memo,
      policy: { POST: adminOnly, PUT: adminOnly, DELETE: adminOnly },
    }).register_routes(app);
    server = await serve(app.callback());
    for (const name of ['ann', 'bob']) {
      assert.equal((await server.request('/members', { method: 'POST', json: { name } })).status, 201);
    }
  });
  after(() => server.close());

  it('refuses a secured route without a user: 401 with WWW-Authenticate: Bearer', async () => {
    const response = await server.request('/notes');
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
    assert.equal(((await response.json()) as { code: string }).code, 'unauthorized');
  });

  it('sets the ownership field from the caller on create and ignores the one in the body', async () => {
    const response = await server.request('/notes', {
      method: 'POST',
      headers: as(1),
      json: { text: 'a', owner: 2 },
    });
    assert.equal(response.status, 201);
    assert.deepEqual(await response.json(), { id: 1, text: 'a', owner: 1 });
  });

  it('keeps the owner unchanged on update', async () => {
    const response = await server.request('/notes/1', {
      method: 'PUT',
      headers: as(1),
      json: { text: 'b', owner: 2 },
    });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { id: 1, text: 'b', owner: 1 });
  });

  it('answers 403 when the policy refuses, and lets an admin through', async () => {
    const refused = await server.request('/notes/1', { method: 'PUT', headers: as(2), json: { text: 'x' } });
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'forbidden');
    const admin = await server.request('/notes/1', {
      method: 'PATCH',
      headers: as(2, true),
      json: { text: 'c' },
    });
    assert.equal(admin.status, 200);
  });

  it('does not validate the body of a caller the policy refuses', async () => {
    const response = await server.request('/notes/1', { method: 'PUT', headers: as(2), json: { text: 5 } });
    assert.equal(response.status, 403);
  });

  it('narrows lists with the policy scope', async () => {
    await server.request('/notes', { method: 'POST', headers: as(2), json: { text: 'bob' } });
    const ann = (await (await server.request('/notes', { headers: as(1) })).json()) as { owner: number }[];
    assert.deepEqual(
      ann.map((note) => note.owner),
      [1],
    );
    const admin = (await (await server.request('/notes', { headers: as(1, true) })).json()) as unknown[];
    assert.equal(admin.length, 2);
    assert.equal((await server.request('/notes/2', { headers: as(1) })).status, 403);
  });

  it('lets a policy authenticate by itself on an unsecured router', async () => {
    assert.equal((await server.request('/memos', { method: 'POST', json: { text: 'x' } })).status, 401);
    assert.equal(
      (await server.request('/memos', { method: 'POST', headers: as(1), json: { text: 'x' } })).status,
      403,
    );
    assert.equal(
      (await server.request('/memos', { method: 'POST', headers: as(1, true), json: { text: 'x' } })).status,
      201,
    );
    assert.equal((await server.request('/memos')).status, 200);
  });

  it('answers an anonymous caller 401 before telling whether a record exists, when a policy authenticates on an unsecured router', async () => {
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      for (const path of ['/memos/1', '/memos/999', '/memos/x']) {
        const response = await server.request(path, { method, json: { text: 'y' } });
        assert.equal(response.status, 401, `${method} ${path}`);
      }
    }
    assert.equal(
      (await server.request('/memos/999', { method: 'DELETE', headers: as(1, true) })).status,
      404,
    );
  });

  it('answers 404 before 403 only for records that do not exist', async () => {
    assert.equal((await server.request('/notes/99', { method: 'DELETE', headers: as(1) })).status, 404);
    assert.equal((await server.request('/notes/1', { method: 'DELETE', headers: as(1) })).status, 403);
    assert.equal((await server.request('/notes/1', { method: 'DELETE', headers: as(1, true) })).status, 204);
  });

  it('answers 503 with Retry-After when the database is unavailable, and recovers', async () => {
    adapter.setAvailable(false);
    try {
      const response = await server.request('/members');
      assert.equal(response.status, 503);
      assert.ok(Number(response.headers.get('retry-after')) > 0);
      assert.equal(((await response.json()) as { code: string }).code, 'service_unavailable');
      assert.equal((await server.request('/health/live')).status, 200);
      assert.equal((await server.request('/health/ready')).status, 503);
    } finally {
      adapter.setAvailable(true);
    }
    assert.equal((await server.request('/members')).status, 200);
    assert.equal((await server.request('/health/ready')).status, 200);
  });
});

describe('CrudRouter list queries given to the adapter', () => {
  let server: TestServer;
  const seen: ListQuery[] = [];
  before(async () => {
    /** The memory adapter, keeping each list query it is given. */
    class Recording extends MemoryAdapter {
      override list(session: never, model: ModelClass, query: ListQuery): Promise<ListResult> {
        seen.push(query);
        return super.list(session, model, query);
      }
    }
    const adapter = new Recording({
      models: [
        defineMemoryModel(Memo, {
          id: { type: 'integer', primary: true, generated: true },
          text: { type: 'string' },
        }),
      ],
    });
    const app = new Application({ title: 'lists', adapter, logger: silent });
    new CrudRouter({ model: Memo }).register_routes(app);
    server = await serve(app.callback());
    for (const text of ['a', 'b', 'c']) {
      assert.equal((await server.request('/memos', { method: 'POST', json: { text } })).status, 201);
    }
  });
  after(() => server.close());

  /** The list query of one request, and its response body. */
  async function listed(path: string): Promise<{ query: ListQuery; body: unknown }> {
    seen.length = 0;
    const response = await server.request(path);
    assert.equal(response.status, 200, path);
    assert.equal(seen.length, 1, path);
    return { query: seen[0] as ListQuery, body: await response.json() };
  }

  it('names no fields unless the request has fields=', async () => {
    assert.equal('fields' in (await listed('/memos')).query, false);
    assert.equal('fields' in (await listed('/memos?after=&limit=2')).query, false);
  });

  it('passes the fields= selection, and the sort keys a keyset cursor is built from', async () => {
    const offset = await listed('/memos?fields=text');
    assert.deepEqual(offset.query.fields, ['text']);
    assert.deepEqual(offset.body, [{ text: 'a' }, { text: 'b' }, { text: 'c' }]);
    const keyset = await listed('/memos?fields=text&sort=-text&after=&limit=2');
    assert.deepEqual(keyset.query.fields, ['text', 'id']);
    assert.deepEqual(keyset.body, [{ text: 'c' }, { text: 'b' }], 'the response keeps the selection');
  });
});

describe('CrudRouter configuration', () => {
  it('checks its options when it is created', () => {
    assert.throws(() => new CrudRouter({ model: Note, secure: true }), ConfigurationError);
    assert.throws(() => new CrudRouter({ model: Note, policy: { POST: {} as Policy } }), /not a policy/);
    assert.throws(
      () => new CrudRouter({ model: Note, policy: { FETCH: adminOnly } as never }),
      /unknown method "FETCH"/,
    );
    assert.throws(() => new CrudRouter({ model: Note, prefix: '/bad prefix' }), /Invalid prefix/);
    assert.throws(
      () => new CrudRouter({ model: Note, auth_dependancy: testAuth } as never),
      /CrudRouter for Note: unknown option `auth_dependancy`/,
    );
    assert.throws(
      () => new CrudRouter({ model: Note, like: { max_length: 10, maxLength: 20 } }),
      /`like.max_length` and `like.maxLength` are the same option/,
    );
    assert.throws(() => new CrudRouter({ model: Note, write_hooks: {} as never }), /write_hooks/);
  });

  it('reads each option in snake_case or camelCase', () => {
    const snake = new CrudRouter({
      model: Note,
      auth_dependency: testAuth,
      owner_field: 'owner',
      include_limit: 7,
    });
    const camel = new CrudRouter({
      model: Note,
      authDependency: testAuth,
      ownerField: 'owner',
      includeLimit: 7,
    });
    for (const router of [snake, camel]) {
      assert.equal(router.options.authDependency, testAuth);
      assert.equal(router.options.ownerField, 'owner');
      assert.equal(router.options.includeLimit, 7);
    }
    assert.equal(new CrudRouter({ model: Note, like: { maxWildcards: 2 } }).options.like.maxWildcards, 2);
    assert.equal(typeof snake.registerRoutes, 'function');
  });

  it('refuses a model the adapter does not know at registration', () => {
    class Stranger extends FrameworkModel {}
    const app = new Application({ title: 't', adapter: makeAdapter(), logger: silent });
    assert.throws(() => new CrudRouter({ model: Stranger }).register_routes(app));
  });
});

describe('CrudRouter paths beside the framework pages', () => {
  class Health extends FrameworkModel {}
  class Docs extends FrameworkModel {}
  const adapter = new MemoryAdapter({
    models: [
      defineMemoryModel(
        Health,
        { id: { type: 'integer', primary: true, generated: true } },
        { table: 'health' },
      ),
      defineMemoryModel(Docs, { id: { type: 'integer', primary: true, generated: true } }, { table: 'docs' }),
    ],
  });
  const app = () => new Application({ title: 'pages', adapter, logger: silent });

  it('refuses a resource Swagger UI would shadow, in either order; /health itself answers only its checks', () => {
    const refused = (error: Error) =>
      error instanceof ConfigurationError && /shadow/.test(error.message) && /prefix/.test(error.message);
    assert.doesNotThrow(() => new CrudRouter({ model: Health }).register_routes(app()));
    const docsFirst = app();
    new CrudRouter({ model: Docs }).register_routes(docsFirst);
    assert.throws(() => add_swagger_ui(docsFirst), refused);
    const pageFirst = app();
    add_swagger_ui(pageFirst);
    assert.throws(() => new CrudRouter({ model: Docs }).register_routes(pageFirst), refused);
  });

  it('refuses a resource inside the path of one registered before it, which would answer its requests', async () => {
    const shadowed = app();
    new CrudRouter({ model: Docs }).register_routes(shadowed);
    assert.throws(
      () => new CrudRouter({ model: Docs, prefix: '/docs' }).register_routes(shadowed),
      (error: Error) => error instanceof ConfigurationError && /\/docs\/docs/.test(error.message),
    );
  });

  it('serves a resource inside another one registered after it: each answers its own requests', async () => {
    const nested = app();
    new CrudRouter({ model: Docs, prefix: '/docs' }).register_routes(nested);
    new CrudRouter({ model: Docs }).register_routes(nested);
    const server = await serve(nested.callback());
    try {
      const inner = await server.request('/docs/docs', { method: 'POST', json: {} });
      assert.equal(inner.status, 201);
      assert.match(inner.headers.get('location') ?? '', /^\/docs\/docs\/\d+$/);
      assert.equal((await server.request('/docs/docs')).status, 200);
      assert.equal((await server.request('/docs')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('serves a resource two segments inside another, or under /health beside its checks', async () => {
    const deep = app();
    new CrudRouter({ model: Docs }).register_routes(deep);
    new CrudRouter({ model: Docs, prefix: '/docs/v2' }).register_routes(deep);
    new CrudRouter({ model: Health, prefix: '/health' }).register_routes(deep);
    const server = await serve(deep.callback());
    try {
      assert.equal((await server.request('/docs/v2/docs')).status, 200);
      assert.equal((await server.request('/health/health')).status, 200);
      assert.equal((await server.request('/health/ready')).status, 200);
    } finally {
      await server.close();
    }
  });

  it('serves them under a prefix, or beside a page moved elsewhere', async () => {
    const moved = app();
    add_swagger_ui(moved, { path: '/swagger' });
    new CrudRouter({ model: Docs }).register_routes(moved);
    new CrudRouter({ model: Health, prefix: '/api' }).register_routes(moved);
    const server = await serve(moved.callback());
    try {
      assert.equal((await server.request('/docs')).status, 200);
      assert.equal((await server.request('/api/health')).status, 200);
      assert.equal((await server.request('/health/live')).status, 200);
    } finally {
      await server.close();
    }
  });
});

describe('CrudRouter write hooks (the write_hooks option)', () => {
  let server: TestServer;
  let document: { components: { schemas: Record<string, { properties?: object; required?: string[] }> } };
  const updates: { data: RawRecord; current: RawRecord | undefined }[] = [];
  // Each write names whether to shout: an input-only field the hooks turn into the stored text.
  const shouting: WriteHooks = {
    extraFields: { shout: { type: 'boolean' } },
    requiredOnCreate: ['shout'],
    fieldRules: { text: { minLength: 2 } },
    async prepare(data, mode, _ctx, current) {
      const { shout, ...rest } = data;
      if (mode === 'update')
        updates.push({ data, current: current === undefined ? undefined : { ...current } });
      return shout === true && typeof rest.text === 'string'
        ? { ...rest, text: rest.text.toUpperCase() }
        : rest;
    },
  };
  before(async () => {
    const app = new Application({ title: 'write hooks', adapter: makeAdapter(), logger: silent });
    new CrudRouter({ model: Memo, writeHooks: shouting }).register_routes(app);
    server = await serve(app.callback());
    document = (await (await server.request('/openapi.json')).json()) as typeof document;
  });
  after(() => server.close());

  it('validates the extra fields and applies the hooks to every write', async () => {
    const missing = await server.request('/memos', { method: 'POST', json: { text: 'quiet' } });
    assert.equal(missing.status, 422);
    const problem = (await missing.json()) as { errors: { path: string }[] };
    assert.deepEqual(
      problem.errors.map((error) => error.path),
      ['shout'],
    );
    const created = await server.request('/memos', { method: 'POST', json: { text: 'loud', shout: true } });
    assert.equal(created.status, 201);
    const row = (await created.json()) as { id: number; text: string };
    assert.deepEqual(row, { id: row.id, text: 'LOUD' });
    const changed = await server.request(`/memos/${row.id}`, {
      method: 'PATCH',
      json: { text: 'soft', shout: false },
    });
    assert.deepEqual(await changed.json(), { id: row.id, text: 'soft' });
    assert.deepEqual(updates.at(-1), {
      data: { text: 'soft', shout: false },
      current: { id: row.id, text: 'LOUD' },
    });
  });

  it('documents the extra fields and the field rules in the write schemas', () => {
    const create = document.components.schemas.MemoCreate;
    assert.ok(create !== undefined);
    const properties = create.properties as Record<string, { type?: string; minLength?: number }>;
    assert.deepEqual(Object.keys(properties), ['text', 'shout']);
    assert.equal(properties.text?.minLength, 2);
    assert.deepEqual(properties.shout, { type: 'boolean' });
    assert.deepEqual(create.required?.includes('shout'), true);
    const update = document.components.schemas.MemoUpdate;
    assert.ok(update?.properties !== undefined && 'shout' in update.properties);
    assert.equal(update.required?.includes('shout') ?? false, false);
  });
});

describe('CrudRouter in a plain Koa app', () => {
  let server: TestServer;
  before(async () => {
    const koa = new Koa();
    koa.use(problemMiddleware(silent));
    useAdapter(koa, makeAdapter());
    koa.use(async (ctx, next) => {
      if (ctx.path === '/hello') ctx.body = { hello: 'world' };
      else await next();
    });
    new CrudRouter({ model: Memo, prefix: '/api/v1' }).register_routes(koa);
    server = await serve(koa.callback());
  });
  after(() => server.close());

  it('serves the routes under the prefix beside the app’s own routes', async () => {
    assert.deepEqual(await (await server.request('/hello')).json(), { hello: 'world' });
    const created = await server.request('/api/v1/memos', { method: 'POST', json: { text: 'x' } });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), '/api/v1/memos/1');
    assert.equal((await server.request('/memos')).status, 404);
  });

  it('leaves a fragment or query of the request target out of Location', async () => {
    const url = new URL(server.url);
    const location = await new Promise<string | undefined>((resolve, reject) => {
      const request = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: '/api/v1/memos#frag?x=1',
          headers: { 'content-type': 'application/json' },
        },
        (response) => {
          response.resume();
          resolve(response.headers.location);
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ text: 'fragment' }));
    });
    assert.match(location ?? '', /^\/api\/v1\/memos\/\d+$/);
  });
});

/** A policy whose answer comes later: member 1 may, anyone else may not. */
const asyncPolicy: Policy = {
  name: 'test_async',
  requiresUser: false,
  description: 'Asks elsewhere (test).',
  allows: async ({ user }) => {
    await new Promise((resolve) => setImmediate(resolve));
    return user !== undefined && user.id === 1;
  },
};

/** A policy that answers with an error of its own. */
const frozen: Policy = {
  name: 'test_frozen',
  requiresUser: false,
  description: 'Always refuses in its own words (test).',
  allows: () => {
    throw new ApiError('conflict', 'Notes are frozen.');
  },
};

/**
 * Test authentication that reads the caller's member row, as a real dependency does, answering
 * once the read is done: `Authorization: Member <id>`; 401 when the member does not exist.
 */
function memberAuth(adapter: MemoryAdapter): AuthDependency {
  return Object.assign(
    async (ctx: AppContext, next: () => Promise<unknown>) => {
      const match = /^Member (\d+)$/.exec(ctx.get('authorization'));
      if (match === null) throw ApiError.unauthorized();
      const row = await adapter.get(sessionOf(ctx, adapter) as never, Member, Number(match[1]));
      if (row === undefined) throw ApiError.unauthorized('No such member.', 'invalid_token');
      ctx.state.user = { id: row.id as number, isAdmin: false };
      await next();
    },
    { userModel: Member, securityScheme: 'test' },
  );
}

describe('CrudRouter with asynchronous policies and a dependency that reads the caller', () => {
  let server: TestServer;
  before(async () => {
    const adapter = makeAdapter();
    const app = new Application({ title: 'async', adapter, logger: silent });
    new CrudRouter({ model: Member }).register_routes(app);
    new CrudRouter({
      model: Note,
      secure: true,
      auth_dependency: memberAuth(adapter),
      policy: { GET: asyncPolicy, PUT: frozen },
    }).register_routes(app);
    // A secured router whose dependency lets anonymous callers through: the DELETE policy's own
    // `authenticate` (`Test <id>[:admin]`) runs next, as there is still no user.
    const members = memberAuth(adapter);
    const maybeMember: AuthDependency = Object.assign(
      async (ctx: AppContext, next: () => Promise<unknown>) =>
        ctx.get('authorization').startsWith('Member ') ? members(ctx, next) : next(),
      { userModel: Member, securityScheme: 'test' },
    );
    new CrudRouter({
      model: Memo,
      secure: true,
      auth_dependency: maybeMember,
      policy: { DELETE: adminOnly },
    }).register_routes(app);
    server = await serve(app.callback());
    for (const name of ['ann', 'bob']) {
      assert.equal((await server.request('/members', { method: 'POST', json: { name } })).status, 201);
    }
    const note = await server.request('/notes', {
      method: 'POST',
      headers: { authorization: 'Member 1' },
      json: { text: 'a' },
    });
    assert.equal(note.status, 201);
  });
  after(() => server.close());

  it("reads the caller the dependency names, and the policy's later answer decides", async () => {
    const allowed = await server.request('/notes/1', { headers: { authorization: 'Member 1' } });
    assert.equal(allowed.status, 200);
    assert.deepEqual(await allowed.json(), { id: 1, text: 'a', owner: 1 });
    const refused = await server.request('/notes/1', { headers: { authorization: 'Member 2' } });
    assert.equal(refused.status, 403);
  });

  it('keeps 401, then 404, then 403', async () => {
    for (const path of ['/notes/1', '/notes/999', '/notes/x']) {
      const unknownCaller = await server.request(path, { headers: { authorization: 'Member 9' } });
      assert.equal(unknownCaller.status, 401, path);
      assert.equal(((await unknownCaller.json()) as { code: string }).code, 'invalid_token', path);
    }
    // Member 2 may not read note 1 (403), but a note that does not exist is 404 first.
    const missing = await server.request('/notes/999', { headers: { authorization: 'Member 2' } });
    assert.equal(missing.status, 404);
    const malformed = await server.request('/notes/x', { headers: { authorization: 'Member 2' } });
    assert.equal(malformed.status, 404);
  });

  it("runs the policy's authenticate when the router's dependency left no user, before the id is looked at", async () => {
    assert.equal((await server.request('/memos')).status, 200);
    for (const path of ['/memos/999', '/memos/x']) {
      const anonymous = await server.request(path, { method: 'DELETE' });
      assert.equal(anonymous.status, 401, path);
    }
    const admin = { authorization: 'Test 1:admin' };
    assert.equal((await server.request('/memos/999', { method: 'DELETE', headers: admin })).status, 404);
    assert.equal((await server.request('/memos/x', { method: 'DELETE', headers: admin })).status, 404);
  });

  it('answers 401 with WWW-Authenticate when the dependency refuses the header', async () => {
    const response = await server.request('/notes/1', { headers: { authorization: 'Nonsense' } });
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Bearer');
  });

  it("answers a policy's own error as it was thrown, before looking at the body", async () => {
    const response = await server.request('/notes/1', {
      method: 'PUT',
      headers: { authorization: 'Member 1' },
      json: { text: 42, unknown: true },
    });
    assert.equal(response.status, 409);
    assert.deepEqual(
      (({ code, detail }) => ({ code, detail }))((await response.json()) as { code: string; detail: string }),
      { code: 'conflict', detail: 'Notes are frozen.' },
    );
  });
});

describe('CrudRouter refuses a model whose primary key is hidden', () => {
  class Secret extends FrameworkModel {}
  const adapter = new MemoryAdapter({
    models: [
      defineMemoryModel(Secret, {
        id: { type: 'integer', primary: true, generated: true, hidden: true },
        text: { type: 'string' },
      }),
    ],
  });

  it('naming the key, since paths, Location and cursors would show it anyway', () => {
    const app = new Application({ title: 'secrets', adapter, logger: silent });
    assert.throws(
      () => new CrudRouter({ model: Secret }).register_routes(app),
      (error: Error) => error instanceof ConfigurationError && /primary key id is hidden/.test(error.message),
    );
  });
});
