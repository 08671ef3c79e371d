/**
 * Relations through the CrudRouter, on the in-memory adapter: `include=` (to-one, to-many, two
 * levels, field selection, the per-relation cap), the target router's read rules applied to what
 * is embedded or searched through, filters and sort through a many-to-one, many-to-many writes,
 * and a fixed number of adapter calls whatever the page size. Adapter-level behaviour on real
 * databases is the conformance suite's job.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defineMemoryModel, MemoryAdapter } from '../../../adapters/memory/index.js';
import { Application } from '../../../lib/application.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import { ApiError, ConfigurationError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import type { AppContext, AuthDependency, OrmAdapter, Policy } from '../../../lib/types.js';
import { serve, type TestServer } from '../../support/http.js';

class Member extends FrameworkModel {}
class Topic extends FrameworkModel {}
class Label extends FrameworkModel {}
class Entry extends FrameworkModel {}
class Reply extends FrameworkModel {}
class Secret extends FrameworkModel {}

const ID = { type: 'integer', primary: true, generated: true } as const;

function makeAdapter(): MemoryAdapter {
  return new MemoryAdapter({
    models: [
      defineMemoryModel(
        Member,
        { id: ID, name: { type: 'string' }, password_hash: { type: 'string', hidden: true, nullable: true } },
        { collections: { entries: { kind: 'one-to-many', target: () => Entry, inverseField: 'owner' } } },
      ),
      defineMemoryModel(Topic, { id: ID, name: { type: 'string', unique: true } }),
      defineMemoryModel(
        Label,
        { id: ID, name: { type: 'string', unique: true } },
        { collections: { entries: { kind: 'many-to-many', target: () => Entry, mappedBy: 'labels' } } },
      ),
      defineMemoryModel(
        Entry,
        {
          id: ID,
          title: { type: 'string', unique: true },
          owner: { relation: { target: Member } },
          topic: { relation: { target: Topic }, nullable: true },
          secret: { relation: { target: Secret }, nullable: true },
        },
        {
          collections: {
            labels: { kind: 'many-to-many', target: () => Label },
            replies: { kind: 'one-to-many', target: () => Reply, inverseField: 'entry' },
          },
        },
      ),
      defineMemoryModel(Reply, {
        id: ID,
        text: { type: 'string' },
        entry: { relation: { target: Entry } },
        author: { relation: { target: Member } },
      }),
      defineMemoryModel(Secret, { id: ID, code: { type: 'string' } }),
    ],
  });
}

/** Test authentication: `Authorization: Test <id>[:admin]`; no header leaves the caller anonymous. */
const testAuth: AuthDependency = Object.assign(
  async (ctx: AppContext, next: () => Promise<unknown>) => {
    const match = /^Test (\d+)(:admin)?$/.exec(ctx.get('authorization'));
    if (match === null) throw ApiError.unauthorized();
    ctx.state.user = { id: Number(match[1]), isAdmin: match[2] !== undefined };
    await next();
  },
  { userModel: Member },
);

/** Reads a record only when it is the caller's own (per record), lists narrowed to their own. */
const selfOrAdmin: Policy = {
  name: 'self_or_admin',
  requiresUser: true,
  authenticate: testAuth,
  description: 'The member themselves or an admin.',
  allows: ({ user, record }) => record === undefined || user?.isAdmin === true || record.id === user?.id,
  scope: ({ user }) => (user?.isAdmin === true ? undefined : [{ field: 'id', op: '$eq', value: user?.id }]),
};

/** Allows reading a record unless its name is "hidden-topic" (a per-record rule without a scope). */
const notHiddenTopic: Policy = {
  name: 'not_hidden_topic',
  requiresUser: false,
  description: 'Any topic but one.',
  allows: ({ record }) => record?.name !== 'hidden-topic',
};

interface Setup {
  readonly adapter: OrmAdapter;
  readonly server: TestServer;
}

async function start(
  options: {
    members?: Policy;
    topics?: Policy;
    entries?: { include?: boolean | string[]; include_limit?: number };
  } = {},
): Promise<Setup> {
  const adapter = makeAdapter();
  const app = new Application({ title: 'relations', adapter, logger: { info() {}, warn() {}, error() {} } });
  new CrudRouter({ model: Entry, ...(options.entries ?? {}) }).register_routes(app);
  new CrudRouter({
    model: Member,
    ...(options.members === undefined ? {} : { auth_dependency: testAuth, policy: { GET: options.members } }),
  }).register_routes(app);
  new CrudRouter({
    model: Topic,
    ...(options.topics === undefined ? {} : { policy: { GET: options.topics } }),
  }).register_routes(app);
  new CrudRouter({ model: Label }).register_routes(app);
  new CrudRouter({ model: Reply }).register_routes(app);
  // Secret has no router: `Entry.secret` is not includable.
  return { adapter, server: await serve(app.callback()) };
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are read loosely and checked by deepEqual
async function json(response: Response, status: number): Promise<any> {
  const body = await response.text();
  assert.equal(response.status, status, body);
  return body === '' ? undefined : JSON.parse(body);
}

/**
 * Seeds members, topics, labels, entries (with labels) and replies over HTTP, as an admin: a write
 * names only related records its caller may read (members are read by themselves or an admin).
 */
async function seed(server: TestServer): Promise<void> {
  const headers = { authorization: 'Test 9:admin' };
  const post = (path: string, body: unknown) =>
    server.request(path, { method: 'POST', json: body, headers }).then((r) => json(r, 201));
  await post('/members', { name: 'ann', password_hash: 'x' });
  await post('/members', { name: 'bob' });
  await post('/topics', { name: 'cooking' });
  await post('/topics', { name: 'hidden-topic' });
  for (const name of ['a', 'b', 'c', 'd']) await post('/labels', { name });
  await post('/entries', { title: 'e1', owner: 1, topic: 1, labels: [3, 1] });
  await post('/entries', { title: 'e2', owner: 2, topic: null, labels: [] });
  await post('/entries', { title: 'e3', owner: 1, topic: 1, labels: [1, 2, 3, 4] });
  await post('/replies', { text: 'r1', entry: 1, author: 2 });
  await post('/replies', { text: 'r2', entry: 1, author: 1 });
}

describe('relations: include=', () => {
  let setup: Setup;
  before(async () => {
    setup = await start({ entries: { include_limit: 3 } });
    await seed(setup.server);
  });
  after(() => setup.server.close());

  it('embeds a many-to-one as its record (hidden fields left out), null for a null key', async () => {
    const rows = await json(await setup.server.request('/entries?include=owner,topic'), 200);
    assert.deepEqual(rows[0].owner, { id: 1, name: 'ann' });
    assert.deepEqual(rows[0].topic, { id: 1, name: 'cooking' });
    assert.equal(rows[1].topic, null);
    const one = await json(await setup.server.request('/entries/2?include=owner'), 200);
    assert.deepEqual(one, { id: 2, title: 'e2', owner: { id: 2, name: 'bob' }, topic: null, secret: null });
  });

  it('embeds to-many relations ordered by key, capped by include_limit', async () => {
    const rows = await json(await setup.server.request('/entries?include=labels,replies'), 200);
    assert.deepEqual(
      rows[0].labels.map((label: { id: number }) => label.id),
      [1, 3],
    );
    assert.deepEqual(rows[1].labels, []);
    assert.deepEqual(
      rows[2].labels.map((label: { id: number }) => label.id),
      [1, 2, 3],
      'capped at 3',
    );
    assert.deepEqual(
      rows[0].replies.map((reply: { text: string }) => reply.text),
      ['r1', 'r2'],
    );
    const label = await json(await setup.server.request('/labels/1?include=entries'), 200);
    assert.deepEqual(
      label.entries.map((entry: { title: string }) => entry.title),
      ['e1', 'e3'],
    );
  });

  it('goes two levels deep and selects embedded fields by dotted path', async () => {
    const rows = await json(
      await setup.server.request(
        '/entries?include=replies.author&fields=title,replies.text,replies.author.name',
      ),
      200,
    );
    assert.deepEqual(rows[0], {
      title: 'e1',
      replies: [
        { text: 'r1', author: { name: 'bob' } },
        { text: 'r2', author: { name: 'ann' } },
      ],
    });
    const members = await json(
      await setup.server.request('/members?include=entries.labels&fields=name,entries.title'),
      200,
    );
    assert.deepEqual(members[0].entries[0], {
      title: 'e1',
      labels: [
        { id: 1, name: 'a' },
        { id: 3, name: 'c' },
      ],
    });
  });

  it('takes an included to-many relation named in fields= as it is: in the response anyway', async () => {
    const named = await json(
      await setup.server.request('/entries?include=replies&fields=title,replies'),
      200,
    );
    const plain = await json(await setup.server.request('/entries?include=replies&fields=title'), 200);
    assert.deepEqual(named, plain);
    assert.deepEqual(Object.keys(named[0]), ['title', 'replies']);
  });

  it('refuses what cannot be included with a 400 that names it', async () => {
    for (const [query, text] of [
      ['fields=title,replies', 'include=replies'],
      ['include=secret', '"secret"'],
      ['include=nothing', '"nothing"'],
      ['include=replies.entry.owner', '3 levels'],
      ['fields=title,owner.name', 'include=owner'],
      ['include=owner&fields=owner.password_hash', '"password_hash"'],
    ] as const) {
      const body = await json(await setup.server.request(`/entries?${query}`), 400);
      assert.equal(body.code, 'invalid_query');
      assert.ok(body.detail.includes(text), `${query}: ${body.detail}`);
    }
  });
});

describe('relations: the target router decides what may be embedded or searched through', () => {
  let setup: Setup;
  before(async () => {
    setup = await start({ members: selfOrAdmin, topics: notHiddenTopic });
    await seed(setup.server);
  });
  after(() => setup.server.close());

  it('answers 401 to an anonymous caller when the target router needs a user', async () => {
    const body = await json(await setup.server.request('/entries?include=owner'), 401);
    assert.equal(body.code, 'unauthorized');
  });

  it('answers 403 naming the relation when the target narrows what the caller reads', async () => {
    const headers = { authorization: 'Test 1' };
    const body = await json(await setup.server.request('/entries?include=owner', { headers }), 403);
    assert.ok(body.detail.includes('include=owner'), body.detail);
    const filtered = await json(
      await setup.server.request('/entries?filter[owner.name]=ann', { headers }),
      403,
    );
    assert.ok(filtered.detail.includes('"owner"'), filtered.detail);
    const admin = await json(
      await setup.server.request('/entries?include=owner&filter[owner.name]=ann', {
        headers: { authorization: 'Test 9:admin' },
      }),
      200,
    );
    assert.deepEqual(
      admin.map((row: { title: string }) => row.title),
      ['e1', 'e3'],
    );
  });

  it('answers 403 when one embedded record is refused by the read policy', async () => {
    await json(await setup.server.request('/entries?include=topic'), 200);
    // Linked by the server: no caller may name a topic they may not read in a write.
    await setup.adapter.update(setup.adapter.openSession(), Entry, 2, { topic: 2 });
    const body = await json(await setup.server.request('/entries?include=topic'), 403);
    assert.ok(body.detail.includes('include=topic'), body.detail);
    await json(await setup.server.request('/entries/1?include=topic'), 200);
  });
});

describe('relations: filters and sort through a many-to-one', () => {
  let setup: Setup;
  before(async () => {
    setup = await start();
    await seed(setup.server);
  });
  after(() => setup.server.close());

  const titles = (rows: { title: string }[]) => rows.map((row) => row.title);

  it('filters and sorts by fields of the related record', async () => {
    assert.deepEqual(titles(await json(await setup.server.request('/entries?filter[owner.name]=bob'), 200)), [
      'e2',
    ]);
    assert.deepEqual(
      titles(await json(await setup.server.request('/entries?filter[topic.name][$in]=cooking,x'), 200)),
      ['e1', 'e3'],
    );
    assert.deepEqual(titles(await json(await setup.server.request('/entries?sort=-owner.name,id'), 200)), [
      'e2',
      'e1',
      'e3',
    ]);
  });

  it('refuses hidden fields, $exists, to-many paths and keyset paging by a related key', async () => {
    for (const [query, text] of [
      ['filter[owner.password_hash]=x', '"password_hash"'],
      ['filter[owner.name][$exists]=true', '$exists'],
      ['filter[labels.name]=a', 'to-many'],
      ['sort=owner.name&after=', 'keyset'],
      ['filter[secret.code]=x', '"secret.code"'],
    ] as const) {
      const body = await json(await setup.server.request(`/entries?${query}`), 400);
      assert.ok(body.detail.includes(text), `${query}: ${body.detail}`);
    }
  });
});

describe('relations: how many records one response embeds', () => {
  it('refuses (400) a response that would embed more than 10,000 records, before reading the records', async () => {
    const setup = await start({ entries: { include_limit: 1000 } });
    try {
      const session = setup.adapter.openSession();
      const owner = await setup.adapter.create(session, Member, { name: 'ann' });
      const labels: unknown[] = [];
      for (let n = 0; n < 1000; n++)
        labels.push((await setup.adapter.create(session, Label, { name: `l${n}` })).id);
      for (let n = 0; n < 11; n++)
        await setup.adapter.create(session, Entry, { title: `e${n}`, owner: owner.id, labels });
      // Ten entries embed 10,000 labels: the most one response embeds.
      const ten = await json(await setup.server.request('/entries?limit=10&include=labels'), 200);
      assert.equal(
        ten.reduce((sum: number, row: { labels: unknown[] }) => sum + row.labels.length, 0),
        10_000,
      );
      const eleven = await json(await setup.server.request('/entries?limit=11&include=labels'), 400);
      assert.equal(eleven.code, 'invalid_query');
      assert.match(eleven.detail, /include=labels would embed more than 10000 records/);
    } finally {
      await setup.server.close();
    }
  });
});

describe('relations: many-to-many writes', () => {
  let setup: Setup;
  before(async () => {
    setup = await start();
    await seed(setup.server);
  });
  after(() => setup.server.close());

  const labelIds = async (id: number): Promise<number[]> =>
    (await json(await setup.server.request(`/entries/${id}?include=labels`), 200)).labels.map(
      (label: { id: number }) => label.id,
    );

  it('replaces the set on update, clears it with [], leaves it when absent', async () => {
    await json(await setup.server.request('/entries/1', { method: 'PATCH', json: { labels: [4, 2] } }), 200);
    assert.deepEqual(await labelIds(1), [2, 4]);
    await json(await setup.server.request('/entries/1', { method: 'PATCH', json: { title: 'e1b' } }), 200);
    assert.deepEqual(await labelIds(1), [2, 4]);
    await json(await setup.server.request('/entries/1', { method: 'PATCH', json: { labels: [] } }), 200);
    assert.deepEqual(await labelIds(1), []);
  });

  it('names unknown and repeated keys by index, and writes nothing', async () => {
    const body = await json(
      await setup.server.request('/entries', {
        method: 'POST',
        json: { title: 'bad', owner: 1, labels: [1, 99, 1] },
      }),
      422,
    );
    assert.deepEqual(
      body.errors.map((error: { path: string }) => error.path),
      ['labels.1', 'labels.2'],
    );
    assert.deepEqual(await json(await setup.server.request('/entries?filter[title]=bad'), 200), []);
    const typed = await json(
      await setup.server.request('/entries/3', { method: 'PATCH', json: { labels: ['x'] } }),
      422,
    );
    assert.equal(typed.errors[0].path, 'labels.0');
  });

  it('treats collections a client may not set as read-only fields', async () => {
    const setupStrict = makeAdapter();
    const app = new Application({ title: 'strict', adapter: setupStrict });
    new CrudRouter({ model: Member, strict: true }).register_routes(app);
    const server = await serve(app.callback());
    try {
      const body = await json(
        await server.request('/members', { method: 'POST', json: { name: 'x', entries: [1] } }),
        422,
      );
      assert.deepEqual(body.errors, [{ path: 'entries', message: 'is not writable' }]);
    } finally {
      await server.close();
    }
  });
});

describe('relations: a fixed number of adapter calls per request', () => {
  it('costs the same for a page of 10 and of 100 with three includes', async () => {
    const adapter = makeAdapter();
    const calls: string[] = [];
    const counting: OrmAdapter = new Proxy(adapter, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        if (!['list', 'get', 'links', 'findBy'].includes(String(name))) return value.bind(target);
        return (...args: unknown[]) => {
          calls.push(String(name));
          return value.apply(target, args);
        };
      },
    });
    const app = new Application({ title: 'count', adapter: counting });
    for (const model of [Entry, Member, Topic, Label, Reply]) new CrudRouter({ model }).register_routes(app);
    const server = await serve(app.callback());
    try {
      const session = adapter.openSession();
      await adapter.create(session, Member, { name: 'ann' });
      await adapter.create(session, Topic, { name: 't' });
      await adapter.create(session, Label, { name: 'l' });
      for (let index = 0; index < 100; index++) {
        await adapter.create(session, Entry, { title: `e${index}`, owner: 1, topic: 1, labels: [1] });
      }
      const countFor = async (limit: number): Promise<number> => {
        calls.length = 0;
        const rows = await json(
          await server.request(`/entries?limit=${limit}&include=owner,topic,labels`),
          200,
        );
        assert.equal(rows.length, limit);
        return calls.length;
      };
      const small = await countFor(10);
      const large = await countFor(100);
      assert.equal(large, small);
      // The page, owner, topic, and the labels' links and records.
      assert.equal(large, 5);
    } finally {
      await server.close();
    }
  });

  it('refuses an include list naming something that is not a relation', () => {
    assert.throws(
      () =>
        new CrudRouter({ model: Entry, include: ['title'] }).register_routes(
          new Application({ title: 'x', adapter: makeAdapter() }),
        ),
      ConfigurationError,
    );
  });
});
