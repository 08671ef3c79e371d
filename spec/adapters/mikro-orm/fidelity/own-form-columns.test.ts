/**
 * String properties in columns that store a value in their own form (fidelity round 12), and an
 * `xml` column PostgreSQL cannot compare (no filter, no sort: a 400 where em.find fails): PostgreSQL's
 * `inet`, `macaddr` and `money`, MariaDB's `uuid`, `inet6`, `enum(…)` and `set(…)`. The answer to a
 * create and to an update is what a fresh read gives (`"192.168.0.1/32"` is stored `192.168.0.1`),
 * in both modes: the plain mode, which answered with the entity after flush (the client's text),
 * reads such a row back, as the fast path did. PostgreSQL and MariaDB.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import { buildPlan } from '../../../../adapters/mikro-orm/plan.js';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';
import { defaultTableName } from '../../../../lib/model/table-name.js';
import type { ModelClass } from '../../../../lib/types.js';
import { assertAnswersAreStored, type Catalogue, describeFidelity } from './harness.js';

/** A model of nullable string properties with these column types. */
function model(
  name: string,
  columns: Readonly<Record<string, string>>,
): { model: ModelClass; schema: EntitySchema } {
  const cls = { [name]: class extends FrameworkModel {} }[name] as unknown as ModelClass;
  const properties: Record<string, object> = { id: { type: 'integer', primary: true } };
  for (const [prop, columnType] of Object.entries(columns))
    properties[prop] = { type: 'string', columnType, nullable: true };
  return {
    model: cls,
    schema: new EntitySchema({ class: cls as never, properties: properties as never }),
  };
}

const Address = model('Address', {
  ip: 'inet',
  mac: 'macaddr',
  price: 'money',
  label: 'varchar(20)',
  note: 'xml',
});
const Device = model('Device', {
  serial: 'uuid',
  ip: 'inet6',
  grade: "enum('a','b')",
  perks: "set('x','y')",
  label: 'varchar(20)',
});

function catalogue(...entries: { model: ModelClass; schema: EntitySchema }[]): Catalogue {
  return {
    entities: entries.map((entry) => entry.schema),
    routes: new Map(entries.map((entry) => [entry.model, `/${defaultTableName(entry.model.name)}`] as const)),
  };
}

await describeFidelity(
  'MikroORM fidelity: columns that store a string in their own form (PostgreSQL)',
  (env) => {
    it('Address: inet, macaddr and money answer as stored; a varchar alone needs no read-back', async () => {
      assert.match(
        buildPlan(env().adapter.orm, Address.model).readBack ?? '',
        /Address\.ip is held in a inet column/,
      );
      await assertAnswersAreStored(
        env(),
        Address.model,
        { ip: '192.168.0.1/32', mac: 'AA:BB:CC:DD:EE:FF', price: '12.34', label: 'x' },
        { ip: '10.0.0.1/32', mac: '01:02:03:0A:0B:0C', price: '5' },
      );
    });

    it('Address: an xml column, which PostgreSQL can neither compare nor order, is no filter nor sort key (400, not 500)', async () => {
      const route = env().routeOf(Address.model);
      const created = await env().send('POST', route, { note: '<a>x</a>' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      for (const query of ['filter[note]=%3Ca%3Ex%3C%2Fa%3E', 'sort=note', 'filter[note][$exists]=true']) {
        const answer = await env().send('GET', `${route}?${query}`);
        assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      }
      assert.equal((await env().send('GET', `${route}?filter[label]=x`)).status, 200);
    });
  },
  undefined,
  { catalogue: catalogue(Address), only: ['postgresql'] },
);

await describeFidelity(
  'MikroORM fidelity: columns that store a string in their own form (MariaDB)',
  (env) => {
    it('Device: uuid, inet6, enum(…) and set(…) answer as stored', async () => {
      assert.match(
        buildPlan(env().adapter.orm, Device.model).readBack ?? '',
        /Device\.serial is held in a uuid column/,
      );
      await assertAnswersAreStored(
        env(),
        Device.model,
        { serial: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', ip: '::FFFF:1.2.3.4', grade: 'A', perks: 'y,x' },
        { serial: 'B0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12', grade: 'B', perks: 'y' },
      );
    });
  },
  undefined,
  { catalogue: catalogue(Device), only: ['mariadb'] },
);
