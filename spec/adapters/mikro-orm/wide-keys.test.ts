/**
 * 64-bit keys beyond 2^53 (Snowflake-style ids), on every database target and in both modes.
 * PostgreSQL and MariaDB serve them digit for digit. On SQLite MikroORM's driver reads integers as
 * JavaScript numbers, so such a key would be read back as its rounded neighbour, and an update or
 * delete through it would reach that neighbour or nothing: there such a key is not written (422
 * naming the field) and a path naming one finds nothing, never another row.
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import {
  createTestDatabase,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../support/databases.js';

@Entity()
class Flake extends FrameworkModel {
  @PrimaryKey({ type: 'bigint', autoincrement: false }) id!: string;
  @Property() note!: string;
}

@Entity()
class Crumb extends FrameworkModel {
  @PrimaryKey() id!: number;
  @ManyToOne(() => Flake, { nullable: true }) flake?: Flake | null;
}

const SAFE = '9007199254740991';
const NEIGHBOUR = '9007199254740992';
const WIDE = '9007199254740993';

function isValidation(field: string) {
  return (error: unknown) =>
    error instanceof ApiError && error.status === 422 && JSON.stringify(error.toProblem()).includes(field);
}

for (const target of databaseTargets()) {
  describe(`MikroOrmAdapter keys beyond 2^53 on ${target}`, await requireTarget(target), () => {
    let db: TestDatabase;
    const adapters = {} as Record<'fast' | 'plain', MikroOrmAdapter>;
    const sqlite = target.startsWith('sqlite');

    before(async () => {
      db = await createTestDatabase(target);
      adapters.fast = await MikroOrmAdapter.connect({
        url: db.url,
        entities: [Flake, Crumb],
        schema: 'create',
      });
      adapters.plain = new MikroOrmAdapter(adapters.fast.orm, { mode: 'plain' });
    });
    after(async () => {
      await adapters.fast?.close();
      await db?.drop();
    });

    /** Rows written past the API (by another program), the neighbour first. */
    async function seed(): Promise<void> {
      const connection = adapters.fast.orm.em.getConnection();
      await connection.execute('delete from crumbs');
      await connection.execute('delete from flakes');
      for (const id of [NEIGHBOUR, WIDE])
        await connection.execute(`insert into flakes (id, note) values (${id}, 'row ${id}')`);
    }

    /** The stored notes, read as text so that no digit is lost. */
    async function notes(): Promise<Record<string, string>> {
      const rows: { id: unknown; note: string }[] = await adapters.fast.orm.em
        .getConnection()
        .execute('select cast(id as char(20)) as id, note from flakes');
      return Object.fromEntries(rows.map((row) => [String(row.id).trim(), row.note]));
    }

    for (const mode of ['fast', 'plain'] as const) {
      it(`${mode}: a path naming such a key reaches that row or none, never its neighbour`, async () => {
        await seed();
        const adapter = adapters[mode];
        const read = await adapter.get(adapter.openSession(), Flake, WIDE);
        const updated = await adapter.update(adapter.openSession(), Flake, WIDE, { note: 'changed' });
        if (sqlite) {
          assert.equal(read, undefined);
          assert.equal(updated, undefined);
          assert.equal(await adapter.delete(adapter.openSession(), Flake, WIDE), false);
          assert.deepEqual(await notes(), { [NEIGHBOUR]: `row ${NEIGHBOUR}`, [WIDE]: `row ${WIDE}` });
        } else {
          assert.deepEqual(read, { id: WIDE, note: `row ${WIDE}` });
          assert.deepEqual(updated, { id: WIDE, note: 'changed' });
          assert.equal(await adapter.delete(adapter.openSession(), Flake, WIDE), true);
          assert.deepEqual(await notes(), { [NEIGHBOUR]: `row ${NEIGHBOUR}` });
        }
      });

      it(`${mode}: such a key is ${sqlite ? 'refused, naming the field' : 'written digit for digit'}`, async () => {
        await seed();
        const adapter = adapters[mode];
        const session = adapter.openSession();
        const safe = await adapter.create(session, Flake, { id: SAFE, note: 'safe' });
        assert.deepEqual(safe, { id: SAFE, note: 'safe' });
        if (sqlite) {
          await assert.rejects(
            adapter.create(adapter.openSession(), Flake, { id: '9007199254740995', note: 'x' }),
            isValidation('id'),
          );
          await assert.rejects(
            adapter.create(adapter.openSession(), Crumb, { flake: WIDE }),
            isValidation('flake'),
          );
        } else {
          const crumb = await adapter.create(adapter.openSession(), Crumb, { flake: WIDE });
          assert.equal(crumb.flake, WIDE);
        }
      });
    }
  });
}
