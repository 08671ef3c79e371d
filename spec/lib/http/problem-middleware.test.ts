/**
 * The error boundary's log: a 503's cause (a database down, a pooler refusing transactions) is
 * logged once a minute as a warning, so that an operator learns why clients are told to retry;
 * other 5xx are logged each time; the client never sees the cause.
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
});
