import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { introspectionEntities, Note } from '../../fixtures/mikro-orm/introspection.js';

describe('MikroORM filters', () => {
  let adapter: MikroOrmAdapter;
  let liveId: number;
  let deletedId: number;

  before(async () => {
    adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: [...introspectionEntities],
      schema: 'create',
    });
    const session = adapter.openSession();
    liveId = (await adapter.create(session, Note, { text: 'live' })).id as number;
    deletedId = (await adapter.create(session, Note, { text: 'gone' })).id as number;
    await adapter.orm.em.getConnection().execute(`update notes set deleted = 1 where id = ${deletedId}`);
  });
  after(() => adapter.close());

  it("apply to list, count, get and findBy, as they do to MikroORM's own finds", async () => {
    const session = adapter.openSession();
    const listed = await adapter.list(session, Note, {
      filters: [],
      sort: [],
      limit: 10,
      offset: 0,
      withTotal: true,
    });
    assert.deepEqual([listed.rows.map((row) => row.text), listed.total], [['live'], 1]);
    assert.equal((await adapter.get(session, Note, liveId))?.text, 'live');
    assert.equal(await adapter.get(session, Note, deletedId), undefined);
    assert.equal(await adapter.findBy(session, Note, 'text', 'gone'), undefined);
  });

  it('apply to update and delete', async () => {
    const session = adapter.openSession();
    assert.equal(await adapter.update(session, Note, deletedId, { text: 'back?' }), undefined);
    assert.equal(await adapter.delete(session, Note, deletedId), false);
    assert.equal(await adapter.delete(session, Note, liveId), true);
  });
});
