/**
 * The OpenAPI document of the fidelity catalogue: embedded values as nested object schemas,
 * computed fields (formula, getter, discriminator) read-only and absent from request bodies,
 * serialized names as property names, lazy fields documented. The document does not depend on
 * the database, so one target (the first of KMA_DATABASES) and both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { assertSameJson, describeFidelity, type Json } from './harness.js';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  readOnly?: boolean;
  $ref?: string;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

interface Document {
  components: { schemas: Record<string, Schema> };
}

function types(schema: Schema | undefined): string[] {
  if (schema === undefined) return [];
  const own = schema.type === undefined ? [] : ([] as string[]).concat(schema.type);
  return [...own, ...(schema.anyOf ?? []).flatMap(types), ...(schema.oneOf ?? []).flatMap(types)];
}

/** The object schema inside a possibly nullable schema. */
function objectPart(schema: Schema | undefined): Schema | undefined {
  if (schema === undefined) return undefined;
  if (schema.properties !== undefined) return schema;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].find((part) => part.properties !== undefined);
}

/** The document of each mode, compared once both are in. */
const documents = new Map<string, Json>();

await describeFidelity(
  'MikroORM fidelity: OpenAPI',
  (env) => {
    async function document(): Promise<Document> {
      return env().get<Document>('/openapi.json') as unknown as Promise<Document>;
    }

    it('embedded values are nested object schemas in records and request bodies', async () => {
      const { schemas } = (await document()).components;
      for (const name of ['Shipment', 'ShipmentCreate', 'ShipmentUpdate']) {
        const schema = schemas[name];
        assert.ok(schema?.properties !== undefined, `${name} is missing`);
        const address = objectPart(schema.properties.address);
        assert.ok(types(schema.properties.address).includes('object'), `${name}.address is not an object`);
        assert.deepEqual(Object.keys(address?.properties ?? {}).sort(), ['city', 'street'], name);
        const dimensions = objectPart(schema.properties.dimensions);
        assert.deepEqual(Object.keys(dimensions?.properties ?? {}).sort(), ['height', 'width'], name);
        assert.ok(types(schema.properties.dimensions).includes('null'), `${name}.dimensions is not nullable`);
      }
      assert.ok(objectPart(schemas.ShipmentCreate?.properties?.address)?.required?.includes('city'));
      assert.ok(schemas.ShipmentCreate?.required?.includes('address'));
    });

    it('formula, getter and discriminator are readOnly in records and absent from request bodies', async () => {
      const { schemas } = (await document()).components;
      for (const [model, field] of [
        ['Shipment', 'doubleWeight'],
        ['Shipment', 'summary'],
        ['Truck', 'kind'],
        ['Van', 'kind'],
      ] as const) {
        assert.equal(schemas[model]?.properties?.[field]?.readOnly, true, `${model}.${field}`);
        for (const body of [`${model}Create`, `${model}Update`]) {
          assert.ok(!(field in (schemas[body]?.properties ?? {})), `${body}.${field} is writable`);
        }
      }
    });

    it('a serializedName is the property name everywhere, the property name nowhere', async () => {
      const { schemas } = (await document()).components;
      for (const name of ['Shipment', 'ShipmentCreate', 'ShipmentUpdate', 'ShipmentFields']) {
        const properties = schemas[name]?.properties ?? {};
        assert.ok('tracking' in properties, `${name} lacks tracking`);
        assert.ok(!('trackingNo' in properties), `${name} has trackingNo`);
      }
      const text = JSON.stringify(await document());
      assert.ok(!text.includes('trackingNo'), 'trackingNo appears in the document');
    });

    it('hidden properties are in no schema; lazy ones are in list items', async () => {
      const { schemas } = (await document()).components;
      for (const [name, schema] of Object.entries(schemas)) {
        if (!name.startsWith('Shipment')) continue;
        assert.ok(!('secret' in (schema.properties ?? {})), `${name} documents secret`);
      }
      assert.ok('manifest' in (schemas.ShipmentFields?.properties ?? {}));
    });

    it('the document is the same in both modes', async () => {
      const doc = (await document()) as unknown as Json;
      const { info: _info, ...rest } = doc;
      documents.set(env().mode, rest);
      if (documents.size === 2) assertSameJson(documents.get('fast'), documents.get('plain'));
    });
  },
  undefined,
  { targets: 1 },
);
