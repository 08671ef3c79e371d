/**
 * Runs the conformance suite for MikroOrmAdapter on every database target, in both execution
 * modes: `mikro-orm:<target>` (the fast path where it is proved) and `mikro-orm:<target>:plain`
 * (MikroORM's public API only). The name only titles the run and its applications.
 */
import { describe } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { runConformanceSuite } from '../../../conformance/index.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';
import {
  createTestDatabase,
  type DatabaseTarget,
  databaseTargets,
  requireTarget,
} from '../../support/databases.js';

function adapterName(target: DatabaseTarget): string {
  return target.startsWith('sqlite') ? 'sqlite' : target;
}

for (const target of databaseTargets()) {
  for (const mode of ['fast', 'plain'] as const) {
    const suffix = mode === 'plain' ? ':plain' : '';
    describe(`MikroOrmAdapter conformance on ${target} (${mode} mode)`, await requireTarget(target), () => {
      runConformanceSuite({
        name: `mikro-orm:${target}${suffix}`,
        async setup() {
          const db = await createTestDatabase(target);
          const adapter = await MikroOrmAdapter.connect({
            url: db.url,
            entities: [...mikroOrmFixtureEntities],
            schema: 'create',
            mode,
          });
          if (adapter.name !== `mikro-orm:${adapterName(target)}`)
            throw new Error(`unexpected adapter ${adapter.name}`);
          // In plain mode no model may take the fast path; in fast mode the plain-scalar ones must.
          for (const model of Object.values(fixtureModels)) {
            const reason = adapter.plainReason(model);
            if (mode === 'plain' && reason === undefined)
              throw new Error(`plain mode serves ${model.name} through the fast path`);
          }
          if (mode === 'fast' && adapter.plainReason(fixtureModels.Gadget) !== undefined)
            throw new Error(`fast mode serves Gadget plainly: ${adapter.plainReason(fixtureModels.Gadget)}`);
          return {
            adapter,
            models: fixtureModels,
            teardown: async () => {
              await adapter.close();
              await db.drop();
            },
          };
        },
      });
    });
  }
}
