/**
 * `ensure_admin`: creates the first admin once, never changes an existing user, and ends with
 * exactly one admin when several processes call it at once, on every database target.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigurationError } from '../../../lib/errors.js';
import type { OrmAdapter } from '../../../lib/types.js';
import { databaseTargets, requireTarget, serverTargets } from '../../support/databases.js';
import { User } from './support/entities.js';
import {
  type AuthFixture,
  call,
  loginToken,
  memoryLogger,
  registerUser,
  startAuthApp,
} from './support/harness.js';

const CHILD = join(import.meta.dirname, 'support', 'ensure-admin-child.js');

/** Runs the child, resolving once it is ready; `go()` releases it, `result` resolves with its output. */
function startChild(
  url: string,
): Promise<{ go(): void; result: Promise<{ code: number | null; out: string; err: string }> }> {
  const child = spawn(process.execPath, [CHILD, url], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const result = new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    child.on('close', (code) => resolve({ code, out, err }));
  });
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.startsWith('ready\n')) resolve({ go: () => child.stdin.write('go\n'), result });
    });
    child.on('error', reject);
    void result.then(({ code }) => reject(new Error(`child exited early (${code}): ${err}`)));
  });
}

for (const target of databaseTargets()) {
  describe(`ensure_admin on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    before(async () => {
      fx = await startAuthApp(target);
    });
    after(() => fx?.close());

    it('creates an admin with a hashed password when the username is free', async () => {
      const result = await fx.auth.ensure_admin({
        username: 'boss',
        password: 'boss-password',
        email: 'boss@example.com',
        age: 40,
      });
      assert.equal(result.created, true);
      assert.deepEqual(
        { ...result.user, id: 0 },
        { id: 0, username: 'boss', email: 'boss@example.com', age: 40, verified: true, is_admin: true },
      );
      const stored = await fx.adapter.findBy(fx.adapter.openSession(), User, 'username', 'boss');
      assert.match(String(stored?.hashed_password), /^\$2b\$04\$/);
      const token = await loginToken(fx.server, 'boss', 'boss-password');
      assert.equal(
        (await call(fx.server, 'POST', '/tags', { token, json: { name: 'by-boss' } })).status,
        201,
      );
    });

    it('throws a ConfigurationError naming the email another user has, and creates nothing', async () => {
      await registerUser(fx.server, { username: 'early-bird', email: 'taken-admin@example.com' });
      await assert.rejects(
        fx.auth.ensure_admin({
          username: 'late-admin',
          password: 'late-admin-password',
          email: 'taken-admin@example.com',
        }),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          /late-admin/.test(error.message) &&
          /email/.test(error.message),
      );
      assert.equal(
        await fx.adapter.findBy(fx.adapter.openSession(), User, 'username', 'late-admin'),
        undefined,
      );
    });

    it('changes nothing when the user exists: never resets the password', async () => {
      await fx.auth.ensure_admin({
        username: 'keeper',
        password: 'first-password',
        email: 'keeper@example.com',
      });
      const again = await fx.auth.ensureAdmin({
        username: 'keeper',
        password: 'second-password',
        email: 'other@example.com',
      });
      assert.equal(again.created, false);
      assert.equal(again.user.email, 'keeper@example.com');
      assert.ok((await loginToken(fx.server, 'keeper', 'first-password')).length > 0);
      const second = await call(fx.server, 'POST', '/login', {
        json: { username: 'keeper', password: 'second-password' },
      });
      assert.equal(second.status, 401);
    });

    it('does not promote an existing ordinary user, and warns', async () => {
      const logger = memoryLogger();
      fx.auth.logger = logger;
      const user = await registerUser(fx.server);
      const result = await fx.auth.ensure_admin({
        username: user.username,
        password: 'whatever-password',
        email: 'x@example.com',
      });
      assert.equal(result.created, false);
      assert.equal(result.user.is_admin, false);
      assert.ok(
        logger.lines.some((line) => line.startsWith('warn ensure_admin')),
        logger.lines.join('\n'),
      );
    });

    it('takes a unit of work of the adapter as db (a forked EntityManager)', async () => {
      const result = await fx.auth.ensure_admin({
        db: fx.adapter.orm.em.fork(),
        username: 'forked',
        password: 'forked-password',
        email: 'forked@example.com',
      });
      assert.equal(result.created, true);
    });

    it('refuses a bad password or a field the model does not have, as a ConfigurationError', async () => {
      await assert.rejects(
        fx.auth.ensure_admin({ username: 'weak', password: 'short', email: 'weak@example.com' }),
        ConfigurationError,
      );
      await assert.rejects(
        fx.auth.ensure_admin({
          username: 'typo',
          password: 'typo-password',
          email: 'typo@example.com',
          nickname: 'x',
        }),
        (error: Error) => error instanceof ConfigurationError && /nickname/.test(error.message),
      );
      await assert.rejects(
        fx.auth.ensure_admin({ username: '', password: 'empty-password' }),
        ConfigurationError,
      );
    });

    it('recovers from losing the race: the unique conflict is caught and the winner re-read', async () => {
      await fx.auth.ensure_admin({
        username: 'winner',
        password: 'winner-password',
        email: 'winner@example.com',
      });
      const real = fx.adapter;
      let lookups = 0;
      // The first lookup answers as if the winner's row were not committed yet.
      const racing: OrmAdapter = {
        name: real.name,
        describe: (model) => real.describe(model),
        openSession: () => real.openSession(),
        list: (session, model, query) => real.list(session as never, model, query),
        get: (session, model, id) => real.get(session as never, model, id),
        findBy: (session, model, field, value) =>
          ++lookups === 1 ? Promise.resolve(undefined) : real.findBy(session as never, model, field, value),
        create: (session, model, data) => real.create(session as never, model, data),
        update: (session, model, id, data) => real.update(session as never, model, id, data),
        delete: (session, model, id) => real.delete(session as never, model, id),
        ping: () => real.ping(),
        close: async () => {},
      };
      const result = await fx.auth.ensure_admin({
        adapter: racing,
        username: 'winner',
        password: 'loser-password',
        email: 'loser@example.com',
      });
      assert.equal(result.created, false);
      assert.equal(result.user.email, 'winner@example.com');
      assert.equal(lookups, 2);
    });

    it('ends with exactly one admin when called ten times at once', async () => {
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          fx.auth.ensure_admin({ username: 'crowd', password: 'crowd-password', email: 'crowd@example.com' }),
        ),
      );
      assert.equal(results.filter((result) => result.created).length, 1);
      assert.equal(new Set(results.map((result) => result.user.id)).size, 1);
    });
  });
}

for (const target of serverTargets()) {
  describe(`ensure_admin from two processes on ${target}`, await requireTarget(target), () => {
    let fx: AuthFixture;
    before(async () => {
      fx = await startAuthApp(target);
    });
    after(() => fx?.close());

    it('creates exactly one admin and neither process fails', async () => {
      const children = await Promise.all([startChild(fx.database.url), startChild(fx.database.url)]);
      for (const child of children) child.go();
      const outcomes = await Promise.all(children.map((child) => child.result));
      for (const outcome of outcomes) assert.equal(outcome.code, 0, outcome.err);
      const reports = outcomes.map(
        (outcome) =>
          JSON.parse(outcome.out.split('\n')[1] ?? '{}') as {
            created: boolean;
            id: number;
            is_admin: boolean;
          },
      );
      assert.deepEqual(reports.map((report) => report.created).sort(), [false, true]);
      assert.equal(reports[0]?.id, reports[1]?.id);
      assert.ok(reports.every((report) => report.is_admin));
      const rows = await fx.adapter.list(fx.adapter.openSession(), User, {
        filters: [{ field: 'username', op: '$eq', value: 'root' }],
        sort: [],
        limit: 10,
        offset: 0,
        withTotal: true,
      });
      assert.equal(rows.total, 1);
      assert.ok((await loginToken(fx.server, 'root', 'root-password')).length > 0);
    });
  });
}
