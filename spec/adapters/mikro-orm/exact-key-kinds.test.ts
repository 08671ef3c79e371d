/**
 * Keys the exact-key rules must not refuse: a decimal key in `mode: 'number'` (an exact column,
 * a number in JS) and a collection whose target is keyed by a custom type (described as `json`).
 */
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Collection, DecimalType } from '@mikro-orm/core';
import { Entity, ManyToOne, OneToMany, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application, CrudRouter } from '../../../lib/index.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { PrefixedCodeType } from '../../fixtures/mikro-orm/custom-keys.js';
import { serve, type TestServer } from '../../support/http.js';

/** Table `ledgers`: keyed by a whole decimal held as a JS number. */
@Entity()
class Ledger extends FrameworkModel {
  @PrimaryKey({ type: new DecimalType('number'), precision: 10, scale: 0 }) id!: number;
  @Property() name!: string;
}

/** Table `yards`: keyed by a custom type, with a one-to-many to its crates. */
@Entity()
class Yard extends FrameworkModel {
  @PrimaryKey({ type: PrefixedCodeType }) code!: string;
  @OneToMany(
    () => Crate,
    (crate) => crate.yard,
  )
  crates = new Collection<Crate>(this);
}

/** Table `crates`. */
@Entity()
class Crate extends FrameworkModel {
  @PrimaryKey() id!: number;
  @ManyToOne(() => Yard) yard!: Yard;
}

describe('exact keys: what is not refused', () => {
  let adapter: MikroOrmAdapter;
  let server: TestServer;
  before(async () => {
    adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: [Ledger, Yard, Crate],
      schema: 'create',
    });
    const app = new Application({ title: 'keys', adapter, health: false });
    for (const model of [Ledger, Yard, Crate]) new CrudRouter({ model }).register_routes(app);
    server = await serve(app.callback());
  });
  after(async () => {
    await server?.close();
    await adapter?.close();
  });

  it('serves a decimal key in number mode', async () => {
    const created = await server.request('/ledgers', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 42, name: 'main' }),
    });
    assert.equal(created.status, 201, await created.clone().text());
    assert.equal(((await (await server.request('/ledgers/42')).json()) as { name: string }).name, 'main');
  });

  it('serves a one-to-many to a target keyed by a custom type', async () => {
    assert.deepEqual(
      adapter.describe(Yard).collections?.map((collection) => [collection.name, collection.targetKeyType]),
      [['crates', 'integer']],
    );
    const yard = await server.request('/yards', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'north' }),
    });
    assert.equal(yard.status, 201, await yard.clone().text());
    const crate = await server.request('/crates', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ yard: 'north' }),
    });
    assert.equal(crate.status, 201, await crate.clone().text());
    const included = (await (await server.request('/yards/north?include=crates')).json()) as {
      crates: unknown[];
    };
    assert.equal(included.crates.length, 1);
  });
});
