/**
 * The fast path steps aside: for every model shape it is not proved on, and for every model when a
 * MikroORM internal it needs is missing (a MikroORM upgrade then costs speed, never correctness).
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import {
  Bulletin,
  Carrier,
  fidelityEntities,
  Memo,
  Shipment,
  Truck,
  Vehicle,
} from '../../fixtures/mikro-orm/fidelity.js';

describe('the fast path on sqlite-memory', () => {
  let adapter: MikroOrmAdapter;

  before(async () => {
    adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: [...fidelityEntities],
      schema: 'create',
    });
  });
  after(async () => adapter.close());

  it('serves plain-scalar models and names why every other model is served plainly', () => {
    assert.equal(adapter.plainReason(Memo), undefined);
    assert.equal(adapter.plainReason(Carrier), undefined);
    assert.match(
      adapter.plainReason(Shipment) ?? '',
      /embedded|computed|serializedName|custom type|lazy|array/,
    );
    assert.match(adapter.plainReason(Truck) ?? '', /inheritance/);
    assert.match(adapter.plainReason(Vehicle) ?? '', /inheritance/);
    assert.match(adapter.plainReason(Bulletin) ?? '', /filters/);
  });

  it('runs its own statements on an adapter built by connect(): one prepare for many lookups', async () => {
    // Anything that makes the statement runner step aside (a connection hook, query logging…)
    // would silently send every query through MikroORM again: SQLite would prepare each one.
    const session = adapter.openSession();
    const created = await adapter.create(session, Carrier, { name: 'counted' });
    const database = (await (
      adapter.orm.em.getConnection() as unknown as { getNativeClient(): Promise<unknown> }
    ).getNativeClient()) as { prepare(sql: string): unknown };
    const prepare = database.prepare;
    let prepared = 0;
    database.prepare = function counted(this: unknown, sql: string) {
      prepared += 1;
      return prepare.call(this, sql);
    };
    try {
      for (let i = 0; i < 50; i++) await adapter.get(adapter.openSession(), Carrier, created.id as number);
    } finally {
      database.prepare = prepare;
    }
    assert.ok(prepared <= 1, `${prepared} statements prepared for 50 lookups`);
  });

  it('plain mode serves every model plainly', async () => {
    const plain = new MikroOrmAdapter(adapter.orm, { mode: 'plain' });
    assert.equal(plain.plainReason(Memo), 'plain mode');
    assert.equal(plain.plainReason(Carrier), 'plain mode');
  });

  it('a MikroORM without an internal the fast path needs: one warning, every model plain, answers unchanged', async () => {
    const connection = adapter.orm.em.getConnection() as unknown as Record<string, unknown>;
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code === 'KMA_FAST_PATH_OFF') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    // Shadow the prototype's method on this one instance, as a MikroORM that renamed it would look.
    connection.getClient = undefined;
    let degraded: MikroOrmAdapter;
    try {
      degraded = new MikroOrmAdapter(adapter.orm);
    } finally {
      delete connection.getClient;
    }
    await new Promise((resolve) => setImmediate(resolve));
    process.off('warning', onWarning);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /getClient/);
    assert.match(degraded.plainReason(Memo) ?? '', /MikroORM lacks Connection\.getClient/);
    const session = degraded.openSession();
    const created = await degraded.create(session, Memo, {
      title: 'plain',
      pages: 2,
      pinned: false,
      due: '2024-01-02',
      remindAt: '2024-01-02T03:04:05.006Z',
      amount: '2.5',
      big: '12',
    });
    assert.deepEqual(await degraded.get(degraded.openSession(), Memo, created.id as number), created);
    assert.deepEqual(await adapter.get(adapter.openSession(), Memo, created.id as number), created);
  });
});
