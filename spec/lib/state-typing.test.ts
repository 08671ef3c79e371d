/**
 * `ctx.state.user` is typed for every Koa middleware of an app that imports koa-model-api (a
 * `DefaultState` augmentation): a hand-written authentication dependency that sets the admin flag
 * under another name does not compile. The `@ts-expect-error` lines fail the build if it would.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Middleware } from 'koa';
import '../../lib/index.js';

describe('ctx.state.user typing', () => {
  it('takes a RequestUser (isAdmin) and refuses other shapes at compile time', () => {
    const good: Middleware = async (ctx, next) => {
      ctx.state.user = { id: 1, isAdmin: true };
      await next();
    };
    const wrongFlag: Middleware = async (ctx, next) => {
      // @ts-expect-error `is_admin` is not the flag's name on the request user: `isAdmin` is.
      ctx.state.user = { id: 1, is_admin: true };
      await next();
    };
    const noId: Middleware = async (ctx, next) => {
      // @ts-expect-error a request user needs its id.
      ctx.state.user = { isAdmin: false };
      await next();
    };
    assert.equal(typeof good, 'function');
    assert.equal(typeof wrongFlag, 'function');
    assert.equal(typeof noId, 'function');
  });
});
