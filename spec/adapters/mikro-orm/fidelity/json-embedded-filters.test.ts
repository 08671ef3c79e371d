/**
 * Filters on the fields of an `object: true` embeddable (one JSON column), where MikroORM compares
 * `json_extract(…)` with the value: every filter either finds the records whose value passes it,
 * checked here against the stored data and against `em.find`, or is a 400 invalid_query giving the
 * reason, and the OpenAPI document offers exactly the filters taken (adapters/mikro-orm/json-filters.ts).
 * On MariaDB a JSON null is no SQL null and a list of strings is compared with the quoted JSON
 * text; a date-time is stored as ISO text the driver does not send (MariaDB, SQLite); a decimal is a
 * JSON string compared character by character; PostgreSQL refuses a number compared as text where
 * MikroORM left out the cast (`p.integer()`). Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { defineEntity, p } from '@mikro-orm/core';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';
import { filterOperatorsOf } from '../../../../lib/query/list-query.js';
import type { FieldDescription, FilterOperator, ModelClass } from '../../../../lib/types.js';
import { Rig, RigSpec } from '../../../fixtures/mikro-orm/fidelity.js';
import { type Catalogue, describeFidelity, type FidelityEnv, idsOf, type Json } from './harness.js';

/** Table `meters`: an `object: true` embeddable declared with type classes (`p.integer()`), which MikroORM does not cast on PostgreSQL. */
class Meter extends FrameworkModel {}
class MeterSpec {}
const MeterSpecSchema = defineEntity({
  class: MeterSpec,
  embeddable: true,
  properties: { count: p.integer(), on: p.boolean().nullable() },
});
const MeterSchema = defineEntity({
  class: Meter,
  properties: { id: p.integer().primary(), spec: () => p.embedded(MeterSpec).object().nullable() },
});

/** Table `docks`: RigSpec nested inline inside an `object: true` embeddable, `spec.inner`. */
class Dock extends FrameworkModel {}
class DockSpec {}
const DockSpecSchema = defineEntity({
  class: DockSpec,
  embeddable: true,
  properties: { level: p.integer(), inner: () => p.embedded(RigSpec).nullable() },
});
const DockSchema = defineEntity({
  class: Dock,
  properties: { id: p.integer().primary(), spec: () => p.embedded(DockSpec).object().nullable() },
});

const CATALOGUE: Catalogue = {
  entities: [Rig, RigSpec, MeterSchema, MeterSpecSchema, DockSchema, DockSpecSchema],
  routes: new Map<ModelClass, string>([
    [Rig, '/rigs'],
    [Meter, '/meters'],
    [Dock, '/docks'],
  ]),
};

const RIGS: readonly (Json | null)[] = [
  {
    arch: 'arm',
    label: 'abc',
    released: '2020-01-31',
    cores: 2,
    boost: 5,
    fast: true,
    built: '2020-01-01T00:00:00.000Z',
    price: '1.50',
  },
  {
    arch: 'x86',
    label: 'null',
    released: '2021-05-05',
    cores: 4,
    boost: 0,
    fast: false,
    built: '2021-01-01T10:00:00.000Z',
    price: '10.00',
  },
  {
    arch: 'x86',
    label: null,
    released: null,
    cores: 8,
    boost: null,
    fast: null,
    built: null,
    price: '9.50',
  },
  null,
];

const METERS: readonly (Json | null)[] = [
  { count: 1, on: true },
  { count: 3, on: false },
  { count: 5, on: null },
  null,
];

/** The filters tried: `[field, operator, value as sent]`. */
const RIG_FILTERS: readonly (readonly [string, FilterOperator, string])[] = [
  ['released', '$eq', '2020-01-31'],
  ['released', '$in', '2020-01-31,2021-05-05'],
  ['released', '$nin', '2020-01-31'],
  ['released', '$ne', '2020-01-31'],
  ['released', '$gt', '2020-06-01'],
  ['released', '$exists', 'false'],
  ['released', '$exists', 'true'],
  ['arch', '$eq', 'arm'],
  ['arch', '$ne', 'arm'],
  ['arch', '$in', 'arm,x86'],
  ['arch', '$nin', 'arm'],
  ['label', '$eq', 'abc'],
  ['label', '$eq', 'null'],
  ['label', '$ne', 'abc'],
  ['label', '$gt', 'a'],
  ['label', '$like', '%'],
  ['label', '$like', 'nu%'],
  ['cores', '$gt', '2'],
  ['cores', '$in', '2,4'],
  ['cores', '$nin', '2'],
  ['boost', '$eq', '5'],
  ['boost', '$eq', '0'],
  ['boost', '$in', '5,7'],
  ['boost', '$lt', '6'],
  ['boost', '$exists', 'false'],
  ['fast', '$eq', 'true'],
  ['fast', '$eq', 'false'],
  ['fast', '$ne', 'true'],
  ['built', '$eq', '2020-01-01T00:00:00.000Z'],
  ['built', '$gt', '2020-06-01T00:00:00.000Z'],
  ['built', '$exists', 'true'],
  ['price', '$eq', '1.50'],
  ['price', '$gt', '9.00'],
  ['price', '$in', '1.50,9.50'],
];

const METER_FILTERS: readonly (readonly [string, FilterOperator, string])[] = [
  ['count', '$eq', '3'],
  ['count', '$gt', '2'],
  ['count', '$exists', 'true'],
  ['on', '$eq', 'true'],
  ['on', '$eq', 'false'],
  ['on', '$exists', 'false'],
];

/** A value as the field's kind compares it (a date-time by its instant, a decimal by its number). */
function comparable(field: FieldDescription, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (field.type === 'datetime') return Date.parse(String(value));
  if (field.type === 'decimal' || field.type === 'integer') return Number(value);
  if (field.type === 'boolean') return value === true || value === 'true';
  return value;
}

/** Whether a stored value passes the filter, by SQL's rules (a null passes only `$exists=false`). */
function passes(field: FieldDescription, stored: unknown, op: FilterOperator, raw: string): boolean {
  if (op === '$exists') return (raw === 'true') === (stored !== null && stored !== undefined);
  const value = comparable(field, stored);
  if (value === null) return false;
  const operand = comparable(field, raw);
  const list = raw.split(',').map((item) => comparable(field, item));
  const order = (value as number) < (operand as number) ? -1 : value === operand ? 0 : 1;
  switch (op) {
    case '$eq':
      return value === operand;
    case '$ne':
      return value !== operand;
    case '$in':
      return list.includes(value);
    case '$nin':
      return !list.includes(value);
    case '$gt':
      return order > 0;
    case '$lt':
      return order < 0;
    case '$like':
      return new RegExp(`^${raw.replaceAll('%', '.*')}$`).test(String(value));
    default:
      throw new Error(`no rule for ${op}`);
  }
}

/** The `em.find` condition of a filter on `<path>.<name>`. */
function whereOf(
  field: FieldDescription,
  path: readonly string[],
  name: string,
  op: FilterOperator,
  raw: string,
): object {
  const typed = (text: string): unknown =>
    field.type === 'datetime'
      ? new Date(text)
      : field.type === 'integer'
        ? Number(text)
        : field.type === 'boolean'
          ? text === 'true'
          : text;
  const condition =
    op === '$exists'
      ? raw === 'true'
        ? { $ne: null }
        : null
      : op === '$eq'
        ? typed(raw)
        : op === '$in' || op === '$nin'
          ? { [op]: raw.split(',').map(typed) }
          : op === '$like'
            ? { $like: raw }
            : { [op]: typed(raw) };
  return path.reduceRight<object>((inner, step) => ({ [step]: inner }), { [name]: condition });
}

/** A row's values as `em.create` takes them, at `path` below `spec` (a date-time as a Date). */
function specOf(values: Json | null, path: readonly string[]): unknown {
  if (values === null) return null;
  const typed = { ...values, ...(values.built ? { built: new Date(String(values.built)) } : {}) };
  return path.slice(1).reduceRight<Json>((inner, step, level) => ({ level, [step]: inner }), typed);
}

/** Rows as given, after emptying the table: `em.create` writes every key, null included (a JSON null). */
async function seedRows(
  env: FidelityEnv,
  model: ModelClass,
  rows: readonly (Json | null)[],
  path: readonly string[],
): Promise<unknown[]> {
  const em = env.em();
  await em.nativeDelete(model as never, {});
  const entities = rows.map((values) => em.create(model as never, { spec: specOf(values, path) } as never));
  await em.flush();
  return entities.map((entity) => (entity as { id: unknown }).id);
}

/** Whether the field's description takes the filter (its kind and its `filterLimit`). */
function takes(field: FieldDescription, op: FilterOperator, raw: string): boolean {
  if (!filterOperatorsOf(field).includes(op)) return false;
  if (op === '$exists' || op === '$like') return true;
  const refused = field.filterLimit?.values ?? [];
  return !raw.split(',').some((item) => refused.includes(comparable(field, item) as never));
}

/** Checks every filter on one model: the right records where taken, a 400 with the reason where not. */
async function checkFilters(
  env: FidelityEnv,
  model: ModelClass,
  route: string,
  rows: readonly (Json | null)[],
  filters: readonly (readonly [string, FilterOperator, string])[],
  path: readonly string[] = ['spec'],
): Promise<{ refused: string[] }> {
  const ids = await seedRows(env, model, rows, path);
  const [head, ...rest] = path;
  let spec = env.adapter.describe(model).fieldsByName.get(head as string);
  for (const step of rest) spec = spec?.fields?.find((inner) => inner.name === step);
  const refused: string[] = [];
  const prefix = path.join('.');
  for (const [name, op, raw] of filters) {
    const field = spec?.fields?.find((inner) => inner.name === name) as FieldDescription;
    const query = `filter[${prefix}.${name}][${op}]=${encodeURIComponent(raw)}`;
    const answer = await env.send('GET', `${route}?${query}&sort=id`);
    if (takes(field, op, raw)) {
      const expected = ids.filter((_, i) => {
        const stored = rows[i];
        return stored === null || stored === undefined
          ? op === '$exists' && raw === 'false'
          : passes(field, stored[name], op, raw);
      });
      assert.equal(answer.status, 200, `${query}: ${JSON.stringify(answer.body)}`);
      assert.deepEqual(idsOf(answer.body), expected, `${query}: the records whose value passes`);
      // MikroORM agrees where the API answers ($like is the adapter's own SQL).
      if (op !== '$like')
        assert.deepEqual(
          await env.mikroIds(model, whereOf(field, path, name, op, raw), { id: 'asc' }),
          expected,
          query,
        );
    } else {
      refused.push(query);
      assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      const body = answer.body as { code?: string; detail?: string };
      assert.equal(body.code, 'invalid_query', query);
      assert.ok(body.detail?.startsWith(`filter[${prefix}.${name}]`), `${query}: ${body.detail}`);
      assert.ok(body.detail?.includes(field.filterLimit?.reason ?? '\u0000'), `${query}: ${body.detail}`);
    }
  }
  return { refused };
}

/** The operators the OpenAPI document offers on each `filter[spec.…]` parameter. */
async function documented(env: FidelityEnv, route: string): Promise<Map<string, string[]>> {
  const doc = await env.get<{ paths: Record<string, { get: { parameters: Json[] } }> }>('/openapi.json');
  const parameters = doc.paths[route]?.get.parameters ?? [];
  return new Map(
    parameters
      .filter((parameter) => String(parameter.name ?? '').startsWith('filter[spec.'))
      .map((parameter) => [
        String(parameter.name),
        Object.keys((parameter.schema as { properties: Json }).properties),
      ]),
  );
}

await describeFidelity(
  'MikroORM fidelity: filters on the fields of an object: true embeddable',
  (env) => {
    it('find the records whose value passes, or are a 400 giving the reason', async () => {
      const e = env();
      const { refused } = await checkFilters(e, Rig, '/rigs', RIGS, RIG_FILTERS);
      // What each database answers wrongly (json-filters.ts), as the probe found it on MariaDB.
      const expected: Record<string, string[]> = {
        'sqlite-memory': ['built', 'built', 'price'],
        postgresql: ['price'],
        mariadb: [
          'released',
          'released',
          'released',
          'released',
          'released',
          'released',
          'arch',
          'arch',
          'label',
          'label',
          'label',
          'boost',
          'boost',
          'boost',
          'fast',
          'fast',
          'built',
          'built',
          'built',
          'price',
          'price',
        ],
      };
      assert.deepEqual(
        refused.map((query) => /^filter\[spec\.(\w+)\]/.exec(query)?.[1]),
        expected[e.target],
        refused.join('\n'),
      );
    });

    it('hold alike for an embeddable nested inside the JSON (`spec.inner.cores`), as em.find filters it', async () => {
      const e = env();
      const rig = await checkFilters(e, Rig, '/rigs', RIGS, RIG_FILTERS);
      const dock = await checkFilters(e, Dock, '/docks', RIGS, RIG_FILTERS, ['spec', 'inner']);
      assert.deepEqual(
        dock.refused,
        rig.refused.map((query) => query.replace('filter[spec.', 'filter[spec.inner.')),
      );
    });

    it('on a field MikroORM compares uncast (PostgreSQL), only $exists', async () => {
      const e = env();
      const { refused } = await checkFilters(e, Meter, '/meters', METERS, METER_FILTERS);
      const expected: Record<string, string[]> = {
        'sqlite-memory': [],
        postgresql: ['count', 'count', 'on', 'on'],
        mariadb: ['on', 'on'],
      };
      assert.deepEqual(
        refused.map((query) => /^filter\[spec\.(\w+)\]/.exec(query)?.[1]),
        expected[e.target],
        refused.join('\n'),
      );
    });

    it('the OpenAPI document offers exactly the filters taken', async () => {
      const e = env();
      for (const [model, route, path] of [
        [Rig, '/rigs', 'spec'],
        [Meter, '/meters', 'spec'],
        [Dock, '/docks', 'spec.inner'],
      ] as const) {
        const offered = await documented(e, route);
        const fields =
          path === 'spec'
            ? e.adapter.describe(model).fieldsByName.get('spec')?.fields
            : e.adapter
                .describe(model)
                .fieldsByName.get('spec')
                ?.fields?.find((field) => field.name === 'inner')?.fields;
        assert.ok(fields !== undefined && fields.length > 0, path);
        for (const field of fields) {
          const ops = filterOperatorsOf(field);
          const name = `filter[${path}.${field.name}]`;
          // A field no filter is taken on has no parameter.
          assert.deepEqual(offered.get(name), ops.length === 0 ? undefined : ops, name);
        }
      }
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
