/** Runs the conformance suite for MikroOrmAdapter on every database target. */
import { describe } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { runConformanceSuite } from '../../conformance/index.js';
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
  describe(`MikroOrmAdapter conformance on ${target}`, await requireTarget(target), () => {
    runConformanceSuite({
      name: `mikro-orm:${target}`,
      async setup() {
        const db = await createTestDatabase(target);
        const adapter = await MikroOrmAdapter.connect({
          url: db.url,
          entities: [...mikroOrmFixtureEntities],
          schema: 'create',
        });
        if (adapter.name !== `mikro-orm:${adapterName(target)}`)
          throw new Error(`unexpected adapter ${adapter.name}`);
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
