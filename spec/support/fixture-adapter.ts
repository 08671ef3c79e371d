/** A MikroORM adapter over the fixture models on a fresh test database of one target. */
import { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import { mikroOrmFixtureEntities } from '../fixtures/mikro-orm/index.js';
import { createTestDatabase, type DatabaseTarget } from './databases.js';

/** The adapter and how to close it and drop its database. */
export interface FixtureAdapter {
  readonly adapter: MikroOrmAdapter;
  close(): Promise<void>;
}

/** Creates the database, connects with `schema: 'create'`; `close()` undoes both. */
export async function openFixtureAdapter(target: DatabaseTarget): Promise<FixtureAdapter> {
  const db = await createTestDatabase(target);
  try {
    const adapter = await MikroOrmAdapter.connect({
      url: db.url,
      entities: [...mikroOrmFixtureEntities],
      schema: 'create',
    });
    return {
      adapter,
      async close() {
        await adapter.close();
        await db.drop();
      },
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}
