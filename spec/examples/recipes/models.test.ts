/**
 * The models recipes (docs/models.md): table names, every field kind in JSON and in the OpenAPI
 * document, hidden and protected fields, a natural key, a many-to-one, and a refused composite key.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Enrollment } from '../../../examples/recipes/models/composite.js';
import { City, CitySchema, Country, CountrySchema } from '../../../examples/recipes/models/define-entity.js';
import { Product } from '../../../examples/recipes/models/fields.js';
import {
  ArchivedItem,
  BlogPost,
  Box,
  Category,
  Person,
  Tag,
  User,
} from '../../../examples/recipes/models/naming.js';
import { Application, ConfigurationError, CrudRouter, type ModelClass } from '../../../lib/index.js';
import { serve, type TestServer } from '../../support/http.js';
import { silentLogger } from './support.js';

const named: readonly [ModelClass, string][] = [
  [User, 'users'],
  [Person, 'people'],
  [Category, 'categories'],
  [Box, 'boxes'],
  [BlogPost, 'blog_posts'],
  [Tag, 'labels'],
  [ArchivedItem, 'archived_items'],
  [Product, 'products'],
  [Country, 'countries'],
  [City, 'cities'],
];

let adapter: MikroOrmAdapter;
let app: Application;
let server: TestServer;

before(async () => {
  adapter = await MikroOrmAdapter.connect({
    url: 'sqlite::memory:',
    entities: [
      User,
      Person,
      Category,
      Box,
      BlogPost,
      Tag,
      ArchivedItem,
      Product,
      CountrySchema,
      CitySchema,
      Enrollment,
    ],
    schema: 'create',
  });
  app = new Application({ title: 'Models', adapter, logger: silentLogger });
  for (const [model] of named) new CrudRouter({ model }).register_routes(app);
  server = await serve(app.callback());
});
after(async () => {
  await server?.close();
  await app?.close();
});

describe('table names', () => {
  for (const [model, table] of named) {
    it(`${model.name} → ${table}`, async () => {
      assert.equal(adapter.describe(model).table, table);
      assert.equal((await server.request(`/${table}`)).status, 200);
    });
  }
});

describe('field kinds', () => {
  const input = {
    name: 'Lamp',
    sku: '6f1c1a9e-4b8e-4c53-9a53-8b7f1f0b2c11',
    views: '9007199254740993',
    weight: 1.25,
    price: '19.90',
    released: '2026-11-21',
    restocked_at: '2026-11-21T10:00:00.000Z',
    opens_at: '10:30:00',
    attributes: { colour: 'red', bulbs: [1, 2] },
    size: 'L',
  };

  it('round-trip in their JSON forms; defaults fill what is absent', async () => {
    const response = await server.request('/products', { method: 'POST', json: input });
    assert.equal(response.status, 201);
    const product = (await response.json()) as Record<string, unknown>;
    assert.deepEqual(product, {
      id: product.id,
      description: null,
      stock: 0,
      available: true,
      approved: false,
      ...input,
      // SQLite keeps NUMERIC as REAL: MikroORM's DecimalType reads back 19.9.
      price: '19.9',
    });
    assert.deepEqual(Object.keys(product), [
      'id',
      'name',
      'description',
      'sku',
      'stock',
      'views',
      'weight',
      'price',
      'available',
      'released',
      'restocked_at',
      'opens_at',
      'attributes',
      'size',
      'approved',
    ]);
  });

  it('generate a uuid when the client gives none', async () => {
    const product = (await (
      await server.request('/products', { method: 'POST', json: { name: 'Desk', price: '100' } })
    ).json()) as { sku: string };
    assert.match(product.sku, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it('are documented as the guide says', async () => {
    const document = (await (await server.request('/openapi.json')).json()) as {
      components: {
        schemas: Record<string, { properties: Record<string, Record<string, unknown>>; required?: string[] }>;
      };
    };
    const read = document.components.schemas.Product;
    assert.ok(read);
    const typeOf = (name: string) => {
      const { type, format, pattern } = read.properties[name] ?? {};
      return {
        type,
        ...(format === undefined ? {} : { format }),
        ...(pattern === undefined ? {} : { pattern: 'yes' }),
      };
    };
    assert.deepEqual(typeOf('id'), { type: 'integer' });
    assert.deepEqual(typeOf('name'), { type: 'string', pattern: 'yes' });
    assert.equal(read.properties.name?.maxLength, 100);
    assert.deepEqual(typeOf('description'), { type: ['string', 'null'], pattern: 'yes' });
    assert.deepEqual(typeOf('sku'), { type: 'string', format: 'uuid' });
    assert.deepEqual(typeOf('views'), { type: ['string', 'null'], pattern: 'yes' });
    assert.deepEqual(typeOf('weight'), { type: ['number', 'null'] });
    assert.deepEqual(typeOf('price'), { type: 'string', pattern: 'yes' });
    assert.deepEqual(typeOf('available'), { type: 'boolean' });
    assert.deepEqual(typeOf('released'), { type: ['string', 'null'], format: 'date' });
    assert.deepEqual(typeOf('restocked_at'), { type: ['string', 'null'], format: 'date-time' });
    assert.deepEqual(typeOf('opens_at'), { type: ['string', 'null'], pattern: 'yes' });
    assert.deepEqual(read.properties.attributes, {});
    assert.deepEqual(read.properties.size, { type: 'string', enum: ['S', 'M', 'L'] });
    assert.equal(read.properties.supplier_notes, undefined, 'hidden fields are not documented');

    const create = document.components.schemas.ProductCreate;
    assert.ok(create);
    assert.deepEqual(create.required, ['name', 'price']);
    assert.equal(create.properties.id, undefined, 'a generated key is not writable');
    assert.equal(create.properties.approved, undefined, 'a protected field is not writable');
    assert.equal(create.properties.stock?.default, 0);
  });
});

describe('hidden and protected fields', () => {
  it('a hidden field is never returned and cannot be filtered, sorted or selected', async () => {
    const created = await server.request('/products', {
      method: 'POST',
      json: { name: 'Chair', price: '5', supplier_notes: 'x', approved: true },
    });
    const product = (await created.json()) as Record<string, unknown>;
    assert.equal('supplier_notes' in product, false);
    assert.equal(product.approved, false, 'a protected field is dropped');
    for (const query of ['filter[supplier_notes]=x', 'sort=supplier_notes', 'fields=supplier_notes']) {
      assert.equal((await server.request(`/products?${query}`)).status, 400, query);
    }
  });
});

describe('keys and relations', () => {
  it('a natural key is given on create', async () => {
    const created = await server.request('/countries', {
      method: 'POST',
      json: { code: 'NL', name: 'Netherlands' },
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), '/countries/NL');
    assert.equal(
      (await server.request('/countries', { method: 'POST', json: { name: 'Nowhere' } })).status,
      422,
    );
  });

  it('a natural key is never changed by an update', async () => {
    await server.request('/countries', { method: 'POST', json: { code: 'DK', name: 'Denmark' } });
    const updated = await server.request('/countries/DK', {
      method: 'PUT',
      json: { code: 'SE', name: 'Danmark' },
    });
    assert.deepEqual(await updated.json(), { code: 'DK', name: 'Danmark' });
  });

  it('a many-to-one reads and writes as the referenced key', async () => {
    await server.request('/countries', { method: 'POST', json: { code: 'FR', name: 'France' } });
    const city = await server.request('/cities', { method: 'POST', json: { name: 'Lyon', country: 'FR' } });
    assert.equal(city.status, 201);
    assert.deepEqual(await city.json(), { id: 1, name: 'Lyon', country: 'FR' });
    const listed = await server.request('/cities?filter[country]=FR');
    assert.equal(((await listed.json()) as unknown[]).length, 1);
    const dangling = await server.request('/cities', {
      method: 'POST',
      json: { name: 'Nowhere', country: 'XX' },
    });
    assert.equal(dangling.status, 422);
  });

  it('a composite primary key is refused at registration', () => {
    assert.throws(
      () => new CrudRouter({ model: Enrollment }).register_routes(app),
      (error: unknown) => {
        assert.ok(error instanceof ConfigurationError);
        assert.match(error.message, /composite primary key \(student, course\)/);
        return true;
      },
    );
  });
});
