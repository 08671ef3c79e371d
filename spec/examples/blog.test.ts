/**
 * The example application, started the way `npm start` starts it (a separate Node process running
 * dist/examples/blog/main.js), walked through a user story over HTTP — accounts and posts, then
 * posts with their category, tags and comments — and stopped with SIGTERM.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type BlogProcess, blogMainPath, startBlog } from '../support/blog-process.js';
import {
  createTestDatabase,
  type DatabaseTarget,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../support/databases.js';
import { repoRoot } from '../support/paths.js';

const ADMIN = { username: 'root_admin', password: 'admin password 123', email: 'admin@example.com' };

async function call(
  base: string,
  method: string,
  path: string,
  options: { token?: string; json?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> & Record<string, unknown>[] }> {
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(base + path, {
    method,
    headers,
    ...(options.json === undefined ? {} : { body: JSON.stringify(options.json) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : JSON.parse(text) };
}

type Row = Record<string, unknown>;

/** The rows of a list response (asserting it is one), e.g. `rows(await call(…))`. */
function rows(response: { status: number; body: unknown }): Row[] {
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.ok(Array.isArray(response.body), JSON.stringify(response.body));
  return response.body as Row[];
}

/** The `errors[].path` of a problem body. */
function errorPaths(body: unknown): string[] {
  return ((body as { errors?: { path: string }[] }).errors ?? []).map((error) => error.path);
}

async function login(base: string, username: string, password: string): Promise<string> {
  const response = await call(base, 'POST', '/login', { json: { username, password } });
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.equal(response.body.token_type, 'bearer');
  return String(response.body.access_token);
}

const targets = databaseTargets().filter((target): target is DatabaseTarget => target !== 'sqlite-memory');

for (const target of targets) {
  describe(`example blog on ${target}`, await requireTarget(target), () => {
    let database: TestDatabase;
    let started: BlogProcess;
    let folder: string;

    before(async () => {
      folder = mkdtempSync(join(tmpdir(), 'kma-blog-'));
      database = await createTestDatabase(target);
      started = await startBlog({
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        JWT_SECRET: 'an example secret of at least thirty-two bytes',
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
        ADMIN_EMAIL: ADMIN.email,
        NODE_ENV: 'test',
      });
    });

    after(async () => {
      if (started !== undefined && started.child.exitCode === null) await started.stop();
      await database?.drop();
      rmSync(folder, { recursive: true, force: true });
    });

    it('serves the documentation and the OpenAPI document', async () => {
      const docs = await fetch(`${started.base}/docs`);
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger-ui/i);
      const openapi = (await (await fetch(`${started.base}/openapi.json`)).json()) as {
        paths: Record<string, unknown>;
      };
      for (const path of [
        '/users',
        '/posts/{id}',
        '/comments',
        '/categories',
        '/labels',
        '/register',
        '/login',
      ]) {
        assert.ok(path in openapi.paths, path);
      }
    });

    it('walks a user story: register, login, create, edit, refused edit, promotion, delete', async () => {
      const base = started.base;
      const ann = await call(base, 'POST', '/register', {
        json: { username: 'ann', email: 'ann@example.com', password: 'ann password 1', is_admin: true },
      });
      assert.equal(ann.status, 201);
      assert.equal(ann.body.is_admin, false, 'registration never yields an admin');
      assert.equal('hashed_password' in ann.body, false);
      const bob = await call(base, 'POST', '/register', {
        json: { username: 'bob', email: 'bob@example.com', password: 'bob password 1', age: 40 },
      });
      assert.equal(bob.status, 201);
      assert.equal(bob.body.age, 40);

      const annToken = await login(base, 'ann', 'ann password 1');
      const bobToken = await login(base, 'bob', 'bob password 1');

      assert.equal((await call(base, 'GET', '/posts')).status, 401);
      const post = await call(base, 'POST', '/posts', {
        token: annToken,
        json: { title: 'Hello', owner: bob.body.id },
      });
      assert.equal(post.status, 201);
      assert.equal(post.body.owner, ann.body.id, 'the owner comes from the token');

      const edited = await call(base, 'PUT', `/posts/${post.body.id}`, {
        token: annToken,
        json: { title: 'Hello again' },
      });
      assert.equal(edited.status, 200);
      assert.equal(edited.body.title, 'Hello again');

      const refused = await call(base, 'PUT', `/posts/${post.body.id}`, {
        token: bobToken,
        json: { title: 'Mine now' },
      });
      assert.equal(refused.status, 403);

      const notYet = await call(base, 'POST', `/admin/${bob.body.id}/make-admin`, { token: annToken });
      assert.equal(notYet.status, 403);
      const adminToken = await login(base, ADMIN.username, ADMIN.password);
      const promoted = await call(base, 'POST', `/admin/${bob.body.id}/make-admin`, { token: adminToken });
      assert.equal(promoted.status, 200);
      assert.equal(promoted.body.is_admin, true);

      const byNewAdmin = await call(base, 'PUT', `/posts/${post.body.id}`, {
        token: bobToken,
        json: { title: 'Edited by an admin' },
      });
      assert.equal(byNewAdmin.status, 200, 'the promotion takes effect on the existing token');

      assert.equal((await call(base, 'DELETE', `/posts/${post.body.id}`, { token: bobToken })).status, 204);
      assert.equal((await call(base, 'GET', `/posts/${post.body.id}`, { token: annToken })).status, 404);

      assert.equal((await call(base, 'POST', '/categories', { json: { name: 'news' } })).status, 201);
      assert.equal((await call(base, 'POST', '/labels', { json: { name: 'x' } })).status, 401);
      assert.equal(
        (await call(base, 'POST', '/labels', { token: annToken, json: { name: 'x' } })).status,
        403,
      );
      assert.equal(
        (await call(base, 'POST', '/labels', { token: adminToken, json: { name: 'x' } })).status,
        201,
      );
      assert.equal((await call(base, 'GET', '/labels')).status, 200);
    });

    it('relates posts to a category, tags and comments, and reads them back in one request', async () => {
      const base = started.base;
      const adminToken = await login(base, ADMIN.username, ADMIN.password);
      const signUp = async (username: string): Promise<{ id: number; token: string }> => {
        const password = `${username} password 1`;
        const registered = await call(base, 'POST', '/register', {
          json: { username, email: `${username}@example.com`, password },
        });
        assert.equal(registered.status, 201, JSON.stringify(registered.body));
        return { id: Number(registered.body.id), token: await login(base, username, password) };
      };
      const carol = await signUp('carol');
      const dave = await signUp('dave');
      const create = async (path: string, token: string | undefined, json: Row): Promise<Row> => {
        const created = await call(base, 'POST', path, { ...(token === undefined ? {} : { token }), json });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        return created.body;
      };

      const guides = await create('/categories', undefined, { name: 'guides' });
      const releases = await create('/categories', undefined, { name: 'releases' });
      const koa = await create('/labels', adminToken, { name: 'koa' });
      const orm = await create('/labels', adminToken, { name: 'mikro-orm' });
      const sql = await create('/labels', adminToken, { name: 'sql' });

      // A many-to-many is written as an array of the tags' keys, in any order.
      const first = await create('/posts', carol.token, {
        title: 'Relations',
        category: guides.id,
        tags: [orm.id, koa.id],
      });
      assert.equal(first.category, guides.id, 'a many-to-one is its key unless included');
      const second = await create('/posts', carol.token, {
        title: 'Release notes',
        category: releases.id,
        tags: [sql.id],
      });
      const third = await create('/posts', dave.token, { title: 'Uncategorised' });

      // Comments: any signed-in user; the author comes from the token, not from the body.
      assert.equal(
        (await call(base, 'POST', '/comments', { json: { body: 'hi', post: first.id } })).status,
        401,
      );
      const c1 = await create('/comments', dave.token, { body: 'Nice', post: first.id, author: carol.id });
      assert.equal(c1.author, dave.id);
      const c2 = await create('/comments', carol.token, { body: 'Thanks', post: first.id });
      await create('/comments', dave.token, { body: 'Noted', post: second.id });

      const plain = await call(base, 'GET', `/posts/${first.id}`, { token: dave.token });
      assert.equal(plain.status, 200);
      assert.equal('tags' in plain.body, false, 'a collection appears only when included');
      assert.equal('comments' in plain.body, false);

      const read = await call(base, 'GET', `/posts/${first.id}?include=category,tags,comments`, {
        token: dave.token,
      });
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual(read.body.category, { id: guides.id, name: 'guides' });
      assert.deepEqual(read.body.tags, [
        { id: koa.id, name: 'koa' },
        { id: orm.id, name: 'mikro-orm' },
      ]);
      assert.deepEqual(
        (read.body.comments as Row[]).map(({ id, body, post, author }) => ({ id, body, post, author })),
        [
          { id: c1.id, body: 'Nice', post: first.id, author: dave.id },
          { id: c2.id, body: 'Thanks', post: first.id, author: carol.id },
        ],
      );

      const ids = `filter[id][$in]=${first.id},${second.id},${third.id}`;
      const page = rows(
        await call(base, 'GET', `/posts?${ids}&sort=id&include=category,tags,comments`, {
          token: carol.token,
        }),
      );
      assert.deepEqual(
        page.map((post) => [
          post.title,
          (post.category as Row | null)?.name ?? null,
          (post.tags as Row[]).map((tag) => tag.name),
          (post.comments as Row[]).map((comment) => comment.body),
        ]),
        [
          ['Relations', 'guides', ['koa', 'mikro-orm'], ['Nice', 'Thanks']],
          ['Release notes', 'releases', ['sql'], ['Noted']],
          ['Uncategorised', null, [], []],
        ],
      );

      // Two steps deep: each comment's author, serialized by the users router (no password hash).
      const deep = rows(
        await call(
          base,
          'GET',
          `/posts?filter[id]=${first.id}&include=comments.author,owner&fields=title,owner.username`,
          { token: dave.token },
        ),
      )[0] as Row;
      const authors = (deep.comments as Row[]).map((comment) => comment.author as Row);
      assert.deepEqual(
        authors.map((author) => author.username),
        ['dave', 'carol'],
      );
      for (const author of authors) assert.equal('hashed_password' in author, false);
      assert.equal((deep.owner as Row).username, 'carol');
      assert.equal('email' in (deep.owner as Row), false, 'fields=owner.username selects the owner’s fields');
      assert.equal('body' in deep, false, 'fields=title selects the post’s fields');
      const one = await call(base, 'GET', `/posts/${first.id}?include=comments.author`, {
        token: dave.token,
      });
      assert.deepEqual(
        (one.body.comments as Row[]).map((comment) => (comment.author as Row).username),
        ['dave', 'carol'],
        'the read route includes two levels too',
      );

      // Filters and sort through a many-to-one.
      const inGuides = rows(
        await call(base, 'GET', `/posts?${ids}&filter[category.name]=guides`, { token: carol.token }),
      );
      assert.deepEqual(
        inGuides.map((post) => post.id),
        [first.id],
      );
      const byCategory = rows(
        await call(
          base,
          'GET',
          `/posts?${ids}&filter[category.name][$in]=guides,releases&sort=-category.name`,
          {
            token: carol.token,
          },
        ),
      );
      assert.deepEqual(
        byCategory.map((post) => post.id),
        [second.id, first.id],
      );
      const ascending = rows(
        await call(base, 'GET', `/posts?filter[id][$in]=${first.id},${second.id}&sort=category.name`, {
          token: carol.token,
        }),
      );
      assert.deepEqual(
        ascending.map((post) => post.id),
        [first.id, second.id],
      );
      assert.equal(
        (await call(base, 'GET', '/posts?filter[owner.hashed_password]=x', { token: carol.token })).status,
        400,
        'hidden fields of a related model are not filterable',
      );
      assert.equal((await call(base, 'GET', '/posts?include=nothing', { token: carol.token })).status, 400);

      // Writes of the tag set: replaced, unchanged when absent, cleared, refused when unknown.
      const replaced = await call(base, 'PUT', `/posts/${first.id}`, {
        token: carol.token,
        json: { tags: [sql.id] },
      });
      assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
      const tagsOf = async (id: unknown): Promise<unknown[]> => {
        const post = await call(base, 'GET', `/posts/${id}?include=tags`, { token: carol.token });
        assert.equal(post.status, 200, JSON.stringify(post.body));
        return (post.body.tags as Row[]).map((tag) => tag.name);
      };
      assert.deepEqual(await tagsOf(first.id), ['sql']);
      assert.equal(
        (
          await call(base, 'PATCH', `/posts/${first.id}`, {
            token: carol.token,
            json: { title: 'Relations, again' },
          })
        ).status,
        200,
      );
      assert.deepEqual(await tagsOf(first.id), ['sql'], 'a body without tags leaves them');
      const unknown = await call(base, 'PUT', `/posts/${first.id}`, {
        token: carol.token,
        json: { tags: [koa.id, 999_999] },
      });
      assert.equal(unknown.status, 422, JSON.stringify(unknown.body));
      assert.deepEqual(errorPaths(unknown.body), ['tags.1']);
      assert.deepEqual(await tagsOf(first.id), ['sql'], 'a refused write changes nothing');
      const duplicate = await call(base, 'POST', '/posts', {
        token: carol.token,
        json: { title: 'x', tags: [koa.id, koa.id] },
      });
      assert.equal(duplicate.status, 422, JSON.stringify(duplicate.body));
      assert.deepEqual(errorPaths(duplicate.body), ['tags.1']);
      assert.equal(
        (await call(base, 'PUT', `/posts/${first.id}`, { token: dave.token, json: { tags: [] } })).status,
        403,
        'only the owner or an admin sets the tags',
      );
      assert.equal(
        (await call(base, 'PUT', `/posts/${first.id}`, { token: carol.token, json: { tags: [] } })).status,
        200,
      );
      assert.deepEqual(await tagsOf(first.id), []);

      // Comments: edited by their author or an admin only; removed with their post.
      assert.equal(
        (await call(base, 'PUT', `/comments/${c1.id}`, { token: carol.token, json: { body: 'x' } })).status,
        403,
      );
      assert.equal(
        (await call(base, 'PUT', `/comments/${c1.id}`, { token: dave.token, json: { body: 'Nicer' } }))
          .status,
        200,
      );
      assert.equal((await call(base, 'DELETE', `/comments/${c2.id}`, { token: adminToken })).status, 204);
      assert.equal((await call(base, 'DELETE', `/posts/${first.id}`, { token: carol.token })).status, 204);
      assert.deepEqual(
        rows(await call(base, 'GET', `/comments?filter[post]=${first.id}`, { token: dave.token })),
        [],
      );
    });

    it('documents the relations in the OpenAPI document', async () => {
      const document = (await (await fetch(`${started.base}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { parameters?: { name: string; schema?: unknown }[] }>>;
        components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
      };
      const include = document.paths['/posts']?.get?.parameters?.find(
        (parameter) => parameter.name === 'include',
      );
      assert.ok(include, 'GET /posts takes include');
      const offered = JSON.stringify(include.schema);
      for (const name of ['owner', 'category', 'tags', 'comments'])
        assert.ok(offered.includes(`"${name}"`), name);
      const tags = document.components.schemas.PostCreate?.properties?.tags as { type?: unknown } | undefined;
      assert.equal(tags?.type, 'array', 'tags are written as an array of keys');
    });

    it('stops on SIGTERM with exit code 0', async () => {
      assert.equal(await started.stop(), 0);
    });
  });
}

describe('example blog configuration', () => {
  it('refuses to start in production without JWT_SECRET', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'kma-blog-'));
    try {
      const child = spawn(process.execPath, [blogMainPath()], {
        cwd: repoRoot(),
        env: {
          ...process.env,
          NODE_ENV: 'production',
          JWT_SECRET: '',
          PORT: '0',
          DATABASE_URL: `sqlite:${join(folder, 'db.sqlite')}`,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 1);
      assert.match(output, /JWT_SECRET must be set/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
