/**
 * A `type` that disagrees with its `columnType`. Where MikroORM takes the JavaScript type from the
 * column (no TypeScript type: `EntitySchema`, `defineEntity`), it validates, loads and serializes
 * the column's kind, and so does the API: reads, lists, answers, filters, the 422 for a value of the
 * declared kind and the OpenAPI schema. Where a TypeScript type fixes it and the column reads back
 * as another type MikroORM does not convert, the model is refused at registration, naming the
 * property and what to declare; so is a boolean in a numeric column on PostgreSQL, which refuses
 * every write of it. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import { ConfigurationError } from '../../../../lib/errors.js';
import { Application, CrudRouter } from '../../../../lib/index.js';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Coded,
  Counted,
  Flagged,
  Reading,
  ReadingSchema,
} from '../../../fixtures/mikro-orm/column-agreement.js';
import { createTestDatabase, requireTarget, type TestDatabase } from '../../../support/databases.js';
import {
  assertSameJson,
  type Catalogue,
  describeFidelity,
  fidelityTargets,
  idsOf,
  type Json,
  MODES,
} from './harness.js';

const READINGS: Catalogue = {
  entities: [ReadingSchema],
  routes: new Map<ModelClass, string>([[Reading, '/readings']]),
};

await describeFidelity(
  'MikroORM fidelity: a type MikroORM takes from its columnType',
  (env) => {
    it('reads, lists and answers show each value as MikroORM holds it', async () => {
      const body = { numstr: '7', bsmall: 1, strint: 42, ismall: 3, note: 'n' };
      const created = await env().send('POST', '/readings', body);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = (created.body as Json).id;
      const expected = await env().mikroJson(Reading, id);
      assert.ok(expected !== undefined);
      assertSameJson(expected, { id, ...body });
      assertSameJson(created.body, expected);
      assertSameJson(await env().get(`/readings/${id}`), expected);
      assertSameJson(await env().get(`/readings?filter[id]=${id}`), [expected]);
      const patched = await env().send('PATCH', `/readings/${id}`, { numstr: '8', bsmall: 0 });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assertSameJson(patched.body, await env().mikroJson(Reading, id));
    });

    it('filters compare the column’s kind, as em.find does', async () => {
      const created = await env().send('POST', '/readings', { numstr: '70', bsmall: 1, strint: 420 });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (const [query, where] of [
        ['filter[numstr]=70', { numstr: '70' }],
        ['filter[strint]=420', { strint: 420 }],
        ['filter[bsmall]=1&filter[numstr]=70', { bsmall: 1, numstr: '70' }],
      ] as const) {
        const answer = await env().send('GET', `/readings?${query}&sort=id`);
        assert.equal(answer.status, 200, `${query}: ${JSON.stringify(answer.body)}`);
        assert.deepEqual(idsOf(answer.body), await env().mikroIds(Reading, where, { id: 'asc' }), query);
      }
    });

    it('a value of the declared kind is a 422 naming the field, as MikroORM refuses it', async () => {
      const em = env().em();
      await assert.rejects(async () => {
        em.create(Reading, { bsmall: true } as never);
        await em.flush();
      }, /Reading\.bsmall of type 'number'/);
      for (const [field, value] of [
        ['bsmall', true],
        ['numstr', 7],
        ['strint', '42'],
      ] as const) {
        const answer = await env().send('POST', '/readings', { [field]: value });
        assert.equal(answer.status, 422, `${field}: ${JSON.stringify(answer.body)}`);
        const paths = (answer.body as { errors: { path: string }[] }).errors.map((error) => error.path);
        assert.deepEqual(paths, [field]);
      }
    });

    it('OpenAPI documents the column’s kind', async () => {
      const document = await env().get('/openapi.json');
      const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
      const properties = schemas.Reading?.properties as Record<string, Json>;
      assert.deepEqual(properties.numstr?.type, ['string', 'null']);
      assert.equal(properties.numstr?.maxLength, 20);
      assert.deepEqual(properties.bsmall?.type, ['integer', 'null']);
      assert.deepEqual(properties.strint?.type, ['integer', 'null']);
      assert.deepEqual(properties.ismall?.type, ['integer', 'null']);
    });
  },
  undefined,
  { catalogue: READINGS },
);

await describeFidelity(
  'MikroORM fidelity: a boolean property in a smallint column',
  (env) => {
    it('is a boolean, stored and read back as MikroORM does', async () => {
      for (const flag of [true, false]) {
        const created = await env().send('POST', '/flaggeds', { flag });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const id = (created.body as Json).id;
        const expected = await env().mikroJson(Flagged, id);
        assert.equal(expected?.flag, flag);
        assertSameJson(created.body, expected);
        assertSameJson(await env().get(`/flaggeds/${id}`), expected);
        const found = await env().get(`/flaggeds?filter[flag]=${flag}&filter[id]=${id}`);
        assert.deepEqual(idsOf(found), [id]);
      }
    });
  },
  undefined,
  {
    catalogue: { entities: [Flagged], routes: new Map<ModelClass, string>([[Flagged, '/flaggeds']]) },
    // PostgreSQL refuses the model (below).
    only: ['sqlite-memory', 'mariadb'],
  },
);

/** Asserts a ConfigurationError that names the property and says what to declare. */
function refusal(model: ModelClass, property: string, remedy: RegExp): (error: unknown) => boolean {
  return (error: unknown) => {
    assert.ok(error instanceof ConfigurationError, `not a ConfigurationError: ${String(error)}`);
    assert.match(error.message, new RegExp(`\\b${model.name}\\.${property}\\b`));
    assert.match(error.message, remedy);
    return true;
  };
}

for (const target of fidelityTargets()) {
  const option = await requireTarget(target);
  for (const mode of MODES) {
    describe(
      `MikroORM fidelity: a TypeScript type its column reads back otherwise, on ${target} (${mode} mode)`,
      option,
      () => {
        let db: TestDatabase | undefined;
        let adapter: MikroOrmAdapter | undefined;
        before(async () => {
          db = await createTestDatabase(target);
          adapter = await MikroOrmAdapter.connect({ url: db.url, entities: [Coded, Counted, Flagged], mode });
        });
        after(async () => {
          await adapter?.close();
          await db?.drop();
        });

        it('a number in a varchar column and a string in an int column are refused at registration', () => {
          assert.ok(adapter !== undefined);
          const app = new Application({ title: 'column agreement', adapter });
          assert.throws(
            () => new CrudRouter({ model: Coded }).register_routes(app),
            refusal(Coded, 'code', /type: 'string'.*or drop columnType/),
          );
          assert.throws(
            () => new CrudRouter({ model: Counted }).register_routes(app),
            refusal(Counted, 'count', /type: 'integer'.*or drop columnType/),
          );
        });

        it('a boolean in a smallint column is refused on PostgreSQL only', () => {
          assert.ok(adapter !== undefined);
          const app = new Application({ title: 'column agreement', adapter });
          const register = () => new CrudRouter({ model: Flagged }).register_routes(app);
          if (target === 'postgresql')
            assert.throws(register, refusal(Flagged, 'flag', /columnType: 'boolean'/));
          else register();
        });
      },
    );
  }
}

/** A model of one string, boolean or number property in a column of the given type (round 12). */
function columnModel(name: string, type: string, columnType: string): ModelClass {
  const model = { [name]: class extends FrameworkModel {} }[name] as unknown as ModelClass;
  const schema = new EntitySchema({
    class: model as never,
    tableName: name.toLowerCase(),
    properties: {
      id: { type: 'integer', primary: true },
      v: { type, columnType, nullable: true },
    },
  });
  COLUMN_SCHEMAS.push(schema);
  return model;
}
const COLUMN_SCHEMAS: EntitySchema[] = [];

/** Columns whose driver value is no string, number or boolean, and the dialects where it is so. */
const FOREIGN_COLUMNS: readonly { model: ModelClass; refusedOn: readonly string[] }[] = [
  { model: columnModel('BitFlag', 'boolean', 'bit(1)'), refusedOn: ['mariadb'] },
  {
    model: columnModel('VarBytes', 'string', 'varbinary(8)'),
    refusedOn: ['sqlite-memory', 'postgresql', 'mariadb'],
  },
  { model: columnModel('PgBytes', 'string', 'bytea'), refusedOn: ['sqlite-memory', 'postgresql', 'mariadb'] },
  { model: columnModel('YearText', 'string', 'year'), refusedOn: ['mariadb'] },
  { model: columnModel('PointText', 'string', 'point'), refusedOn: ['postgresql'] },
  { model: columnModel('ListText', 'string', 'text[]'), refusedOn: ['postgresql'] },
];

for (const target of fidelityTargets()) {
  describe(
    `MikroORM fidelity: columns read back as bytes, objects or arrays, on ${target}`,
    await requireTarget(target),
    () => {
      let db: TestDatabase | undefined;
      let adapter: MikroOrmAdapter | undefined;
      before(async () => {
        db = await createTestDatabase(target);
        adapter = await MikroOrmAdapter.connect({ url: db.url, entities: COLUMN_SCHEMAS, mode: 'plain' });
      });
      after(async () => {
        await adapter?.close();
        await db?.drop();
      });

      for (const { model, refusedOn } of FOREIGN_COLUMNS) {
        it(`${model.name}: ${refusedOn.includes(target) ? 'refused at registration, naming what to do' : 'served'}`, () => {
          assert.ok(adapter !== undefined);
          const app = new Application({ title: 'foreign columns', adapter });
          const register = () => new CrudRouter({ model }).register_routes(app);
          if (refusedOn.includes(target))
            assert.throws(register, refusal(model, 'v', /custom Type.*drop columnType/));
          else register();
        });
      }
    },
  );
}
