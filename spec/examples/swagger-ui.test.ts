/**
 * Swagger UI of the example application in a real browser (Debian's Chromium driven by
 * playwright-core): every operation is listed, Authorize logs in with the OAuth2 password flow
 * against `/login`, "Try it out" on `GET /posts` shows the record created over HTTP, a request
 * without authorization shows 401, and the page never asks another origin for anything.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { type BlogProcess, startBlog } from '../support/blog-process.js';
import { repoRoot } from '../support/paths.js';

/** Debian's Chromium (or `CHROMIUM_PATH`); never a browser downloaded by Playwright. */
const browserPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const browserArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
/** Under CI a browser that cannot start fails the run; elsewhere a missing one skips with a reason. */
const skip =
  process.env.CI !== 'true' && !existsSync(browserPath)
    ? `no Chromium at ${browserPath} (install the chromium package or set CHROMIUM_PATH)`
    : false;

const WAIT_MS = 30_000;
const ADMIN = { username: 'docs_admin', password: 'admin password 123', email: 'docs-admin@example.com' };
const READER = { username: 'reader', password: 'reader password 1', email: 'reader@example.com' };
const POST_TITLE = 'Seen through Swagger UI';
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const SCREENSHOT = join(repoRoot(), 'docs', 'images', 'swagger-ui.png');

interface OpenApiOperation {
  readonly operationId?: string;
  readonly tags?: readonly string[];
}

/**
 * An operation as a reader sees it, `<tag> <METHOD> <path> #<DOM id>`; Swagger UI names each
 * operation block `operations-<first tag>-<operationId>`.
 */
function listed(tag: string, method: string, path: string, id: string): string {
  return `${tag} ${method.toUpperCase()} ${path} #${id}`;
}

/** Every operation of an OpenAPI document, as `listed` spells it. */
function documentOperations(paths: Record<string, Record<string, OpenApiOperation>>): string[] {
  return Object.entries(paths).flatMap(([path, item]) =>
    // A path item also holds `parameters` (shared by its operations): only HTTP methods are operations.
    Object.entries(item).flatMap(([method, operation]) => {
      if (!HTTP_METHODS.has(method)) return [];
      const tag = operation.tags?.[0] ?? 'default';
      return [listed(tag, method, path, `operations-${tag}-${operation.operationId}`)];
    }),
  );
}

/** POSTs a JSON body (with a bearer token when given) and returns the status and parsed answer. */
async function json(
  base: string,
  path: string,
  init: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`;
  const response = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(init.body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Opens `/docs` in a page of `context` and waits until the operations are rendered. */
async function openDocs(context: BrowserContext, base: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${base}/docs`);
  await page.waitForSelector('#operations-posts-listPosts', { timeout: WAIT_MS });
  return page;
}

/** Expands `GET /posts` if needed, presses "Try it out" unless already on, and presses Execute. */
async function executeListPosts(page: Page): Promise<void> {
  const block = page.locator('#operations-posts-listPosts');
  if (!(await block.locator('.opblock-body').isVisible()))
    await block.locator('.opblock-summary-control').click();
  const tryOut = block.locator('button.try-out__btn');
  if ((await tryOut.textContent())?.includes('Try it out')) await tryOut.click();
  await block.locator('button.execute').click();
}

/** The status and body text of the live response panel, once it shows `status`. */
async function liveResponse(page: Page, status: number): Promise<{ status: string; body: string }> {
  const table = page.locator('#operations-posts-listPosts .live-responses-table');
  const cell = table.locator('.response .response-col_status', { hasText: String(status) });
  await cell.waitFor({ timeout: WAIT_MS });
  return {
    status: ((await cell.textContent()) ?? '').trim(),
    body: (await table.locator('.response .response-col_description').first().textContent()) ?? '',
  };
}

describe('Swagger UI of the example application in Chromium', { skip }, () => {
  let folder = '';
  let blog: BlogProcess | undefined;
  let browser: Browser | undefined;
  let base = '';
  let postId: unknown;
  let operations: string[] = [];
  /** Every URL any page asked for, and every uncaught script error. */
  const requested: string[] = [];
  const scriptErrors: string[] = [];

  /** A fresh browser context (its own storage, so no persisted authorization) that records requests. */
  async function freshContext(): Promise<BrowserContext> {
    assert.ok(browser, 'the browser started');
    const context = await browser.newContext({ viewport: { width: 1280, height: 1600 } });
    context.on('request', (request) => requested.push(request.url()));
    context.on('weberror', (error) => scriptErrors.push(error.error().message));
    return context;
  }

  before(async () => {
    folder = mkdtempSync(join(tmpdir(), 'kma-swagger-'));
    // The browser and the example start together (each takes a second or two); whichever starts is
    // kept so `after` stops it even when the other fails, or a leftover process would hold the run open.
    const [started, launched] = await Promise.allSettled([
      startBlog({
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: `sqlite:${join(folder, 'blog.sqlite')}`,
        JWT_SECRET: 'a swagger ui test secret of at least thirty-two bytes',
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
        ADMIN_EMAIL: ADMIN.email,
        NODE_ENV: 'test',
      }),
      chromium.launch({ executablePath: browserPath, args: browserArgs, timeout: WAIT_MS }),
    ]);
    if (started.status === 'fulfilled') blog = started.value;
    if (launched.status === 'fulfilled') browser = launched.value;
    if (started.status === 'rejected') throw started.reason;
    if (launched.status === 'rejected') throw launched.reason;
    assert.ok(blog);
    base = blog.base;

    const registered = await json(base, '/register', { body: READER });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const login = await json(base, '/login', {
      body: { username: READER.username, password: READER.password },
    });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const post = await json(base, '/posts', {
      token: String(login.body.access_token),
      body: { title: POST_TITLE },
    });
    assert.equal(post.status, 201, JSON.stringify(post.body));
    postId = post.body.id;

    const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, OpenApiOperation>>;
    };
    operations = documentOperations(document.paths);
  });

  after(async () => {
    await browser?.close();
    await blog?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('lists every operation of every resource', async () => {
    // The document must hold what the example registers, or comparing the page with it proves little.
    for (const expected of [
      'users GET /users #operations-users-listUsers',
      'users POST /users #operations-users-createUser',
      'users DELETE /users/{id} #operations-users-deleteUser',
      'posts GET /posts #operations-posts-listPosts',
      'posts POST /posts #operations-posts-createPost',
      'posts GET /posts/{id} #operations-posts-getPost',
      'posts PUT /posts/{id} #operations-posts-updatePost',
      'posts PATCH /posts/{id} #operations-posts-patchPost',
      'posts DELETE /posts/{id} #operations-posts-deletePost',
      'categories GET /categories #operations-categories-listCategories',
      'categories POST /categories #operations-categories-createCategory',
      'labels GET /labels #operations-labels-listLabels',
      'labels POST /labels #operations-labels-createTag',
      'comments GET /comments #operations-comments-listComments',
      'comments POST /comments #operations-comments-createComment',
      'auth POST /register #operations-auth-register',
      'auth POST /login #operations-auth-login',
      'auth POST /admin/{id}/make-admin #operations-auth-makeAdmin',
    ]) {
      assert.ok(operations.includes(expected), `${expected} is in /openapi.json:\n${operations.join('\n')}`);
    }
    assert.equal(
      operations.length,
      5 * 6 + 13,
      'six CRUD operations for each of five resources, thirteen of the auth plugin (register, login, change-password, refresh, logout, logout-all, make-admin, set a password, revoke sessions, forgot-password, reset-password, verify-email and its request)',
    );

    const context = await freshContext();
    try {
      const page = await openDocs(context, base);
      // What the page shows: each block's method badge and path, under the heading of its section.
      const shown = await page.locator('.opblock[id^="operations-"]').evaluateAll((blocks) =>
        blocks.map((block) => ({
          id: block.id,
          tag:
            block
              .closest('.opblock-tag-section')
              ?.querySelector('h3.opblock-tag')
              ?.getAttribute('data-tag') ?? '',
          method: block.querySelector('.opblock-summary-method')?.textContent ?? '',
          path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
        })),
      );
      const rendered = shown.map((block) => listed(block.tag, block.method, block.path, block.id));
      assert.deepEqual(
        [...rendered].sort(),
        [...operations].sort(),
        'one block per operation, in its section, no more',
      );
      if (process.env.UPDATE_SCREENSHOT === '1' || !existsSync(SCREENSHOT)) {
        mkdirSync(dirname(SCREENSHOT), { recursive: true });
        // Down to the last operation: the collapsed schema list below it would only make the image taller.
        const operationsEnd = await page.locator('.opblock-tag-section').last().boundingBox();
        assert.ok(operationsEnd, 'the last section has a box');
        const height = Math.ceil(operationsEnd.y + operationsEnd.height + 24);
        writeFileSync(
          SCREENSHOT,
          await page.screenshot({ fullPage: true, clip: { x: 0, y: 0, width: 1280, height } }),
        );
      }
    } finally {
      await context.close();
    }
  });

  it('logs in through Authorize with the password flow, then "Try it out" on GET /posts shows 200 and the post', async (t) => {
    const context = await freshContext();
    try {
      const page = await openDocs(context, base);
      await page.locator('.auth-wrapper button.authorize').click();
      const dialog = page.locator('.dialog-ux');
      await dialog.locator('input#oauth_username').fill(READER.username);
      await dialog.locator('input#oauth_password').fill(READER.password);
      const loginRequest = page.waitForRequest((request) => request.url() === `${base}/login`, {
        timeout: WAIT_MS,
      });
      await dialog.locator('.auth-btn-wrapper button.authorize').click();
      const sent = await loginRequest;
      const answered = await sent.response();
      assert.equal(answered?.status(), 200, `POST /login from the dialog: ${await answered?.text()}`);
      assert.match(sent.headers()['content-type'] ?? '', /^application\/x-www-form-urlencoded/);
      const form = new URLSearchParams(sent.postData() ?? '');
      assert.equal(form.get('grant_type'), 'password');
      assert.equal(form.get('username'), READER.username);
      // Swagger UI sends the empty client credentials as `Basic Og==` (":"); /login must not mind.
      t.diagnostic(`the dialog sent Authorization: ${sent.headers().authorization ?? '(none)'}`);
      // Once authorized the dialog's Authorize button turns into "Logout" (labelled "Remove authorization").
      const logout = dialog.locator('.auth-btn-wrapper button', { hasText: 'Logout' });
      await logout.waitFor({ timeout: WAIT_MS });
      await dialog.locator('button.btn-done').click();

      const listRequest = page.waitForRequest(
        (request) => request.url().startsWith(`${base}/posts?`) || request.url() === `${base}/posts`,
        { timeout: WAIT_MS },
      );
      await executeListPosts(page);
      assert.match(
        (await listRequest).headers().authorization ?? '',
        /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/,
        'the token is sent',
      );
      const shown = await liveResponse(page, 200);
      assert.equal(shown.status, '200');
      assert.match(shown.body, new RegExp(`"title":\\s*"${POST_TITLE}"`));
      assert.match(shown.body, new RegExp(`"id":\\s*${String(postId)}\\b`));

      // Logging out in the same page takes the token away again.
      await page.locator('.auth-wrapper button.authorize').click();
      await logout.click();
      await dialog.locator('button.close-modal').click();
      const unauthorized = page.waitForRequest((request) => request.url().startsWith(`${base}/posts`), {
        timeout: WAIT_MS,
      });
      await executeListPosts(page);
      assert.equal((await unauthorized).headers().authorization, undefined, 'no token after Logout');
      assert.equal((await liveResponse(page, 401)).status, '401');
    } finally {
      await context.close();
    }
  });

  it('shows 401 for "Try it out" on GET /posts without authorization', async () => {
    const context = await freshContext();
    try {
      const page = await openDocs(context, base);
      const listRequest = page.waitForRequest((request) => request.url().startsWith(`${base}/posts`), {
        timeout: WAIT_MS,
      });
      await executeListPosts(page);
      assert.equal((await listRequest).headers().authorization, undefined, 'no token in a fresh context');
      const shown = await liveResponse(page, 401);
      assert.equal(shown.status, '401');
      assert.match(shown.body, /"status":\s*401/, 'the problem details are shown');
      assert.doesNotMatch(shown.body, new RegExp(POST_TITLE));
    } finally {
      await context.close();
    }
  });

  it('made no request outside the application and raised no script error', () => {
    assert.ok(requested.length > 5, `the pages were recorded: ${requested.join(', ')}`);
    const origin = new URL(base).origin;
    const outside = requested.filter(
      (url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).origin !== origin,
    );
    assert.deepEqual(outside, [], 'every request stays on the application origin');
    assert.deepEqual(scriptErrors, []);
  });
});
