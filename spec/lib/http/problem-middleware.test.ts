/**
 * The error boundary's log: a 503's cause (a database down, a pooler refusing transactions) is
 * logged once a minute for each kind of 503 as a warning, so that an operator learns why clients
 * are told to retry; other 5xx are logged each time; the client never sees the cause.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Koa from 'koa';
import { ApiError } from '../../../lib/errors.js';
import { type Logger, problemMiddleware } from '../../../lib/http/problem-middleware.js';
import { serve } from '../../support/http.js';

function recordingLogger(): Logger & { warnings: string[]; errors: unknown[] } {
  const warnings: string[] = [];
  const errors: unknown[] = [];
  return {
    warnings,
    errors,
    info: () => {},
    warn: (message) => warnings.push(message),
    error: (_m, e) => errors.push(e),
  };
}

describe('problemMiddleware: what it logs', () => {
  it('logs the cause of a 503 once a minute, and never sends it', async () => {
    const logger = recordingLogger();
    const koa = new Koa();
    koa.use(problemMiddleware(logger));
    koa.use(() => {
      throw ApiError.unavailable(new Error('transaction blocks not allowed in statement pooling mode'));
    });
    const server = await serve(koa.callback());
    try {
      for (let n = 0; n < 3; n++) {
        const answer = await server.request('/');
        assert.equal(answer.status, 503);
        assert.doesNotMatch(await answer.text(), /statement pooling/);
      }
    } finally {
      await server.close();
    }
    assert.equal(logger.warnings.length, 1, JSON.stringify(logger.warnings));
    assert.match(logger.warnings[0] ?? '', /statement pooling mode/);
    assert.equal(logger.errors.length, 0);
  });

  it('logs each kind of 503 once a minute: one cause does not hide another', async () => {
    const logger = recordingLogger();
    const koa = new Koa();
    koa.use(problemMiddleware(logger));
    koa.use((ctx) => {
      if (ctx.path === '/hash') throw ApiError.unavailable(new Error('queue full'), 1, 'Password checking');
      throw ApiError.unavailable(new Error('transaction blocks not allowed in statement pooling mode'));
    });
    const server = await serve(koa.callback());
    try {
      for (const path of ['/hash', '/hash', '/db', '/hash', '/db'])
        assert.equal((await server.request(path)).status, 503);
    } finally {
      await server.close();
    }
    assert.equal(logger.warnings.length, 2, JSON.stringify(logger.warnings));
    assert.match(logger.warnings[0] ?? '', /queue full/);
    assert.match(logger.warnings[1] ?? '', /statement pooling mode/);
  });

  it('past the catalogue’s few kinds, 503s worded each their own way share one limit', async () => {
    const logger = recordingLogger();
    const koa = new Koa();
    koa.use(problemMiddleware(logger));
    let n = 0;
    koa.use(() => {
      n += 1;
      throw new ApiError('service_unavailable', `The quota service is busy (request ${n}).`);
    });
    const server = await serve(koa.callback());
    try {
      for (let i = 0; i < 100; i++) assert.equal((await server.request('/')).status, 503);
    } finally {
      await server.close();
    }
    assert.equal(logger.warnings.length, 65, 'the first 64 kinds, then one line for the rest');
  });

  it('logs every other 5xx as an error', async () => {
    const logger = recordingLogger();
    const koa = new Koa();
    koa.use(problemMiddleware(logger));
    koa.use(() => {
      throw new Error('boom');
    });
    const server = await serve(koa.callback());
    try {
      for (let n = 0; n < 2; n++) assert.equal((await server.request('/')).status, 500);
    } finally {
      await server.close();
    }
    assert.equal(logger.errors.length, 2);
  });

  it('answers a body JSON cannot hold with a logged problem+json 500, not a bare text one', async () => {
    const logger = recordingLogger();
    const koa = new Koa();
    koa.silent = true;
    koa.use(problemMiddleware(logger));
    koa.use((ctx) => {
      ctx.status = 201;
      ctx.body = { id: 10n, title: 'a' };
    });
    const server = await serve(koa.callback());
    try {
      const answer = await server.request('/');
      assert.equal(answer.status, 500);
      assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      const problem = (await answer.json()) as Record<string, unknown>;
      assert.equal(problem.code, 'internal_error');
      assert.doesNotMatch(JSON.stringify(problem), /BigInt/);
    } finally {
      await server.close();
    }
    assert.equal(logger.errors.length, 1);
    assert.match(String(logger.errors[0]), /BigInt/);
  });

  it('sends JSON bodies as Koa does: type, length and status kept', async () => {
    const koa = new Koa();
    koa.use(problemMiddleware(recordingLogger()));
    koa.use((ctx) => {
      ctx.status = 201;
      ctx.body = ctx.path === '/list' ? [{ title: 'é' }] : { title: 'é' };
    });
    const server = await serve(koa.callback());
    try {
      for (const [path, text] of [
        ['/one', '{"title":"é"}'],
        ['/list', '[{"title":"é"}]'],
      ] as const) {
        const answer = await server.request(path);
        assert.equal(answer.status, 201);
        assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
        assert.equal(answer.headers.get('content-length'), String(Buffer.byteLength(text)));
        assert.equal(await answer.text(), text);
      }
    } finally {
      await server.close();
    }
  });
});
