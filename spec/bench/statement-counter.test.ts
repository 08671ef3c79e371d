/**
 * The bench's SQL statement count (bench/contenders/shared/statement-counter.ts): every statement a
 * contender runs is counted at its driver, whichever layer sends it — the framework adapter's own SQL
 * path, MikroORM's unit of work, or raw driver calls — on the backends the bench runs on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import { Post, Tag, User } from '../../bench/contenders/framework/entities.js';
import {
  countStatements,
  setCounting,
  statementCount,
} from '../../bench/contenders/shared/statement-counter.js';
import {
  createTestDatabase,
  databaseTargets,
  postgresServerUrl,
  requireTarget,
  type TestDatabase,
} from '../support/databases.js';

// Both drivers, so that each target below is counted; this file's process is its own.
countStatements('sqlite:counted.db');
countStatements(`${postgresServerUrl()}/counted`);
setCounting(true);

/** How many statements `work` ran. */
async function counted(work: () => Promise<unknown>): Promise<number> {
  const start = statementCount();
  await work();
  return statementCount() - start;
}

// The bench runs on SQLite and PostgreSQL.
for (const target of databaseTargets().filter((t) => t !== 'mariadb')) {
  describe(`bench statement count on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    let adapter: MikroOrmAdapter;
    let postId: number;

    before(async () => {
      db = await createTestDatabase(target);
      adapter = await MikroOrmAdapter.connect({ url: db.url, entities: [User, Post, Tag], schema: 'create' });
      const em = adapter.orm.em.fork();
      const owner = em.create(User, { username: 'ann', email: 'ann@bench.test', hashed_password: 'x' });
      const post = em.create(Post, { title: 'First', body: null, owner });
      await em.flush();
      postId = post.id;
    });

    after(async () => {
      await adapter?.close();
      await db?.drop();
    });

    it("counts a read on the framework adapter's own SQL path as one statement", async () => {
      // The bench's post (with its tags collection) is served by the fast path, outside MikroORM's execution.
      assert.equal(adapter.plainReason(Post), undefined);
      const session = adapter.openSession();
      assert.equal(await counted(() => adapter.get(session, Post, postId)), 1);
    });

    it("counts what MikroORM sends: a find, and a flush's BEGIN, INSERT and COMMIT", async () => {
      const em = adapter.orm.em.fork();
      assert.equal(await counted(() => em.find(Post, {}, { populate: ['owner', 'tags'] })), 2);
      em.create(Tag, { name: 'first' });
      assert.equal(await counted(() => em.flush()), 3);
    });

    it('counts nothing while counting is off (measured runs call the driver directly)', async () => {
      setCounting(false);
      try {
        const session = adapter.openSession();
        assert.equal(await counted(() => adapter.get(session, Post, postId)), 0);
      } finally {
        setCounting(true);
      }
    });
  });
}
