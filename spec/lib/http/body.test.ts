/**
 * The JSON body reader's answers to requests that carry no body, sent over a raw socket so that
 * the request is exactly what a client such as `curl -X POST -H 'content-type: application/json'`
 * sends: no Content-Length, no Transfer-Encoding.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import { bodyReader } from '../../../lib/http/body.js';
import { problemMiddleware } from '../../../lib/http/problem-middleware.js';
import type { AppContext, AppState } from '../../../lib/types.js';
import { serve, type TestServer } from '../../support/http.js';

const silent = { info() {}, warn() {}, error() {} };

/** Sends one raw HTTP/1.1 request; the status line's code and the body. */
async function rawRequest(url: string, head: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(`${head}\r\n\r\n`));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
  });
  const [statusLine = '', ...rest] = text.split('\r\n');
  return { status: Number(statusLine.split(' ')[1]), body: rest.join('\r\n').split('\r\n\r\n')[1] ?? '' };
}

/** Serves `{ received: <the body read> }`, after `before` (an app's own middleware) when given. */
async function serveReader(
  read: (ctx: AppContext) => Promise<unknown>,
  before?: Koa.Middleware,
): Promise<TestServer> {
  const koa = new Koa<AppState>();
  koa.use(problemMiddleware(silent));
  if (before !== undefined) koa.use(before);
  koa.use(async (ctx: AppContext) => {
    ctx.body = { received: await read(ctx) };
  });
  return serve(koa.callback());
}

describe('bodyReader: a request without a body', () => {
  let server: TestServer;
  before(async () => {
    server = await serveReader(bodyReader({ limit: 1024 }));
  });
  after(() => server.close());

  for (const [name, type] of [
    ['declared as JSON', 'Content-Type: application/json\r\n'],
    ['declared as JSON with a charset', 'Content-Type: application/json; charset=utf-8\r\n'],
    ['with no Content-Type', ''],
    ['declared as JSON in capitals', 'Content-Type: Application/JSON\r\n'],
  ] as const) {
    it(`${name}: 422, a JSON object body is required (not 415)`, async () => {
      const answer = await rawRequest(
        server.url,
        `POST / HTTP/1.1\r\nHost: localhost\r\n${type}Connection: close`,
      );
      assert.equal(answer.status, 422, answer.body);
      assert.match(answer.body, /a JSON object body is required/);
    });
  }

  it('declared as another type: 415', async () => {
    const answer = await rawRequest(
      server.url,
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nConnection: close',
    );
    assert.equal(answer.status, 415, answer.body);
  });

  it('an empty body (Content-Length: 0) declared as JSON is an empty object, as before', async () => {
    const answer = await rawRequest(
      server.url,
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 0\r\nConnection: close',
    );
    assert.equal(answer.status, 200, answer.body);
    assert.deepEqual(JSON.parse(answer.body), { received: {} });
  });
});

describe('bodyReader: the bytes of a JSON body', () => {
  let server: TestServer;
  before(async () => {
    server = await serveReader(bodyReader({ limit: 1024 }));
  });
  after(() => server.close());

  /** Posts `bytes` as `application/json`. */
  const post = (bytes: Uint8Array) =>
    fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });

  it('refuses bytes that are not UTF-8 (a 400), never storing U+FFFD in their place', async () => {
    for (const bad of [[0xff, 0xfe], [0xc3], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
      const body = Buffer.concat([Buffer.from('{"title":"'), Buffer.from(bad), Buffer.from('"}')]);
      const answer = await post(body);
      const text = await answer.text();
      assert.equal(answer.status, 400, `${bad}: ${text}`);
      assert.match(text, /UTF-8/);
    }
  });

  it('reads UTF-8 text as sent: accents, emoji, U+FFFD itself and a leading byte-order mark', async () => {
    const json = '{"title":"Zoë 🎉 \uFFFD ĳ"}';
    for (const bytes of [
      Buffer.from(json),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)]),
    ]) {
      const answer = await post(bytes);
      assert.equal(answer.status, 200);
      assert.deepEqual(await answer.json(), { received: { title: 'Zoë 🎉 \uFFFD ĳ' } });
    }
  });

  it('refuses a body nested deeper than 128 levels (a 422 naming the top-level field), reads one of 128', async () => {
    const nested = (arrays: number) => `{"a":${'['.repeat(arrays)}${']'.repeat(arrays)}}`;
    const fits = await post(Buffer.from(nested(127)));
    assert.equal(fits.status, 200);
    const deep = await post(Buffer.from(nested(128)));
    assert.equal(deep.status, 422);
    const problem = (await deep.json()) as { errors: { path: string; message: string }[] };
    assert.deepEqual(problem.errors, [{ path: 'a', message: 'must not be nested deeper than 128 levels' }]);
  });

  it('answers 400 malformed_json for text that is not JSON, and hands a JSON scalar on for the route to refuse', async () => {
    for (const text of ['{"a":', 'nope', '"unclosed', '[1,]']) {
      const answer = await post(Buffer.from(text));
      assert.equal(answer.status, 400, text);
      assert.match(await answer.text(), /not valid JSON/, text);
    }
    // Valid JSON of the wrong shape: the route's own check answers (a 422 "must be a JSON object").
    for (const [text, value] of [
      ['null', null],
      ['"text"', 'text'],
      ['42', 42],
      ['true', true],
    ] as const) {
      const answer = await post(Buffer.from(text));
      assert.equal(answer.status, 200, text);
      assert.deepEqual(await answer.json(), { received: value }, text);
    }
  });

  it('names a refused __proto__ key, in valid JSON, as the reason of its 400', async () => {
    for (const text of ['{"__proto__":{"x":1}}', '{"j":{"__proto__":{"admin":true}}}']) {
      const answer = await post(Buffer.from(text));
      assert.equal(answer.status, 400, text);
      assert.match(((await answer.json()) as { detail: string }).detail, /"__proto__" key/, text);
    }
  });
});

describe('bodyReader: form bodies and an app parser that ran first', () => {
  let server: TestServer;
  before(async () => {
    // The app's own parser, for forms only: it leaves `{}` for a JSON body it does not read.
    const read = bodyReader({ limit: 1024 * 1024, form: true });
    server = await serveReader(read, async (ctx, next) => {
      if (ctx.path === '/app-form-parser') return formsOnly(ctx, next);
      if (ctx.path.startsWith('/app-deep-parser/')) {
        // An app parser that read the body already: a deep value sharing one object twice, a deep
        // object reached first where it sits shallow, or a value that holds itself.
        let shared: unknown = {};
        for (let level = 0; level < 200; level++) shared = { a: shared, b: shared };
        let inner: Record<string, unknown> = {};
        for (let level = 0; level < 100; level++) inner = { x: inner };
        let chain: unknown = inner;
        for (let level = 0; level < 60; level++) chain = { y: chain };
        const loop: Record<string, unknown> = {};
        loop.self = loop;
        const bodies: Record<string, unknown> = {
          shared: { deep: shared },
          // The walk takes the last entry first: `early` (shallow) before `late` (60 levels down).
          'shallow-first': { deep: { late: chain, early: inner } },
          loop: { deep: loop },
        };
        Object.assign(ctx.request, { body: bodies[ctx.path.split('/')[2] ?? ''], rawBody: '{}' });
        return next();
      }
      if (ctx.path !== '/parser-off') return next();
      ctx.disableBodyParser = true;
      const received = await read(ctx as unknown as AppContext);
      ctx.body = { received, raw: (ctx.request as { rawBody?: string }).rawBody };
    });
  });
  after(() => server.close());

  const formsOnly = bodyParser({ enableTypes: ['form'] }) as unknown as Koa.Middleware;
  const post = (path: string, type: string, bytes: Uint8Array) =>
    fetch(server.url + path, { method: 'POST', headers: { 'content-type': type }, body: bytes });
  const form = 'application/x-www-form-urlencoded';

  it("checks an app parser's result for nesting too: shared objects, one reached shallow first, a loop", async () => {
    for (const kind of ['shared', 'shallow-first', 'loop']) {
      const answer = await post(`/app-deep-parser/${kind}`, 'application/json', Buffer.from('{}'));
      assert.equal(answer.status, 422, kind);
      assert.deepEqual(
        ((await answer.json()) as { errors: { path: string }[] }).errors[0]?.path,
        'deep',
        kind,
      );
    }
  });

  it('reads a form strictly: repeated names as arrays, + as a space, __proto__ dropped', async () => {
    const answer = await post(
      '/',
      form,
      Buffer.from('username=ann+b&scope=a&scope=b&__proto__=x&caf%C3%A9=1'),
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { received: { username: 'ann b', scope: ['a', 'b'], café: '1' } });
  });

  it('refuses a form whose bytes or percent-escapes are not UTF-8 (400), never storing U+FFFD', async () => {
    for (const bytes of [
      Buffer.concat([Buffer.from('username=u'), Buffer.from([0xff])]),
      Buffer.from('username=u%FF'),
      Buffer.from('username=%E2%82'),
    ]) {
      const answer = await post('/', form, bytes);
      assert.equal(answer.status, 400, await answer.text());
    }
  });

  it('refuses a form of more than 1,000 fields at once (400), however often a name repeats', async () => {
    const started = Date.now();
    const answer = await post('/', form, Buffer.from('a&'.repeat(400_000)));
    assert.equal(answer.status, 400, await answer.text());
    assert.ok(Date.now() - started < 2_000, 'answered without walking every field');
    const kept = await post('/', form, Buffer.from('scope=x&'.repeat(999)));
    assert.equal(((await kept.json()) as { received: { scope: string[] } }).received.scope.length, 999);
  });

  it('reads the body though an app switched its parser off (disableBodyParser), and keeps the sent text as rawBody', async () => {
    const answer = await post('/parser-off', 'application/json', Buffer.from('{"name":"é"}'));
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { received: { name: 'é' }, raw: '{"name":"é"}' });
  });

  it("reads a JSON body an app's own parser skipped (it left {} for a type it does not read)", async () => {
    const answer = await post('/app-form-parser', 'application/json', Buffer.from('{"name":"changed"}'));
    assert.equal(answer.status, 200);
    assert.deepEqual(await answer.json(), { received: { name: 'changed' } });
    const viaForm = await post('/app-form-parser', form, Buffer.from('name=kept'));
    assert.deepEqual(await viaForm.json(), { received: { name: 'kept' } });
  });
});
