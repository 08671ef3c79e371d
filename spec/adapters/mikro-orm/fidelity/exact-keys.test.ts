/**
 * A client-chosen key is stored as sent, or refused: a timestamp, time or decimal key with more
 * digits after the point than its column keeps is a 422 naming the field and what the column
 * keeps, before anything is written (MariaDB keeps whole seconds in a `datetime` and a `time`,
 * PostgreSQL a `time(0)`'s whole seconds and a `numeric(6,2)`'s two places, every timestamp at
 * most a JS Date's milliseconds; SQLite keeps a time's and a decimal's text). A key taken answers
 * with a key that addresses the record. The create schema in OpenAPI states the same rule. And a
 * create answered with an error leaves no row behind: on MariaDB the fast path inserts, then reads
 * the row back, in one transaction. Every target, both modes, which answer alike.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Deck,
  exactKeyEntities,
  FineStamp,
  Slot,
  Stamp,
  Tag,
} from '../../../fixtures/mikro-orm/exact-keys.js';
import type { DatabaseTarget } from '../../../support/databases.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: exactKeyEntities,
  routes: new Map<ModelClass, string>([
    [Stamp, '/stamps'],
    [FineStamp, '/fine_stamps'],
    [Slot, '/slots'],
    [Deck, '/decks'],
    [Tag, '/tags'],
  ]),
};

/** One key a client sends, and where its column keeps it (elsewhere: refused, the message matching `rule`). */
interface KeyCase {
  readonly model: ModelClass;
  readonly field: string;
  /** The key, per mode (both modes of a target share one database). */
  readonly key: (mode: string) => string;
  /** The targets that store it as sent; all when absent. */
  readonly kept?: readonly DatabaseTarget[];
  /** What the 422 says where it is refused. */
  readonly rule?: RegExp;
}

const year = (mode: string) => (mode === 'fast' ? 2026 : 2027);
const hour = (mode: string) => (mode === 'fast' ? 10 : 11);
const units = (mode: string) => (mode === 'fast' ? 12 : 13);

const CASES: readonly KeyCase[] = [
  { model: Stamp, field: 'at', key: (m) => `${year(m)}-01-02T03:04:05Z` },
  {
    model: Stamp,
    field: 'at',
    key: (m) => `${year(m)}-01-02T03:04:06.678Z`,
    kept: ['sqlite-memory', 'postgresql'],
    rule: /keeps whole seconds/,
  },
  // A JS Date holds milliseconds: a fourth digit would be lost on every database.
  {
    model: Stamp,
    field: 'at',
    key: (m) => `${year(m)}-01-02T03:04:07.6789Z`,
    kept: [],
    rule: /keeps (whole seconds|3 fractional digits)/,
  },
  { model: Stamp, field: 'at', key: (m) => `${year(m)}-01-02T04:04:08.000+01:00` },
  { model: FineStamp, field: 'at', key: (m) => `${year(m)}-01-02T03:04:05.678Z` },
  { model: Slot, field: 'at', key: (m) => `${hour(m)}:30:00` },
  {
    model: Slot,
    field: 'at',
    key: (m) => `${hour(m)}:31:00.6`,
    kept: ['sqlite-memory'],
    rule: /keeps whole seconds/,
  },
  { model: Slot, field: 'at', key: (m) => `${hour(m)}:32:00.000` },
  { model: Deck, field: 'amount', key: (m) => `${units(m)}.5` },
  {
    model: Deck,
    field: 'amount',
    key: (m) => `${units(m)}.555`,
    kept: ['sqlite-memory'],
    rule: /keeps 2 decimal places/,
  },
  { model: Deck, field: 'amount', key: (m) => `${units(m)}.550` },
];

/** The rows of a model named `name`, as MikroORM finds them. */
async function rowsNamed(env: FidelityEnv, model: ModelClass, name: string): Promise<number> {
  return env.em().count(model as never, { name } as never);
}

await describeFidelity(
  'MikroORM fidelity: client-chosen keys are stored as sent, or refused',
  (env) => {
    CASES.forEach((test, i) => {
      it(`${test.model.name} ${test.key('fast')}: ${test.kept === undefined ? 'kept everywhere' : `kept on ${test.kept.join(', ') || 'no database'}`}`, async () => {
        const { target, mode } = env();
        const route = env().routeOf(test.model);
        const name = `${mode}-${i}`;
        const key = test.key(mode);
        const answer = await env().send('POST', route, { [test.field]: key, name });
        if (test.kept !== undefined && !test.kept.includes(target)) {
          assert.equal(answer.status, 422, JSON.stringify(answer.body));
          const errors = (answer.body as { errors?: { path: string; message: string }[] }).errors ?? [];
          assert.deepEqual(
            errors.map((error) => error.path),
            [test.field],
          );
          assert.match(errors[0]?.message ?? '', test.rule ?? /./);
          assert.equal(await rowsNamed(env(), test.model, name), 0, 'a refused key wrote a row');
          return;
        }
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        const created = answer.body as Json;
        const answered = String(created[test.field]);
        // The answered key addresses the record, and is the one stored (MikroORM finds it by it).
        assertSameJson(await env().get(`${route}/${encodeURIComponent(answered)}`), created);
        assert.equal(await rowsNamed(env(), test.model, name), 1);
        const stored = await env().mikroJson(
          test.model,
          test.model === Stamp || test.model === FineStamp ? new Date(answered) : answered,
        );
        assert.ok(stored !== undefined, `MikroORM finds no ${test.model.name} ${answered}`);
        assert.equal(stored.name, name);
        // The key sent addresses the same record.
        assertSameJson(await env().get(`${route}/${encodeURIComponent(key)}`), created);
        if (test.model === FineStamp) assert.equal(answered, key);
      });
    });

    it('states in the create schema what each key column keeps', async () => {
      const { target } = env();
      const document = await env().get('/openapi.json');
      const schemas = (
        document.components as { schemas: Record<string, { properties: Record<string, Json> }> }
      ).schemas;
      const key = (model: string, field: string) => schemas[`${model}Create`]?.properties[field] ?? {};
      assert.match(
        String(key('Stamp', 'at').description),
        target === 'mariadb' ? /keeps whole seconds/ : /keeps 3 fractional digits/,
      );
      assert.match(String(key('FineStamp', 'at').description), /keeps 3 fractional digits/);
      if (target === 'sqlite-memory') assert.equal(key('Slot', 'at').description, undefined);
      else assert.match(String(key('Slot', 'at').description), /keeps whole seconds/);
      if (target !== 'sqlite-memory')
        assert.match(String(key('Deck', 'amount').description), /keeps 2 decimal places/);
      // A key in a path or a filter is any value of its kind: only a create's body is held to the column.
      assert.equal(schemas.Stamp?.properties.at?.pattern, undefined);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);

/**
 * A trigger MikroORM is not told of (`hasTriggers`) that changes the key: on MariaDB, where an
 * insert returns no row, the fast path's read of the new row by its key then finds none. It stands
 * for any failure between the write and the read of its answer (a connection lost): the request is
 * answered with an error, and its row must not stay. The plain path answers with its entity, as a
 * MikroORM application does, unaware of the trigger.
 */
async function seedTrigger(env: FidelityEnv): Promise<void> {
  await env
    .em()
    .getConnection()
    .execute(
      "create or replace trigger tags_suffix before insert on tags for each row set new.code = concat(new.code, '!')",
    );
}

await describeFidelity(
  'MikroORM fidelity: a create answered with an error leaves no row behind',
  (env) => {
    it('the row of a create whose answer cannot be read is not stored', async () => {
      const code = `${env().mode}-tag`;
      const answer = await env().send('POST', '/tags', { code, name: code });
      const rows = await env().em().count(Tag, { name: code });
      if (answer.status >= 400) assert.equal(rows, 0, `answered ${answer.status} yet stored the row`);
      else assert.equal(rows, 1, JSON.stringify(answer.body));
      if (env().mode === 'fast') assert.equal(answer.status, 500, JSON.stringify(answer.body));
    });
  },
  seedTrigger,
  { catalogue: CATALOGUE, only: ['mariadb'] },
);
