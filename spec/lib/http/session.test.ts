/** `sessionOf`: one session per request and adapter, opened on first use. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Koa from 'koa';
import { sessionOf } from '../../../lib/http/session.js';
import type { OrmAdapter } from '../../../lib/types.js';

/** An adapter whose sessions are numbered objects; only `openSession` is called. */
function countingAdapter(name: string): OrmAdapter<{ name: string; n: number }> & { opened: number } {
  const adapter = {
    opened: 0,
    openSession() {
      adapter.opened += 1;
      return { name, n: adapter.opened };
    },
  };
  return adapter as unknown as OrmAdapter<{ name: string; n: number }> & { opened: number };
}

describe('sessionOf', () => {
  it('opens one session per request and adapter, and gives each adapter its own', () => {
    const koa = new Koa();
    const ctx = koa.createContext({ headers: {} } as never, {} as never);
    const app = countingAdapter('app');
    const own = countingAdapter('own');
    const first = sessionOf(ctx, app);
    assert.equal(sessionOf(ctx, app), first, 'the same session on every call of a request');
    const other = sessionOf(ctx, own);
    assert.notEqual(other, first);
    assert.equal(other.name, 'own', "a router's own adapter gets a session it opened");
    assert.equal(sessionOf(ctx, own), other);
    assert.deepEqual([app.opened, own.opened], [1, 1]);
    const next = koa.createContext({ headers: {} } as never, {} as never);
    assert.notEqual(sessionOf(next, app), first, 'a new request, a new session');
  });
});
