import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Koa from 'koa';
import { problemMiddleware } from '../../../lib/http/problem-middleware.js';
import { routeGroup } from '../../../lib/http/route-group.js';
import type { AppState } from '../../../lib/types.js';
import { serve, type TestServer } from '../../support/http.js';

const silent = { info() {}, warn() {}, error() {} };

describe('routeGroup', () => {
  let server: TestServer;
  before(async () => {
    const koa = new Koa<AppState>();
    koa.use(problemMiddleware(silent));
    koa.use(
      routeGroup('/api', [
        {
          method: 'GET',
          path: '/things',
          handler: async (ctx) => {
            ctx.body = ['list'];
          },
        },
        {
          method: 'GET',
          path: '/things/:id',
          handler: async (ctx, p) => {
            ctx.body = { id: p.id };
          },
        },
        {
          method: 'DELETE',
          path: '/things/:id',
          handler: async (ctx) => {
            ctx.status = 204;
          },
        },
      ]),
    );
    koa.use(async (ctx) => {
      if (ctx.path === '/own') ctx.body = { own: true };
    });
    server = await serve(koa.callback());
  });
  after(() => server.close());

  it('matches static and parameter segments, decoding parameters', async () => {
    assert.deepEqual(await (await server.request('/api/things')).json(), ['list']);
    assert.deepEqual(await (await server.request('/api/things/a%20b')).json(), { id: 'a b' });
    assert.deepEqual(await (await server.request('/api/things/7/')).json(), { id: '7' });
  });

  it('answers 405 with Allow when only the method is wrong', async () => {
    const response = await server.request('/api/things/1', { method: 'PUT' });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'GET, DELETE, HEAD, OPTIONS');
    assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal(((await response.json()) as { code: string }).code, 'method_not_allowed');
  });

  it('passes other paths on to the next middleware and ends unknown ones in a 404 problem', async () => {
    assert.deepEqual(await (await server.request('/own')).json(), { own: true });
    const missing = await server.request('/api/things/1/more');
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { code: string }).code, 'not_found');
    assert.equal((await server.request('/api//things')).status, 404);
  });

  it('answers HEAD like GET without a body, and OPTIONS with Allow', async () => {
    const head = await server.request('/api/things', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const options = await server.request('/api/things', { method: 'OPTIONS' });
    assert.equal(options.status, 204);
    assert.match(options.headers.get('allow') ?? '', /GET/);
  });

  it('treats a malformed percent-encoding as an unknown record', async () => {
    assert.equal((await server.request('/api/things/%E0%A4%A')).status, 404);
  });
});
