/**
 * A client generated from the served `/openapi.json` works with default settings: the example
 * application runs as `npm start` runs it, openapi-typescript turns its document into types, and
 * a program written against those types with openapi-fetch (no `querySerializer`) is type-checked
 * by the project's TypeScript, then run against the live server. It sends every filter operator
 * and multi-key sorts and selections, includes a relation and filters and sorts through it, and
 * gets the right records back.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { type BlogProcess, startBlog } from '../../support/blog-process.js';
import { repoRoot } from '../../support/paths.js';

// openapi-typescript 7 drives the TypeScript 5 compiler API, which TypeScript 7 (native) no longer
// has: its `typescript` import is pointed at the `typescript-5` devDependency, for it alone.
registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/')) {
      return nextResolve('typescript-5', context);
    }
    return nextResolve(specifier, context);
  },
});

/** The two functions of openapi-typescript's programmatic API this test uses. */
interface OpenapiTypescript {
  default(schema: unknown, options?: Record<string, unknown>): Promise<unknown>;
  astToString(ast: unknown): string;
}

const ADMIN = { username: 'client_admin', password: 'admin password 123', email: 'admin@example.com' };
/** Users registered for the queries: two share an age, so sorting by age alone leaves a tie. */
const PEOPLE = [
  { username: 'alice', age: 20 },
  { username: 'bob', age: 30 },
  { username: 'carol', age: 40 },
  { username: 'dave', age: 50 },
  { username: 'erin', age: 30 },
];

/**
 * The client program, written as a user would against the generated `paths`: every call goes
 * through openapi-fetch's default serializer. The `@ts-expect-error` lines prove the types refuse
 * what the server refuses (a pattern on a number, a hidden field, an unknown sort key).
 */
const CLIENT_PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

type Listed = { data?: { username?: string; age?: number; title?: string }[]; response: Response };

async function summary(call: Promise<Listed>): Promise<{ status: number; names: string[]; keys: string[][] }> {
  const { data, response } = await call;
  const rows = data ?? [];
  return {
    status: response.status,
    names: rows.map((row) => String(row.username ?? row.title)),
    keys: rows.map((row) => Object.keys(row).sort()),
  };
}

export async function run(baseUrl: string, token: string) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: 'Bearer ' + token } });
  const users = (query: NonNullable<paths['/users']['get']['parameters']['query']>) =>
    summary(client.GET('/users', { params: { query: { ...query, limit: 50 } } }));
  const people = { 'filter[username]': { $nin: 'client_admin' } } as const;
  return {
    eq: await users({ 'filter[age]': { $eq: 30 }, sort: ['username'] }),
    ne: await users({ ...people, 'filter[age]': { $ne: 30 }, sort: ['username'] }),
    gtLt: await users({ 'filter[age]': { $gt: 20, $lt: 50 }, sort: ['username'] }),
    gteLte: await users({ 'filter[age]': { $gte: 20, $lte: 30 }, sort: ['username'] }),
    in: await users({ 'filter[username]': { $in: 'alice,dave' }, sort: ['username'] }),
    nin: await users({ ...people, 'filter[age]': { $nin: '20,30' }, sort: ['username'] }),
    like: await users({ 'filter[username]': { $like: 'ca%' } }),
    likeCase: await users({ 'filter[username]': { $like: 'CA%' } }),
    ilike: await users({ 'filter[username]': { $ilike: 'CA%' } }),
    existsUsers: await users({ ...people, 'filter[age]': { $exists: true }, sort: ['username'] }),
    sortAgeDescName: await users({ ...people, sort: ['-age', 'username'] }),
    sortAgeDescNameDesc: await users({ ...people, sort: ['-age', '-username'] }),
    fields: await users({ 'filter[username]': { $eq: 'bob' }, fields: ['username', 'age'] }),
    postsWithoutBody: await summary(
      client.GET('/posts', { params: { query: { 'filter[body]': { $exists: false } } } }),
    ),
    postsWithBody: await summary(
      client.GET('/posts', { params: { query: { 'filter[body]': { $exists: true }, 'filter[title]': { $ne: 'x' } } } }),
    ),
    ...(await relations(client)),
  };
}

/** include=, and a filter and sort through a relation; an included many-to-one narrows to the record. */
async function relations(client: ReturnType<typeof createClient<paths>>) {
  const listed = await client.GET('/posts', {
    params: {
      query: { include: ['owner'], 'filter[owner.username]': { $eq: 'client_admin' }, sort: ['-owner.username', 'title'] },
    },
  });
  const posts = listed.data ?? [];
  const read = await client.GET('/posts/{id}', {
    params: { path: { id: posts[0]?.id ?? 0 }, query: { include: ['owner'] } },
  });
  const owner = read.data?.owner;
  return {
    postsByOwner: {
      status: listed.response.status,
      names: posts.map((post) => String(post.title)),
      keys: posts.map((post) => (typeof post.owner === 'object' ? Object.keys(post.owner).sort() : [])),
    },
    postOwner: {
      status: read.response.status,
      names: [typeof owner === 'object' ? owner.username : 'only a key'],
      keys: [typeof owner === 'object' ? Object.keys(owner).sort() : []],
    },
  };
}

export function refusedByTheTypes(baseUrl: string): void {
  const client = createClient<paths>({ baseUrl });
  // @ts-expect-error a number field takes no pattern
  void client.GET('/users', { params: { query: { 'filter[age]': { $like: '1%' } } } });
  // @ts-expect-error a hidden field cannot be filtered
  void client.GET('/users', { params: { query: { 'filter[hashed_password]': { $eq: 'x' } } } });
  // @ts-expect-error sort keys are the readable fields
  void client.GET('/users', { params: { query: { sort: ['-hashed_password'] } } });
  // @ts-expect-error include names the relations only
  void client.GET('/posts', { params: { query: { include: ['body'] } } });
  // @ts-expect-error a hidden field of a relation cannot be filtered
  void client.GET('/posts', { params: { query: { 'filter[owner.hashed_password]': { $eq: 'x' } } } });
}
`;

/** What the client program returns for one query. */
interface Summary {
  readonly status: number;
  readonly names: string[];
  readonly keys: string[][];
}

async function json(
  base: string,
  path: string,
  body: unknown,
  token?: string,
): Promise<Record<string, unknown>> {
  const response = await fetch(base + path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  assert.ok(response.status < 300, `${path}: ${response.status} ${text}`);
  return JSON.parse(text) as Record<string, unknown>;
}

describe('a client generated by openapi-typescript + openapi-fetch with default settings', () => {
  let folder: string;
  let started: BlogProcess;
  let results: Record<string, Summary>;

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kma-clients-'));
    started = await startBlog({
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: `sqlite:${join(folder, 'blog.sqlite')}`,
      JWT_SECRET: 'a clients test secret of at least thirty-two bytes',
      ADMIN_USERNAME: ADMIN.username,
      ADMIN_PASSWORD: ADMIN.password,
      ADMIN_EMAIL: ADMIN.email,
      NODE_ENV: 'test',
    });
    const base = started.base;
    for (const person of PEOPLE) {
      await json(base, '/register', {
        ...person,
        email: `${person.username}@example.com`,
        password: `${person.username} password 1`,
      });
    }
    const login = await json(base, '/login', { username: ADMIN.username, password: ADMIN.password });
    const token = String(login.access_token);
    await json(base, '/posts', { title: 'With a body', body: 'Some text.' }, token);
    await json(base, '/posts', { title: 'Without a body' }, token);

    // Generate the types from the live document, as a user would from the URL.
    const document: unknown = await (await fetch(`${base}/openapi.json`)).json();
    const generator = (await import('openapi-typescript')) as unknown as OpenapiTypescript;
    const types = generator.astToString(await generator.default(document));
    writeFileSync(join(folder, 'api.d.ts'), types);
    writeFileSync(join(folder, 'client.ts'), CLIENT_PROGRAM);
    writeFileSync(join(folder, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(
      join(folder, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2023',
          lib: ['es2023', 'dom'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          rootDir: '.',
          strict: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['client.ts', 'api.d.ts'],
      }),
    );
    // The program resolves openapi-fetch from this repository's node_modules.
    symlinkSync(join(repoRoot(), 'node_modules'), join(folder, 'node_modules'), 'dir');
    const tsc = spawnSync(
      process.execPath,
      [join(repoRoot(), 'node_modules', 'typescript', 'bin', 'tsc'), '-p', folder],
      { encoding: 'utf8' },
    );
    assert.equal(tsc.status, 0, `the client program does not type-check:\n${tsc.stdout}${tsc.stderr}`);

    const program = (await import(pathToFileURL(join(folder, 'client.js')).href)) as {
      run(baseUrl: string, token: string): Promise<Record<string, Summary>>;
    };
    results = await program.run(base, token);
  });

  after(async () => {
    if (started !== undefined && started.child.exitCode === null) await started.stop();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
  });

  /** The result of one query of the client program, which must have answered 200. */
  function ok(name: string): Summary {
    const result = results[name];
    assert.ok(result !== undefined, name);
    assert.equal(result.status, 200, name);
    return result;
  }

  it('sends $eq, $ne, $gt, $gte, $lt and $lte as typed operands', () => {
    assert.deepEqual(ok('eq').names, ['bob', 'erin']);
    assert.deepEqual(ok('ne').names, ['alice', 'carol', 'dave']);
    assert.deepEqual(ok('gtLt').names, ['bob', 'carol', 'erin']);
    assert.deepEqual(ok('gteLte').names, ['alice', 'bob', 'erin']);
  });

  it('sends $in and $nin as comma-separated lists', () => {
    assert.deepEqual(ok('in').names, ['alice', 'dave']);
    assert.deepEqual(ok('nin').names, ['carol', 'dave']);
  });

  it('sends $like (case-sensitive) and $ilike patterns', () => {
    assert.deepEqual(ok('like').names, ['carol']);
    assert.deepEqual(ok('likeCase').names, []);
    assert.deepEqual(ok('ilike').names, ['carol']);
  });

  it('sends $exists as a boolean', () => {
    assert.deepEqual(ok('existsUsers').names, ['alice', 'bob', 'carol', 'dave', 'erin']);
    assert.deepEqual(ok('postsWithoutBody').names, ['Without a body']);
    assert.deepEqual(ok('postsWithBody').names, ['With a body']);
  });

  it('sends a multi-key sort, the later key breaking ties of the first', () => {
    assert.deepEqual(ok('sortAgeDescName').names, ['dave', 'carol', 'bob', 'erin', 'alice']);
    assert.deepEqual(ok('sortAgeDescNameDesc').names, ['dave', 'carol', 'erin', 'bob', 'alice']);
  });

  it('sends a field selection of several fields', () => {
    assert.deepEqual(ok('fields').keys, [['age', 'username']]);
  });

  it('sends include= and a filter and sort through a relation, and reads the embedded record', () => {
    const listed = ok('postsByOwner');
    assert.deepEqual(listed.names, ['With a body', 'Without a body']);
    for (const keys of listed.keys) {
      assert.ok(keys.includes('username'), 'the owner is embedded');
      assert.equal(keys.includes('hashed_password'), false, 'by its own rules');
    }
    const read = ok('postOwner');
    assert.deepEqual(read.names, [ADMIN.username]);
  });
});
