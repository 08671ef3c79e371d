/**
 * The client's address behind proxies (security review, session 16): Koa takes the first entry of
 * `X-Forwarded-For`, which the client writes itself when a proxy appends to the header (AWS ALB,
 * nginx's `$proxy_add_x_forwarded_for`): a client could choose the address its throttles count.
 * `proxyHops` says how many proxies of the app's own append: the address is that many entries from
 * the right.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryAdapter } from '../../../adapters/memory/index.js';
import { Application } from '../../../lib/application.js';
import { ConfigurationError } from '../../../lib/errors.js';
import { serve } from '../../support/http.js';

/** The address an application with these proxy options reads for each X-Forwarded-For. */
async function addressesSeen(
  options: { proxy?: boolean; proxyHops?: number },
  headers: readonly string[],
): Promise<string[]> {
  const app = new Application({
    title: 'proxies',
    adapter: new MemoryAdapter({ models: [] }),
    logger: { info() {}, warn() {}, error() {} },
    health: false,
    ...options,
  });
  app.mount('whoami', async (ctx) => {
    ctx.body = { ip: ctx.ip };
  });
  const server = await serve(app.callback());
  try {
    const seen: string[] = [];
    for (const forwarded of headers) {
      const answer = await server.request('/whoami', { headers: { 'x-forwarded-for': forwarded } });
      seen.push(((await answer.json()) as { ip: string }).ip);
    }
    return seen;
  } finally {
    await server.close();
  }
}

describe('the client address behind proxies', () => {
  const forged = ['203.0.113.9', '198.51.100.7, 203.0.113.9', '1.1.1.1, 198.51.100.7, 203.0.113.9'];

  it('with proxyHops: 1, the entry the one proxy appended, whatever the client put before it', async () => {
    assert.deepEqual(await addressesSeen({ proxy: true, proxyHops: 1 }, forged), [
      '203.0.113.9',
      '203.0.113.9',
      '203.0.113.9',
    ]);
  });

  it('with proxyHops: 2, the entry before the last proxy', async () => {
    assert.deepEqual(await addressesSeen({ proxy: true, proxyHops: 2 }, forged.slice(1)), [
      '198.51.100.7',
      '198.51.100.7',
    ]);
  });

  it('without it, the first entry (right behind a proxy that replaces the header)', async () => {
    assert.deepEqual(await addressesSeen({ proxy: true }, forged), [
      '203.0.113.9',
      '198.51.100.7',
      '1.1.1.1',
    ]);
  });

  it('refuses proxyHops without proxy: true, or not a whole number from 1', () => {
    for (const options of [{ proxyHops: 1 }, { proxy: true, proxyHops: 0 }, { proxy: true, proxyHops: 1.5 }])
      assert.throws(
        () => new Application({ title: 't', adapter: new MemoryAdapter({ models: [] }), ...options }),
        ConfigurationError,
      );
  });
});
