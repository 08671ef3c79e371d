/** Cases: protocol errors (400 415 413 404 405) and the problem details body of every error. */
import assert from 'node:assert/strict';
import { expectInvalidFields, expectProblem, expectRows } from '../assertions.js';
import { type ConformanceCase, createGadget } from '../context.js';
import { type HttpResult, query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';

const MIB = 1024 * 1024;

/** The methods an `Allow` header lists, upper-case. */
function allowed(result: HttpResult): string[] {
  return (result.headers.get('allow') ?? '').split(',').map((method) => method.trim().toUpperCase());
}

export const httpCases = {
  'malformed-json-400': {
    description: 'a body that is not JSON is 400 malformed_json, on create and update',
    async run(ctx) {
      const bad = { raw: '{"name": "unterminated', contentType: 'application/json' };
      expectProblem(await ctx.http.send('POST', '/gadgets', bad), 400, ['malformed_json']);
      const stored = await createGadget(ctx, 'target');
      expectProblem(await ctx.http.send('PUT', `/gadgets/${stored.id}`, bad), 400, ['malformed_json']);
      expectProblem(
        await ctx.http.send('PATCH', `/gadgets/${stored.id}`, {
          raw: "{'a': 1}",
          contentType: 'application/json',
        }),
        400,
        ['malformed_json'],
      );
    },
  },

  'unsupported-media-type-415': {
    description: 'a body that is not application/json is 415',
    async run(ctx) {
      const name = `${ctx.prefix}-typed`;
      expectProblem(
        await ctx.http.send('POST', '/gadgets', { raw: `name=${name}`, contentType: 'text/plain' }),
        415,
        ['unsupported_media_type'],
      );
      expectProblem(
        await ctx.http.send('POST', '/gadgets', {
          raw: `name=${name}`,
          contentType: 'application/x-www-form-urlencoded',
        }),
        415,
        ['unsupported_media_type'],
      );
      const stored = await createGadget(ctx, 'target');
      expectProblem(
        await ctx.http.send('PUT', `/gadgets/${stored.id}`, { raw: '<a/>', contentType: 'application/xml' }),
        415,
        ['unsupported_media_type'],
      );
      assert.deepEqual(expectRows(await ctx.http.get(`/gadgets${query({ 'filter[name]': name })}`)), []);
    },
  },

  'payload-too-large-413': {
    description: 'a body over 1 MiB is 413; a body just under it is read (and here refused as invalid)',
    async run(ctx) {
      const over = JSON.stringify({ name: 'x'.repeat(MIB) });
      expectProblem(
        await ctx.http.send('POST', '/gadgets', { raw: over, contentType: 'application/json' }),
        413,
        ['payload_too_large'],
      );
      const under = JSON.stringify({ name: 'x'.repeat(MIB - 64) });
      expectInvalidFields(
        await ctx.http.send('POST', '/gadgets', { raw: under, contentType: 'application/json' }),
        ['name'],
      );
    },
  },

  'unknown-route-404': {
    description: 'a path no route serves is 404, for any method',
    async run(ctx) {
      expectProblem(await ctx.http.get('/no-such-resource'), 404, ['not_found']);
      expectProblem(await ctx.http.post('/no-such-resource', {}), 404, ['not_found']);
      expectProblem(await ctx.http.get('/gadgets/1/extra'), 404, ['not_found']);
      expectProblem(await ctx.http.get('/'), 404, ['not_found']);
    },
  },

  'method-not-allowed-405': {
    description: 'a known path with a method it does not serve is 405 with Allow',
    async run(ctx) {
      const onCollection = await ctx.http.delete('/gadgets');
      expectProblem(onCollection, 405, ['method_not_allowed']);
      assert.ok(
        allowed(onCollection).includes('GET') && allowed(onCollection).includes('POST'),
        'Allow lists GET, POST',
      );
      assert.ok(!allowed(onCollection).includes('DELETE'));
      const onRecord = await ctx.http.post('/gadgets/1', { name: 'x' });
      expectProblem(onRecord, 405, ['method_not_allowed']);
      for (const method of ['GET', 'PUT', 'PATCH', 'DELETE'])
        assert.ok(allowed(onRecord).includes(method), `Allow lists ${method}`);
      assert.ok(!allowed(onRecord).includes('POST'));
    },
  },

  'errors-are-problem-details': {
    description:
      'every error is application/problem+json with type, title, status, detail and code, and no internals',
    async run(ctx) {
      const stored = await createGadget(ctx, 'taken');
      const errors: [Promise<HttpResult>, number][] = [
        [ctx.http.get(`/gadgets${query({ limit: 5000 })}`), 400],
        [ctx.http.get('/gadgets/2000000000'), 404],
        [ctx.http.send('PUT', '/gadgets'), 405],
        [ctx.http.post('/gadgets', { name: stored.name }), 409],
        [ctx.http.send('POST', '/gadgets', { raw: 'x', contentType: 'text/plain' }), 415],
        [ctx.http.post('/gadgets', { name: 42 }), 422],
        [ctx.http.post('/books', { title: 'x', author: 2_000_000_000 }), 422],
      ];
      for (const [pending, status] of errors) {
        const problem = expectProblem(await pending, status);
        assert.ok((problem.detail as string).length > 0, 'a detail sentence');
        assert.ok(!('stack' in problem), 'no stack');
      }
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
