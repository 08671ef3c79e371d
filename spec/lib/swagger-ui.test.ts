import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import Koa, { type Middleware } from 'koa';
import { chromium } from 'playwright-core';
import { ConfigurationError } from '../../lib/errors.js';
import { OpenApiRegistry } from '../../lib/openapi/registry.js';
import { SWAGGER_ASSET_NAMES, SwaggerAssets } from '../../lib/openapi/swagger-assets.js';
import { add_swagger_ui, addSwaggerUi, referencedUrls, type SwaggerHost } from '../../lib/swagger-ui.js';
import { crudDoc, PASSWORD_SCHEME, personDescription, SCHEME } from './openapi/fixtures.js';

const distDir = new URL(
  './',
  pathToFileURL(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json')),
);
const distVersion = (
  JSON.parse(readFileSync(new URL('package.json', distDir), 'utf8')) as { version: string }
).version;

/** A Koa app with the smallest `mount` a host can have: first path segment → middleware. */
function makeHost(): { koa: Koa; host: SwaggerHost } {
  const koa = new Koa();
  const mounts = new Map<string, Middleware>();
  koa.use(async (ctx, next) => {
    const middleware = mounts.get(ctx.path.split('/')[1] ?? '');
    if (middleware === undefined) return next();
    return middleware(ctx, next);
  });
  return {
    koa,
    host: { mount: (segment, middleware) => mounts.set(segment, middleware), openapiPath: '/openapi.json' },
  };
}

async function listen(koa: Koa): Promise<{ url: string; close: () => Promise<void> }> {
  const server = koa.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Status of a GET with `If-None-Match` (fetch would add `Cache-Control: no-cache`, which forbids a 304). */
function conditionalStatus(url: string, etag: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { 'If-None-Match': etag } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    }).on('error', reject);
  });
}

describe('add_swagger_ui', () => {
  let base = '';
  let close: () => Promise<void> = async () => {};

  before(async () => {
    const { koa, host } = makeHost();
    add_swagger_ui({ ...host, title: 'Blog <API>' });
    ({ url: base, close } = await listen(koa));
  });
  after(() => close());

  it('serves an HTML page that loads the OpenAPI document with persisted authorization', async () => {
    const response = await fetch(`${base}/docs`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
    const html = await response.text();
    assert.match(html, /<title>Blog &lt;API&gt;<\/title>/);
    assert.match(html, /"url":"\/openapi\.json"/);
    assert.match(html, /"persistAuthorization":true/);
    assert.match(html, /"validatorUrl":null/);
    assert.equal((await fetch(`${base}/docs/`)).status, 200);
  });

  it('references only same-origin URLs and nothing from a CDN or Google Fonts', async () => {
    const html = await (await fetch(`${base}/docs`)).text();
    assert.equal(html.includes('fonts.googleapis'), false);
    assert.equal(html.includes('cdnjs'), false);
    // The only absolute URLs left are the inline SVG's XML namespace names, which nothing fetches.
    const absolute = [...html.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^\s"'<>]*/gi)].map(
      (m) => m[0],
    );
    assert.ok(absolute.length > 0, 'the namespace names are found, so the pattern works');
    for (const url of absolute) assert.match(url, /^http:\/\/www\.w3\.org\/(2000\/svg|1999\/xlink)$/, url);
    const urls = referencedUrls(html);
    assert.ok(urls.length >= 3, `the page references its assets: ${urls.join(', ')}`);
    for (const url of urls) assert.match(url, /^\/docs\//, url);
  });

  it('serves every referenced asset, byte for byte, with a media type and a long cache', async () => {
    const html = await (await fetch(`${base}/docs`)).text();
    const expectedTypes: Record<string, RegExp> = {
      js: /^text\/javascript/,
      css: /^text\/css/,
      png: /^image\/png$/,
    };
    for (const url of referencedUrls(html)) {
      const response = await fetch(base + url);
      assert.equal(response.status, 200, url);
      const extension = url.split('.').pop() ?? '';
      assert.match(response.headers.get('content-type') ?? '', expectedTypes[extension] ?? /^$/, url);
      assert.equal(response.headers.get('cache-control'), 'public, max-age=31536000, immutable', url);
      assert.ok(url.startsWith(`/docs/${distVersion}/`), url);
      const file = url.split('/').pop()?.replace('.min.css', '.css') ?? '';
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(readFileSync(new URL(file, distDir))), url);
    }
  });

  it('serves the OAuth2 redirect page and its script next to the page', async () => {
    const page = await fetch(`${base}/docs/oauth2-redirect.html`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /oauth2-redirect\.js/);
    const script = await fetch(`${base}/docs/oauth2-redirect.js`);
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('cache-control'), 'no-cache');
  });

  it('answers 304 to a revalidation with the current ETag', async () => {
    for (const path of ['/docs/swagger-ui.css', '/docs', `/docs/${distVersion}/swagger-ui-bundle.js`]) {
      const etag = (await fetch(base + path)).headers.get('etag');
      assert.ok(etag, path);
      assert.equal(await conditionalStatus(base + path, etag), 304, path);
      assert.equal(await conditionalStatus(base + path, '"stale"'), 200, path);
    }
  });

  it('sends a Content-Security-Policy that allows exactly the inline script', async () => {
    const response = await fetch(`${base}/docs`);
    const csp = response.headers.get('content-security-policy') ?? '';
    const html = await response.text();
    const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    assert.equal(inline.length, 1);
    const hash = createHash('sha256')
      .update(inline[0] ?? '')
      .digest('base64');
    assert.ok(csp.includes(`script-src 'self' 'sha256-${hash}'`), csp);
    assert.ok(csp.includes("connect-src 'self'"), csp);
    assert.equal(csp.includes('unsafe-eval'), false);
  });

  it('answers 404 for any file that is not on the allow-list', async () => {
    for (const path of [
      '/docs/nope.js',
      '/docs/package.json',
      '/docs/index.html',
      '/docs/swagger-ui-bundle.js.map',
      '/docs/%2e%2e%2fpackage.json',
      '/docs/..%2f..%2fpackage.json',
      '/docs/0.0.0/swagger-ui.css',
      `/docs/${distVersion}/${distVersion}/swagger-ui.css`,
      '/docs/__proto__',
      '/docs/hasOwnProperty',
      '/docs/constructor',
      '/docs//swagger-ui.css',
    ]) {
      const response = await fetch(base + path);
      assert.equal(response.status, 404, path);
      await response.arrayBuffer();
    }
  });

  it('answers HEAD, OPTIONS (204 with Allow), and refuses other methods with 405 and Allow', async () => {
    const head = await fetch(`${base}/docs/swagger-ui-bundle.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.match(head.headers.get('content-type') ?? '', /^text\/javascript/);
    for (const path of ['/docs', '/docs/swagger-ui-bundle.js']) {
      const options = await fetch(`${base}${path}`, { method: 'OPTIONS' });
      assert.equal(options.status, 204, path);
      assert.equal(options.headers.get('allow'), 'GET, HEAD, OPTIONS', path);
    }
    const post = await fetch(`${base}/docs`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS');
  });

  it('leaves other paths to the application', async () => {
    const response = await fetch(`${base}/docsx`);
    assert.equal(response.status, 404);
    assert.equal((await fetch(`${base}/openapi.json`)).status, 404, 'the test host serves no document');
  });
});

describe('add_swagger_ui options', () => {
  it('serves the page at another path, and nothing at /docs', async () => {
    const { koa, host } = makeHost();
    addSwaggerUi(host, { path: '/api-docs/' });
    const { url, close } = await listen(koa);
    try {
      const page = await fetch(`${url}/api-docs`);
      assert.equal(page.status, 200);
      const html = await page.text();
      for (const asset of referencedUrls(html)) {
        assert.ok(asset.startsWith('/api-docs/'), asset);
        assert.equal((await fetch(url + asset)).status, 200, asset);
      }
      assert.equal((await fetch(`${url}/docs`)).status, 404);
    } finally {
      await close();
    }
  });

  it('refuses a path that is not one segment', () => {
    const { host } = makeHost();
    for (const path of ['/', '/a/b', '/..', '/docs?x']) {
      assert.throws(() => add_swagger_ui(host, { path }), ConfigurationError, path);
    }
  });

  it('reads each asset once', async () => {
    const assets = new SwaggerAssets();
    assert.equal(assets.version, distVersion);
    for (const name of SWAGGER_ASSET_NAMES) {
      const first = assets.get(name);
      assert.ok(first, name);
      assert.equal(assets.get(name), first, name);
      assert.ok((await first).body.length > 0, name);
    }
    assert.equal(assets.get('../package.json'), undefined);
    assert.equal(assets.get('toString'), undefined);
  });
});

/** A Chromium to drive: `CHROMIUM_PATH`, or the Debian package's binary. */
function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path) => path !== undefined && path !== '' && existsSync(path));
}

const browserPath = chromiumPath();

describe('Swagger UI in a browser', {
  // Under CI a missing browser fails the run (the launch throws) instead of skipping.
  skip:
    browserPath === undefined && process.env.CI !== 'true'
      ? 'no Chromium installed (set CHROMIUM_PATH)'
      : false,
}, () => {
  it('loads offline, logs in with the password flow, sends the token and keeps it after a reload', async () => {
    const registry = new OpenApiRegistry({ title: 'Browser check' });
    registry.addSecurityScheme(SCHEME, PASSWORD_SCHEME);
    registry.addCrud(crudDoc(personDescription(), { secure: true, securityScheme: SCHEME }));
    const { koa, host } = makeHost();
    const calls: string[] = [];
    koa.use(async (ctx, next) => {
      if (ctx.path === '/openapi.json') {
        ctx.type = 'application/json';
        ctx.body = registry.json();
      } else if (ctx.path === '/login' && ctx.method === 'POST') {
        calls.push(`login ${ctx.get('content-type')}`);
        ctx.body = { access_token: 'token-123', token_type: 'bearer', expires_in: 3600 };
      } else if (ctx.path === '/people') {
        calls.push(`${ctx.url} ${ctx.get('authorization')}`);
        ctx.body = [];
      } else {
        await next();
      }
    });
    add_swagger_ui(host);
    // The browser first: when it cannot start, no server is left open to hold the run.
    const browser = await chromium.launch({
      executablePath: browserPath,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    const { url, close } = await listen(koa).catch(async (error: unknown) => {
      await browser.close();
      throw error;
    });
    try {
      const page = await browser.newPage();
      const outside: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => {
        if (!request.url().startsWith(url) && !request.url().startsWith('data:')) outside.push(request.url());
      });
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      page.on('pageerror', (error) => problems.push(error.message));

      await page.goto(`${url}/docs`);
      await page.waitForSelector('#operations-people-listPeople', { timeout: 20_000 });
      await page.click('button.authorize');
      await page.fill('input#oauth_username', 'ada');
      await page.fill('input#oauth_password', 'correct horse');
      await page.click('.auth-btn-wrapper button.authorize');
      await page.waitForSelector('text=Logout', { timeout: 10_000 });
      await page.click('.btn-done');
      await page.click('#operations-people-listPeople .opblock-summary');
      await page.click('#operations-people-listPeople button.try-out__btn');
      await page.click('#operations-people-listPeople button.execute');
      await page.waitForSelector('#operations-people-listPeople .live-responses-table', { timeout: 10_000 });
      await page.reload();
      await page.waitForSelector('#operations-people-listPeople', { timeout: 20_000 });
      const kept = await page.evaluate<string | null>('window.localStorage.getItem("authorized")');

      assert.deepEqual(outside, [], 'no request leaves the origin');
      assert.deepEqual(problems, [], 'no script error and no CSP violation');
      assert.deepEqual(calls, [
        'login application/x-www-form-urlencoded',
        '/people?limit=100&offset=0&count=true Bearer token-123',
      ]);
      assert.match(kept ?? '', /token-123/, 'the authorization survives a reload');
    } finally {
      await browser.close();
      await close();
    }
  });
});
