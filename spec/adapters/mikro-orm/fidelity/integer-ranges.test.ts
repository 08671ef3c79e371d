/**
 * Integer fields take the range of the column MikroORM makes (regression: every integer was held to
 * the signed 32-bit range, so MariaDB's `INT UNSIGNED` refused 3000000000 that MikroORM stores, and
 * PostgreSQL's smallint let 40000 through to a database error answered as a 422 naming no field).
 * On each target and in both modes: both bounds are accepted and stored as MikroORM stores them
 * (read back through a fresh EntityManager), one past either bound is a 422 naming the field, on the
 * servers MikroORM itself cannot store it, and the OpenAPI document shows the range. SQLite does not
 * bound a column by its declared type: the 32-bit default stays there.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { dialectOf } from '../../../../adapters/mikro-orm/dialect.js';
import type { FieldDescription, ModelClass } from '../../../../lib/types.js';
import { Dial, Gauge } from '../../../fixtures/mikro-orm/integer-ranges.js';
import { assertSameJson, type Catalogue, describeFidelity, type FidelityEnv, type Json } from './harness.js';

type Range = readonly [minimum: number, maximum: number];

const I8: Range = [-128, 127];
const U8: Range = [0, 255];
const I16: Range = [-32768, 32767];
const U16: Range = [0, 65535];
const I24: Range = [-8388608, 8388607];
const U24: Range = [0, 16777215];
const I32: Range = [-2147483648, 2147483647];
const U32: Range = [0, 4294967295];

/** The range of each integer field per dialect (dotted for an embedded field); SQLite: all 32-bit. */
const RANGES: Readonly<Record<'postgresql' | 'mysql', Readonly<Record<string, Range>>>> = {
  postgresql: {
    id: I32,
    int: I32,
    int_unsigned: I32,
    small: I16,
    small_unsigned: I16,
    // MikroORM makes a tinyint a smallint on PostgreSQL.
    tiny: I16,
    tiny_unsigned: I16,
    small_column: I16,
    int_column: I32,
    parent: I32,
    'inline.low': I16,
    'json.low': I32,
  },
  mysql: {
    // MikroORM makes numeric primary keys, and the foreign keys to them, unsigned.
    id: U32,
    int: I32,
    int_unsigned: U32,
    small: I16,
    small_unsigned: U16,
    tiny: I8,
    tiny_unsigned: U8,
    small_column: I16,
    int_column: I32,
    parent: U32,
    'inline.low': U16,
    // Inside a JSON column: no column bounds it.
    'json.low': I32,
    medium: I24,
    medium_unsigned: U24,
  },
};

/** The fields written one at a time, per model. */
const WRITTEN: ReadonlyMap<ModelClass, readonly string[]> = new Map<ModelClass, readonly string[]>([
  [
    Gauge,
    ['int', 'int_unsigned', 'small', 'small_unsigned', 'tiny', 'tiny_unsigned', 'small_column', 'int_column'],
  ],
  [Dial, ['medium', 'medium_unsigned']],
]);

function dialect(env: FidelityEnv): 'sqlite' | 'postgresql' | 'mysql' {
  const found = dialectOf(env.adapter.orm.em.getPlatform());
  assert.ok(found !== 'other');
  return found;
}

/** The expected range of a field on the env's database; `described` says whether the adapter gives it. */
function rangeOf(env: FidelityEnv, name: string): { range: Range; described: boolean } {
  const which = dialect(env);
  if (which === 'sqlite') return { range: I32, described: false };
  const range = RANGES[which][name];
  assert.ok(range !== undefined, `${name} has an expected range on ${which}`);
  return { range, described: name !== 'json.low' };
}

function fieldOf(env: FidelityEnv, model: ModelClass, path: string): FieldDescription {
  const [name, nested] = path.split('.') as [string, string | undefined];
  const top = env.adapter.describe(model).fieldsByName.get(name);
  const found = nested === undefined ? top : top?.fields?.find((inner) => inner.name === nested);
  assert.ok(found !== undefined, `${model.name}.${path} is described`);
  return found;
}

/** Whether a 422 answer has an `errors` entry whose path is the field. */
function namesField(body: unknown, path: string): boolean {
  const errors = (body as { errors?: { path: string }[] }).errors ?? [];
  return errors.some((error) => error.path === path);
}

/** POSTs a value and checks the answer, the row MikroORM reads and its JSON; the new id. */
async function assertStored(env: FidelityEnv, model: ModelClass, body: Json, read: (row: Json) => unknown) {
  const route = env.routeOf(model);
  const expected = read(body);
  const answer = await env.send('POST', route, body);
  assert.equal(answer.status, 201, `POST ${JSON.stringify(body)}: ${JSON.stringify(answer.body)}`);
  const record = answer.body as Json;
  assert.equal(read(record), expected, 'the answer holds the value');
  const entity = (await env.em().findOne(model as never, record.id as never)) as Json | null;
  assert.ok(entity !== null);
  assert.equal(read(entity), expected, 'MikroORM reads the value stored');
  assertSameJson(await env.get(`${route}/${String(record.id)}`), await env.mikroJson(model, record.id));
  return record.id;
}

/** Whether MikroORM itself stores the value (inserting it through a fresh EntityManager). */
async function mikroStores(env: FidelityEnv, model: ModelClass, data: Json): Promise<boolean> {
  try {
    await env.em().insert(model as never, data as never);
    return true;
  } catch {
    return false;
  }
}

function rangeTests(model: ModelClass) {
  return (env: () => FidelityEnv) => {
    const route = () => env().routeOf(model);

    it(`${model.name}: the description carries each column's range where the database bounds it`, () => {
      for (const name of WRITTEN.get(model) ?? []) {
        const field = fieldOf(env(), model, name);
        const { range, described } = rangeOf(env(), name);
        assert.deepEqual(
          [field.minimum, field.maximum],
          described ? [...range] : [undefined, undefined],
          `${model.name}.${name}`,
        );
      }
    });

    for (const name of WRITTEN.get(model) ?? []) {
      it(`${model.name}.${name}: both bounds are stored as MikroORM stores them`, async () => {
        const [minimum, maximum] = rangeOf(env(), name).range;
        for (const value of [minimum, maximum])
          await assertStored(env(), model, { [name]: value }, (row) => row[name]);
      });

      it(`${model.name}.${name}: one past either bound is a 422 naming the field, on create and update`, async () => {
        const [minimum, maximum] = rangeOf(env(), name).range;
        const id = await assertStored(env(), model, { [name]: 0 }, (row) => row[name]);
        for (const value of [minimum - 1, maximum + 1]) {
          const created = await env().send('POST', route(), { [name]: value });
          assert.equal(created.status, 422, `POST ${value}: ${JSON.stringify(created.body)}`);
          assert.ok(namesField(created.body, name), JSON.stringify(created.body));
          const updated = await env().send('PATCH', `${route()}/${String(id)}`, { [name]: value });
          assert.equal(updated.status, 422, `PATCH ${value}: ${JSON.stringify(updated.body)}`);
          assert.ok(namesField(updated.body, name), JSON.stringify(updated.body));
          // On the servers the range is the column's: MikroORM cannot store the value either.
          if (dialect(env()) !== 'sqlite') {
            assert.equal(
              await mikroStores(env(), model, { [name]: value }),
              false,
              `MikroORM stores ${value}`,
            );
          }
        }
        assert.equal(
          ((await env().get(`${route()}/${String(id)}`)) as Json)[name],
          0,
          'the record is unchanged',
        );
      });

      it(`${model.name}.${name}: a filter value past the range is a 400, at the bound it matches`, async () => {
        const [, maximum] = rangeOf(env(), name).range;
        const id = await assertStored(env(), model, { [name]: maximum }, (row) => row[name]);
        const found = await env().get<Json[]>(`${route()}?filter[${name}]=${maximum}&limit=1000`);
        assert.ok(
          found.some((row) => row.id === id),
          `filter[${name}]=${maximum} finds the record`,
        );
        const past = await env().send('GET', `${route()}?filter[${name}][$lt]=${maximum + 1}`);
        assert.equal(past.status, 400, JSON.stringify(past.body));
      });
    }

    it(`${model.name}: the OpenAPI document shows each range in the record and body schemas`, async () => {
      const document = await env().get<{ components: { schemas: Record<string, { properties: Json }> } }>(
        '/openapi.json',
      );
      for (const name of WRITTEN.get(model) ?? []) {
        const [minimum, maximum] = rangeOf(env(), name).range;
        for (const schema of [model.name, `${model.name}Create`, `${model.name}Update`]) {
          const property = document.components.schemas[schema]?.properties[name] as Json | undefined;
          assert.deepEqual(
            [property?.minimum, property?.maximum],
            [minimum, maximum],
            `${schema}.${name}: ${JSON.stringify(property)}`,
          );
        }
      }
    });
  };
}

const GAUGES: Catalogue = { entities: [Gauge], routes: new Map<ModelClass, string>([[Gauge, '/gauges']]) };
const DIALS: Catalogue = { entities: [Dial], routes: new Map<ModelClass, string>([[Dial, '/dials']]) };

await describeFidelity(
  'integer ranges',
  (env) => {
    rangeTests(Gauge)(env);

    it('Gauge: a key or a reference takes the range of its column (unsigned on MariaDB)', async () => {
      for (const name of ['id', 'parent']) {
        const field = fieldOf(env(), Gauge, name);
        const { range, described } = rangeOf(env(), name);
        assert.deepEqual(
          [field.minimum, field.maximum],
          described ? [...range] : [undefined, undefined],
          name,
        );
      }
      const [minimum, maximum] = rangeOf(env(), 'id').range;
      // A key no column can hold names no record.
      for (const id of [minimum - 1, maximum + 1])
        assert.equal((await env().send('GET', `/gauges/${id}`)).status, 404, `GET /gauges/${id}`);
    });

    it("Gauge: each key of a many-to-many write takes the range of the target's key (unsigned on MariaDB)", async () => {
      const [minimum, maximum] = rangeOf(env(), 'id').range;
      const document = await env().get<{ components: { schemas: Record<string, { properties: Json }> } }>(
        '/openapi.json',
      );
      for (const schema of ['GaugeCreate', 'GaugeUpdate']) {
        const items = (document.components.schemas[schema]?.properties.peers as Json | undefined)
          ?.items as Json;
        assert.deepEqual([items?.minimum, items?.maximum], [minimum, maximum], schema);
      }
      const id = (await env().send('POST', '/gauges', {})).body as Json;
      const item = `/gauges/${String(id.id)}`;
      for (const key of [minimum - 1, maximum + 1]) {
        const past = await env().send('PATCH', item, { peers: [key] });
        assert.equal(past.status, 422, JSON.stringify(past.body));
        assert.match(JSON.stringify(past.body), /must be [<>]=/, `${key}: a range error, not a lookup`);
      }
      // At the bound: a key the column holds, which names no record.
      const none = await env().send('PATCH', item, { peers: [maximum] });
      assert.equal(none.status, 422, JSON.stringify(none.body));
      assert.doesNotMatch(JSON.stringify(none.body), /must be [<>]=/);
    });

    it('Gauge: an inline embedded field is bounded by its column, an `object: true` one is not', async () => {
      for (const [name, path] of [
        ['inline', 'inline.low'],
        ['json', 'json.low'],
      ] as const) {
        const field = fieldOf(env(), Gauge, path);
        const { range, described } = rangeOf(env(), path);
        assert.deepEqual(
          [field.minimum, field.maximum],
          described ? [...range] : [undefined, undefined],
          path,
        );
        const [minimum, maximum] = range;
        for (const value of [minimum, maximum])
          await assertStored(env(), Gauge, { [name]: { low: value } }, (row) => (row[name] as Json).low);
        const past = await env().send('POST', '/gauges', { [name]: { low: maximum + 1 } });
        assert.equal(past.status, 422, JSON.stringify(past.body));
        assert.ok(namesField(past.body, path), JSON.stringify(past.body));
      }
    });
  },
  undefined,
  { catalogue: GAUGES },
);

// PostgreSQL has no mediumint: MikroORM cannot create the table there.
await describeFidelity('mediumint ranges', rangeTests(Dial), undefined, {
  catalogue: DIALS,
  only: ['sqlite-memory', 'mariadb'],
});
