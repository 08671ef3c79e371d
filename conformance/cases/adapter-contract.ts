/**
 * Cases that call the adapter directly, for what HTTP cannot see: the auth plugin's `findBy`
 * (login reads a hidden `hashed_password` by a unique `username`), hidden fields in returned rows,
 * `update`/`delete` of a missing key (the core's GET before them answers 404 first) and `ping`.
 */
import assert from 'node:assert/strict';
import type { OrmAdapter, RawRecord, RecordId } from '../../lib/index.js';
import { expectRecord, expectRows } from '../assertions.js';
import type { CaseContext, ConformanceCase } from '../context.js';
import { query } from '../http-client.js';
import type { ConformanceCaseName } from '../names.js';

const MISSING_ID = 2_000_000_000;

/** Inserts a gadget with a hidden `secret` through the adapter; returns the row `create` gave. */
async function seedSecret(ctx: CaseContext, label: string): Promise<RawRecord> {
  const session = ctx.adapter.openSession();
  return ctx.adapter.create(session, ctx.models.Gadget, {
    name: `${ctx.prefix}-${label}`,
    quantity: 1,
    secret: `${ctx.prefix}-${label}-secret`,
  });
}

/** Asserts a row the adapter returned is the seeded gadget, hidden `secret` included. */
function expectSecretRow(row: RawRecord | undefined, seeded: RawRecord, what: string): void {
  assert.ok(row !== undefined, `${what} found the row`);
  assert.equal(row.id, seeded.id, `${what} returned the row with key ${String(seeded.id)}`);
  assert.equal(row.name, seeded.name, `${what}: name`);
  assert.equal(row.secret, seeded.secret, `${what} includes the hidden field (the auth plugin reads it)`);
}

/** A missing key of each key kind: generated integer, generated UUID, natural string. */
const MISSING_KEYS: readonly (readonly [keyof CaseContext['models'], RecordId])[] = [
  ['Gadget', MISSING_ID],
  ['Box', '00000000-0000-4000-8000-000000000000'],
  ['Country', 'ZZ'],
];

/** `ping()` settles: resolved, or the error it rejected with. */
async function pingOutcome(adapter: OrmAdapter): Promise<unknown> {
  try {
    await adapter.ping();
    return undefined;
  } catch (error) {
    return error ?? new Error('ping() rejected');
  }
}

export const adapterContractCases = {
  'adapter-find-by-unique-and-hidden-field': {
    description: 'findBy finds a row by a unique field and by a hidden one (login), undefined for no match',
    async run(ctx) {
      const seeded = await seedSecret(ctx, 'login');
      await seedSecret(ctx, 'other');
      const { Gadget } = ctx.models;
      const session = ctx.adapter.openSession({ primary: true });
      expectSecretRow(await ctx.adapter.findBy(session, Gadget, 'name', seeded.name), seeded, 'findBy(name)');
      expectSecretRow(
        await ctx.adapter.findBy(session, Gadget, 'secret', seeded.secret),
        seeded,
        'findBy(secret), a hidden field',
      );
      const missing = `${ctx.prefix}-nobody`;
      assert.equal(await ctx.adapter.findBy(session, Gadget, 'name', missing), undefined, 'no match');
      assert.equal(await ctx.adapter.findBy(session, Gadget, 'secret', missing), undefined, 'no match');
    },
  },

  'adapter-rows-hold-hidden-fields': {
    description: 'create, get, list and update return hidden fields; no HTTP response shows them',
    async run(ctx) {
      const seeded = await seedSecret(ctx, 'hidden');
      const { Gadget } = ctx.models;
      assert.equal(seeded.secret, `${ctx.prefix}-hidden-secret`, 'create returns the hidden field');
      const id = seeded.id as RecordId;
      const session = ctx.adapter.openSession({ primary: true });
      expectSecretRow(await ctx.adapter.get(session, Gadget, id), seeded, 'get');
      const listed = await ctx.adapter.list(session, Gadget, {
        filters: [{ field: 'name', op: '$eq', value: seeded.name }],
        sort: [{ field: 'id', direction: 'asc' }],
        limit: 10,
        offset: 0,
        withTotal: false,
      });
      assert.equal(listed.rows.length, 1, 'list finds the row');
      expectSecretRow(listed.rows[0], seeded, 'list');
      expectSecretRow(await ctx.adapter.update(session, Gadget, id, { quantity: 2 }), seeded, 'update');

      const responses = [
        expectRecord(await ctx.http.get(`/gadgets/${id}`), 200),
        expectRecord(await ctx.http.patch(`/gadgets/${id}`, { quantity: 3 }), 200),
        ...expectRows(await ctx.http.get(`/gadgets${query({ 'filter[name]': String(seeded.name) })}`)),
      ];
      assert.equal(responses.length, 3);
      for (const body of responses)
        assert.ok(!('secret' in body), `no response shows secret: ${JSON.stringify(body)}`);
      const stored = await ctx.adapter.get(ctx.adapter.openSession({ primary: true }), Gadget, id);
      assert.equal(stored?.secret, seeded.secret, 'an update through HTTP keeps the hidden field');
    },
  },

  'adapter-update-delete-missing-key': {
    description: 'update of a missing key resolves undefined and delete false, creating nothing',
    async run(ctx) {
      const session = ctx.adapter.openSession({ primary: true });
      for (const [model, id] of MISSING_KEYS) {
        const where = `${model} ${String(id)}`;
        const data = model === 'Box' ? { label: `${ctx.prefix}-ghost` } : { name: `${ctx.prefix}-ghost` };
        assert.equal(
          await ctx.adapter.update(session, ctx.models[model], id, data),
          undefined,
          `update ${where}`,
        );
        assert.equal(await ctx.adapter.delete(session, ctx.models[model], id), false, `delete ${where}`);
        assert.equal(await ctx.adapter.get(session, ctx.models[model], id), undefined, `get ${where} after`);
      }
      const ghosts = expectRows(
        await ctx.http.get(`/gadgets${query({ 'filter[name]': `${ctx.prefix}-ghost` })}`),
      );
      assert.deepEqual(ghosts, [], 'no update created a row');
    },
  },

  'adapter-ping-and-health-ready': {
    description: 'ping() resolves on a healthy adapter, and GET /health/ready is 200',
    async run(ctx) {
      const outcome = await pingOutcome(ctx.adapter);
      assert.equal(outcome, undefined, `ping() rejected: ${String(outcome)}`);
      assert.deepEqual(expectRecord(await ctx.http.get('/health/ready'), 200), { status: 'ok' });
    },
  },
} satisfies Partial<Record<ConformanceCaseName, ConformanceCase>>;
