/**
 * A default MikroORM filter that takes arguments (a tenant filter): MikroORM refuses every find
 * until someone sets them. Set per request on the request's session, they apply to every read,
 * update and delete; never set, each request is a generic 500 whose logged cause is a
 * ConfigurationError saying what to do, never a bare MikroORM error. SQLite and PostgreSQL, both modes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import type { Next } from 'koa';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import {
  type AppContext,
  Application,
  ConfigurationError,
  CrudRouter,
  FrameworkModel,
  sessionOf,
} from '../../../lib/index.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';

/** Table `tenanteds`: each row belongs to a tenant; the filter shows one tenant's rows only. */
class Tenanted extends FrameworkModel {
  id!: number;
  tenant!: string;
  label!: string;
}

const TenantedSchema = new EntitySchema({
  class: Tenanted,
  properties: {
    id: { type: 'integer', primary: true },
    tenant: { type: 'string', length: 20 },
    label: { type: 'string', length: 40 },
  },
  filters: {
    tenant: { name: 'tenant', cond: (args: { tenant: string }) => ({ tenant: args.tenant }), default: true },
  },
});

for (const target of ['sqlite-memory', 'postgresql'] as const) {
  for (const mode of ['fast', 'plain'] as const) {
    describe(
      `a default filter with arguments on ${target} (${mode} mode)`,
      await requireTarget(target),
      () => {
        let database: TestDatabase;
        let adapter: MikroOrmAdapter;
        let server: TestServer;
        const logged: unknown[] = [];
        const warnings: Error[] = [];
        const onWarning = (warning: Error) => {
          if ((warning as Error & { code?: string }).code === 'KMA_FILTER_ARGUMENTS') warnings.push(warning);
        };

        before(async () => {
          process.on('warning', onWarning);
          database = await createTestDatabase(target);
          adapter = await MikroOrmAdapter.connect({
            url: database.url,
            entities: [TenantedSchema],
            schema: 'create',
            mode,
          });
          const em = adapter.orm.em.fork();
          em.create(Tenanted, { tenant: 'a', label: 'one of a' });
          em.create(Tenanted, { tenant: 'b', label: 'one of b' });
          await em.flush();
          const app = new Application({
            title: 'tenants',
            adapter,
            logger: { info() {}, warn() {}, error: (_message, error) => void logged.push(error) },
          });
          // Before the router: the tenant from a header, on the session the router's queries use.
          app.mount('tenanteds', (ctx: AppContext, next: Next) => {
            const tenant = ctx.get('x-tenant');
            if (tenant !== '') sessionOf(ctx, adapter).setFilterParams('tenant', { tenant });
            return next();
          });
          new CrudRouter({ model: Tenanted }).register_routes(app);
          server = await serve(app.callback());
        });
        after(async () => {
          process.off('warning', onWarning);
          await server?.close();
          await adapter?.close();
          await database?.drop();
        });

        it('registration warns that the arguments must be set per request', async () => {
          await new Promise((resolve) => setImmediate(resolve));
          assert.ok(
            warnings.some((warning) => /filter 'tenant'.*Tenanted.*setFilterParams/s.test(warning.message)),
            warnings.map((warning) => warning.message).join('\n'),
          );
        });

        it('with the arguments set per request, every read, update and delete sees one tenant', async () => {
          const headers = { 'x-tenant': 'a' };
          const list = (await (await server.request('/tenanteds', { headers })).json()) as {
            label: string;
          }[];
          assert.deepEqual(
            list.map((row) => row.label),
            ['one of a'],
          );
          const b = await server.request('/tenanteds/2', { headers });
          assert.equal(b.status, 404, 'tenant b’s row is hidden from tenant a');
          assert.equal((await server.request('/tenanteds/2', { method: 'DELETE', headers })).status, 404);
          const patched = await server.request('/tenanteds/1', {
            method: 'PATCH',
            headers,
            json: { label: 'a!' },
          });
          assert.equal(patched.status, 200);
        });

        it('without them, a generic 500 whose logged cause names the filter and the fix', async () => {
          logged.length = 0;
          const answer = await server.request('/tenanteds');
          assert.equal(answer.status, 500);
          assert.doesNotMatch(await answer.text(), /tenant|filter/i);
          const cause = logged[0];
          assert.ok(cause instanceof ConfigurationError, String(cause));
          assert.match(cause.message, /filter 'tenant'.*Tenanted.*setFilterParams/s);
        });
      },
    );
  }
}

/** The same filter, off unless a query names it: MikroORM never asks for its arguments by itself. */
class Optional extends FrameworkModel {
  id!: number;
  tenant!: string;
}

const OptionalSchema = new EntitySchema({
  class: Optional,
  properties: { id: { type: 'integer', primary: true }, tenant: { type: 'string', length: 20 } },
  filters: { tenant: { name: 'tenant', cond: (args: { tenant: string }) => ({ tenant: args.tenant }) } },
});

describe('a filter with arguments that is not on by default', () => {
  it('registers without a warning and serves', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code === 'KMA_FILTER_ARGUMENTS') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    const adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: [OptionalSchema],
      schema: 'create',
    });
    try {
      const app = new Application({ title: 'optional', adapter });
      new CrudRouter({ model: Optional }).register_routes(app);
      const server = await serve(app.callback());
      try {
        assert.equal((await server.request('/optionals')).status, 200);
      } finally {
        await server.close();
      }
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
      await adapter.close();
    }
  });
});
