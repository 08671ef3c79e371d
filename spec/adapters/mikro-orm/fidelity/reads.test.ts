/**
 * Differential reads: every record the API sends (GET one, list items) equals MikroORM's own
 * serialization of the same row, on every target and in both modes; default filters, lazy and
 * hidden properties behave as through `em`.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import addFormatsModule from 'ajv-formats';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Bulletin,
  Carrier,
  Memo,
  Shipment,
  Truck,
  Van,
  Vehicle,
} from '../../../fixtures/mikro-orm/fidelity.js';
import { assertSameJson, describeFidelity, type FidelityEnv, idsOf, type Json, routeOf } from './harness.js';
import { seedCatalogue } from './seed.js';

const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

const LEAF_MODELS: readonly ModelClass[] = [Memo, Carrier, Shipment, Truck, Van, Bulletin];

/** Every row MikroORM finds for the model, serialized, by key. */
async function mikroRows(env: FidelityEnv, model: ModelClass): Promise<Map<unknown, Json>> {
  const entities = (await env.em().find(model as never, {}, { orderBy: { id: 'asc' } as never })) as object[];
  return new Map(
    await Promise.all(
      entities.map(
        async (entity) => [(entity as { id: unknown }).id, await env.exactJson(model, entity)] as const,
      ),
    ),
  );
}

async function assertListMatches(env: FidelityEnv, model: ModelClass): Promise<void> {
  const expected = await mikroRows(env, model);
  const answer = await env.send('GET', `${routeOf(model)}?limit=1000&sort=id`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.deepEqual(idsOf(answer.body), [...expected.keys()], `${model.name}: listed ids`);
  assert.equal(answer.headers.get('x-total-count'), String(expected.size), `${model.name}: X-Total-Count`);
  for (const item of answer.body as Json[]) {
    assertSameJson(item, expected.get(item.id), `${model.name} ${String(item.id)} in the list`);
  }
}

await describeFidelity(
  'MikroORM fidelity: reads',
  (env) => {
    for (const model of LEAF_MODELS) {
      it(`GET /{id} of every ${model.name} equals MikroORM's serialization of the row`, async () => {
        const expected = await mikroRows(env(), model);
        assert.ok(expected.size > 0);
        for (const [id, json] of expected) {
          assertSameJson(
            await env().get(`${routeOf(model)}/${String(id)}`),
            json,
            `${model.name} ${String(id)}`,
          );
        }
      });

      it(`every item of the ${model.name} list equals MikroORM's serialization, with its ids and count`, async () => {
        await assertListMatches(env(), model);
      });
    }

    it("the root route of a single-table hierarchy serves each row as MikroORM serializes it, with the root's own fields", async () => {
      await assertListMatches(env(), Vehicle);
      const expected = await mikroRows(env(), Vehicle);
      for (const [id, json] of expected) {
        assertSameJson(await env().get(`${routeOf(Vehicle)}/${String(id)}`), json, `Vehicle ${String(id)}`);
      }
    });

    it('the fast path serves the plain-scalar models in fast mode, and nothing in plain mode', () => {
      const { adapter, mode } = env();
      if (mode === 'fast') {
        assert.equal(adapter.plainReason(Memo), undefined);
        assert.equal(adapter.plainReason(Carrier), undefined);
      } else {
        for (const model of [Memo, Carrier, Shipment, Truck, Bulletin]) assert.ok(adapter.plainReason(model));
      }
    });

    it('a default filter hides archived bulletins from list, count and GET, as em.find does', async () => {
      const hidden = (await env().em().find(Bulletin, { archived: true }, { filters: false })).map(
        (row) => row.id,
      );
      assert.ok(hidden.length > 0);
      const answer = await env().send('GET', `${routeOf(Bulletin)}?limit=1000`);
      const listed = idsOf(answer.body);
      for (const id of hidden) {
        assert.ok(!listed.includes(id), `archived bulletin ${id} is listed`);
        assert.equal((await env().send('GET', `${routeOf(Bulletin)}/${id}`)).status, 404);
      }
      assert.equal(answer.headers.get('x-total-count'), String(await env().em().count(Bulletin, {})));
    });

    it('lazy text is left out of GET and lists, and sent when named in fields=', async () => {
      const rows = await env()
        .em()
        .find(Shipment, {}, { populate: ['manifest'], orderBy: { id: 'asc' } });
      const one = await env().get(`${routeOf(Shipment)}/${rows[0]?.id}`);
      assert.ok(!('manifest' in one), 'GET sends the lazy field');
      const list = await env().get<Json[]>(`${routeOf(Shipment)}?sort=id`);
      assert.ok(
        list.every((item) => !('manifest' in item)),
        'a list sends the lazy field',
      );
      const named = await env().get<Json[]>(`${routeOf(Shipment)}?sort=id&fields=id,manifest`);
      assert.deepEqual(
        named,
        rows.map((row) => ({ id: row.id, manifest: row.manifest ?? null })),
      );
    });

    it('GET /{id}?fields= selects like a list, and sends a lazy field when it names it', async () => {
      const rows = await env()
        .em()
        .find(Shipment, {}, { populate: ['manifest'], orderBy: { id: 'asc' } });
      assert.ok(
        rows.some((row) => row.manifest !== null && row.manifest !== undefined),
        'a manifest is seeded',
      );
      for (const row of rows) {
        const path = `${routeOf(Shipment)}/${row.id}`;
        const json = env().json(Shipment, row);
        assert.deepEqual(await env().get(`${path}?fields=id,manifest`), {
          id: row.id,
          manifest: row.manifest ?? null,
        });
        // Declaration order, as MikroORM serializes, whatever order fields= names them in.
        assert.deepEqual(
          JSON.stringify(await env().get(`${path}?fields=tracking,manifest`)),
          JSON.stringify({ tracking: json.tracking, manifest: row.manifest ?? null }),
        );
        assert.deepEqual(await env().get(`${path}?fields=address`), { address: json.address });
      }
    });

    it('fields= takes serialized names and embedded objects, and answers with exactly those keys', async () => {
      const rows = await env()
        .em()
        .find(Shipment, {}, { orderBy: { id: 'asc' } });
      const named = await env().get<Json[]>(
        `${routeOf(Shipment)}?sort=id&fields=id,tracking,address,doubleWeight`,
      );
      assert.deepEqual(
        named,
        rows.map((row) => {
          const json = env().json(Shipment, row);
          // (no bigint beyond 2^53 among the fields selected here)
          return {
            id: json.id,
            tracking: json.tracking,
            address: json.address,
            doubleWeight: json.doubleWeight,
          };
        }),
      );
    });

    it('every answer of a selection, included records too, validates against the declared schema', async () => {
      const doc = await env().get<Json>('/openapi.json');
      const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
      addFormats(ajv);
      ajv.addSchema({ ...doc, $id: 'https://koa-model-api.test/fidelity' });
      const answerOf = (path: string) =>
        ajv.compile({
          $ref: `https://koa-model-api.test/fidelity#/paths/${path.replaceAll('/', '~1')}/get/responses/200/content/application~1json/schema`,
        });
      const list = answerOf(routeOf(Shipment));
      const one = answerOf(`${routeOf(Shipment)}/{id}`);
      const ids = idsOf(await env().get<Json[]>(`${routeOf(Shipment)}?sort=id&fields=id`));
      const selections = [
        'fields=id,manifest',
        'fields=tracking,address',
        'include=carrier',
        'include=carrier&fields=id,carrier.name',
        'include=carrier&fields=manifest,carrier.id',
      ];
      for (const query of selections) {
        const rows = await env().get<Json[]>(`${routeOf(Shipment)}?sort=id&${query}`);
        assert.ok(list(rows), `GET ${routeOf(Shipment)}?${query}: ${JSON.stringify(list.errors)}`);
        for (const id of ids) {
          const path = `${routeOf(Shipment)}/${String(id)}?${query}`;
          assert.ok(one(await env().get(path)), `GET ${path}: ${JSON.stringify(one.errors)}`);
        }
      }
      assert.ok(ids.length > 0);
      // A lazy field read again by key keeps what the include needs: the carrier is embedded.
      const embedded = await Promise.all(
        ids.map((id) =>
          env().get(`${routeOf(Shipment)}/${String(id)}?include=carrier&fields=manifest,carrier.name`),
        ),
      );
      assert.ok(embedded.some((record) => typeof record.carrier === 'object' && record.carrier !== null));
      for (const record of embedded) {
        assert.deepEqual(Object.keys(record).sort(), ['carrier', 'manifest']);
        if (record.carrier !== null) assert.deepEqual(Object.keys(record.carrier as Json), ['name']);
      }
      assert.equal(
        (await env().send('GET', `${routeOf(Shipment)}/${String(ids[0])}?fields=id,secret`)).status,
        400,
      );
    });

    it('hidden properties appear in no response, and cannot be filtered, sorted or selected', async () => {
      const list = await env().get<Json[]>(`${routeOf(Shipment)}?sort=id`);
      assert.ok(list.length > 0 && list.every((item) => !('secret' in item)));
      for (const query of ['filter[secret]=hidden-1', 'sort=secret', 'fields=id,secret']) {
        assert.equal((await env().send('GET', `${routeOf(Shipment)}?${query}`)).status, 400, query);
      }
    });

    it('the property name of a serializedName property is not a field of the API', async () => {
      for (const query of ['filter[trackingNo]=TR-100', 'sort=trackingNo', 'fields=id,trackingNo']) {
        assert.equal((await env().send('GET', `${routeOf(Shipment)}?${query}`)).status, 400, query);
      }
    });
  },
  seedCatalogue,
);
