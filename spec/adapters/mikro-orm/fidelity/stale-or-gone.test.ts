/**
 * An update of a versioned row that another request changed after this one loaded it is a 409
 * `stale_record`; one whose row another request deleted meanwhile finds no record and answers as
 * for a missing key (the core's 404), not 409. MikroORM reports both as an OptimisticLockError.
 * (A delete meets neither: MikroORM's delete does not compare the version.) Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ApiError } from '../../../../lib/errors.js';
import { Ledger } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity, type FidelityEnv } from './harness.js';

const CATALOGUE: Catalogue = { entities: [Ledger], routes: new Map([[Ledger, '/ledgers']]) };

/** A new ledger's id, and a session that has loaded it (as a request's policy read would). */
async function loadedLedger(env: FidelityEnv, name: string): Promise<{ id: number; session: unknown }> {
  const em = env.em();
  const ledger = em.create(Ledger, { name });
  await em.flush();
  const session = env.adapter.openSession();
  assert.ok((await env.adapter.get(session, Ledger, ledger.id)) !== undefined);
  return { id: ledger.id, session };
}

await describeFidelity(
  'MikroORM fidelity: a versioned row changed or deleted meanwhile',
  (env) => {
    it('an update after another request deleted the loaded row finds no record (404), not a stale one', async () => {
      const { id, session } = await loadedLedger(env(), `gone ${env().mode}`);
      await env().em().nativeDelete(Ledger, { id });
      assert.equal(await env().adapter.update(session as never, Ledger, id, { name: 'late' }), undefined);
      assert.equal(await env().em().findOne(Ledger, id), null);
    });

    it('an update after another request changed the row the request loaded is 409 stale_record', async () => {
      // The fast path's read loads no entity: its update loads the row itself, just before the flush.
      if (env().mode === 'fast') return;
      const { id, session } = await loadedLedger(env(), `stale ${env().mode}`);
      await env().em().nativeUpdate(Ledger, { id }, { name: 'changed', version: 7 });
      await assert.rejects(
        env().adapter.update(session as never, Ledger, id, { name: 'late' }),
        (error: unknown) => error instanceof ApiError && error.code === 'stale_record',
      );
      assert.equal((await env().em().findOne(Ledger, id))?.name, 'changed');
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
