/**
 * A `fixedOrder` many-to-many written through the API stores each link once, in the order given,
 * as MikroORM does for an application that did not load the targets first (the plain mode's key
 * check loaded them, and MikroORM then wrote the pivot from both sides: every link twice). A pivot
 * that holds a pair twice anyway is embedded once, as MikroORM's populate hydrates it. Every
 * target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { EntityProperty } from '@mikro-orm/core';
import type { ModelClass } from '../../../../lib/types.js';
import { Folder, fixedOrderEntities, Sticker } from '../../../fixtures/mikro-orm/fixed-order.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: fixedOrderEntities,
  routes: new Map<ModelClass, string>([
    [Sticker, '/stickers'],
    [Folder, '/folders'],
  ]),
};

await describeFidelity(
  'MikroORM fidelity: a fixedOrder many-to-many',
  (env) => {
    it('stores each link once, in the order given, on create, PATCH and PUT', async () => {
      const ids: number[] = [];
      for (const name of ['a', 'b', 'c']) {
        const sticker = await env().send('POST', '/stickers', { name });
        assert.equal(sticker.status, 201, JSON.stringify(sticker.body));
        ids.push((sticker.body as Json).id as number);
      }
      const [a, b, c] = ids as [number, number, number];
      const pivotRows = async (folder: number): Promise<number> => {
        const meta = env().meta(Folder).properties.stickers as EntityProperty;
        const table = env()
          .adapter.orm.getMetadata()
          .find(meta.pivotEntity as never)?.tableName;
        const rows = (await env()
          .em()
          .getConnection()
          .execute(`select count(*) as n from ${table} where ${meta.joinColumns[0]} = ?`, [folder])) as {
          n: number | string;
        }[];
        return Number(rows[0]?.n);
      };
      const order = async (folder: number): Promise<unknown[]> => {
        const read = await env().send('GET', `/folders/${folder}?include=stickers`);
        assert.equal(read.status, 200, JSON.stringify(read.body));
        return ((read.body as Json).stickers as Json[]).map((sticker) => sticker.id);
      };
      const created = await env().send('POST', '/folders', { title: 'f', stickers: [b, c, a] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const folder = (created.body as Json).id as number;
      assert.equal(await pivotRows(folder), 3);
      assert.deepEqual(await order(folder), [b, c, a]);
      for (const [method, body, expected] of [
        ['PATCH', { stickers: [c, a] }, [c, a]],
        ['PUT', { title: 'g', stickers: [a, b, c] }, [a, b, c]],
      ] as const) {
        const changed = await env().send(method, `/folders/${folder}`, body);
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        assert.equal(await pivotRows(folder), expected.length, method);
        assert.deepEqual(await order(folder), expected, method);
      }
      // As MikroORM's populate: a pair the pivot holds twice is embedded once.
      const meta = env().meta(Folder).properties.stickers as EntityProperty;
      const table = env()
        .adapter.orm.getMetadata()
        .find(meta.pivotEntity as never)?.tableName;
      await env()
        .em()
        .getConnection()
        .execute(
          `insert into ${table} (${meta.joinColumns[0]}, ${meta.inverseJoinColumns[0]}) values (?, ?)`,
          [folder, a],
        );
      const populated = await env()
        .em()
        .findOneOrFail(Folder, folder, { populate: ['stickers'] });
      assert.deepEqual(
        await order(folder),
        populated.stickers.getItems().map((sticker) => sticker.id),
      );
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
