/**
 * The example application, started the way `npm start` starts it (a separate Node process running
 * dist/examples/blog/main.js), walked through a user story over HTTP, then stopped with SIGTERM.
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
      for (const path of ['/users', '/posts/{id}', '/categories', '/labels', '/register', '/login']) {
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
