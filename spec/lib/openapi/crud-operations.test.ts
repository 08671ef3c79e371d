import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import addFormatsModule from 'ajv-formats';
import { buildModelDescription } from '../../../lib/model/describe.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { OpenApiRegistry } from '../../../lib/openapi/registry.js';
import type { CrudRoutesDoc } from '../../../lib/openapi/types.js';
import { crudDoc, field, personDescription, placeDescription } from './fixtures.js';

const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

type Json = Record<string, unknown>;

/** Reads a nested member of the document, failing the test when a step is missing. */
function at(value: unknown, ...path: string[]): Json {
  let current = value;
  for (const key of path) {
    assert.ok(typeof current === 'object' && current !== null && key in current, `missing ${path.join('.')}`);
    current = (current as Json)[key];
  }
  return current as Json;
}

describe('OpenAPI of embedded objects, arrays, computed and lazy fields', () => {
  const registry = new OpenApiRegistry({ title: 'Places' });
  registry.addCrud(crudDoc(placeDescription()));
  const doc = registry.document();
  const schemas = at(doc, 'components', 'schemas');
  const listParameters = at(doc, 'paths', '/places', 'get').parameters as Json[];
  const parameter = (name: string) => listParameters.find((p) => p.name === name) as Json;

  it('is a valid OpenAPI 3.1 document whose schemas compile as JSON Schema 2020-12', async () => {
    const result = await new Validator().validate(structuredClone(doc) as Json);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addKeyword('components');
    ajv.addSchema({ $id: 'https://koa-model-api.test/places', components: at(doc, 'components') });
    for (const name of Object.keys(schemas)) {
      ajv.compile({ $ref: `https://koa-model-api.test/places#/components/schemas/${name}` });
    }
  });

  it('documents an object field as a nested object schema in responses and bodies', () => {
    assert.equal(at(schemas, 'Place', 'properties', 'address').type, 'object');
    assert.ok('city' in at(schemas, 'Place', 'properties', 'address', 'properties'));
    assert.equal(at(schemas, 'Place', 'properties', 'address', 'properties', 'slug').readOnly, true);
    assert.equal('slug' in at(schemas, 'PlaceCreate', 'properties', 'address', 'properties'), false);
    assert.deepEqual(at(schemas, 'PlaceCreate', 'properties', 'address').required, ['street', 'city']);
    // An update's object merges into the stored one: none of its fields is required.
    assert.equal(at(schemas, 'PlaceUpdate', 'properties', 'address').required, undefined);
    assert.deepEqual(at(schemas, 'Place', 'properties', 'tags', 'items').type, 'string');
  });

  it('marks computed fields readOnly and keeps them out of request bodies', () => {
    assert.equal(at(schemas, 'Place', 'properties', 'label').readOnly, true);
    assert.equal(at(schemas, 'PlaceFields', 'properties', 'label').readOnly, true);
    for (const body of ['PlaceCreate', 'PlaceUpdate']) {
      assert.equal('label' in at(schemas, body, 'properties'), false, body);
      assert.equal('score' in at(schemas, body, 'properties'), false, body);
    }
  });

  it('documents a lazy field in responses, not required, and names it in the fields parameter', () => {
    assert.ok('description' in at(schemas, 'Place', 'properties'));
    assert.equal((at(schemas, 'Place').required as string[]).includes('description'), false);
    assert.match(String(at(schemas, 'Place', 'properties', 'description').description), /fields=/);
    assert.match(String(parameter('fields').description), /Lazy fields \(`description`\)/);
    const selectable = at(parameter('fields'), 'schema', 'items').enum as string[];
    for (const name of ['description', 'score', 'tags', 'address'])
      assert.ok(selectable.includes(name), name);
    assert.equal(selectable.includes('secret'), false);
  });

  it('offers dotted paths of nested scalars to filter, and no object, array or non-queryable field', () => {
    const filterable = listParameters
      .map((p) => /^filter\[(.+)\]$/.exec(String(p.name))?.[1])
      .filter((path): path is string => path !== undefined);
    for (const path of [
      'name',
      'label',
      'address.city',
      'address.geo.lat',
      'billing.iban',
      'billing.since',
    ]) {
      assert.ok(filterable.includes(path), path);
    }
    for (const path of [
      'address',
      'address.geo',
      'address.token',
      'address.notes',
      'tags',
      'score',
      'secret',
    ]) {
      assert.equal(filterable.includes(path), false, path);
    }
    assert.match(
      String(parameter('filter[address.city]').description),
      /`filter\[address\.city\]\[\$op\]=value`/,
    );
  });

  it('offers only top-level queryable fields to sort', () => {
    const keys = at(parameter('sort'), 'schema', 'items').enum as string[];
    assert.ok(keys.includes('label') && keys.includes('-label') && keys.includes('-opened_at'));
    for (const name of ['address', 'tags', 'score', 'secret', 'address.city']) {
      assert.equal(keys.includes(name), false, name);
    }
  });
});

describe('OpenAPI of $like and $ilike', () => {
  const filterOperators = (like?: CrudRoutesDoc['like']) => {
    const registry = new OpenApiRegistry({ title: 'People' });
    registry.addCrud(crudDoc(personDescription(), like === undefined ? {} : { like }));
    const parameters = at(registry.document(), 'paths', '/people', 'get').parameters as Json[];
    return (name: string) => {
      const parameter = parameters.find((p) => p.name === `filter[${name}]`) as Json;
      return Object.keys(at(parameter, 'schema', 'properties'));
    };
  };

  it('offers patterns on bounded text always, and on unbounded text only where the router opted it in', () => {
    const defaults = filterOperators();
    assert.ok(defaults('name').includes('$like') && defaults('name').includes('$ilike'));
    assert.equal(defaults('bio').includes('$like'), false);
    assert.equal(defaults('bio').includes('$ilike'), false);
    const opted = filterOperators({ maxLength: 200, maxWildcards: 6, textFields: new Set(['bio']) });
    assert.ok(opted('bio').includes('$like') && opted('bio').includes('$ilike'));
  });
});

describe('OpenAPI of the bare filter form', () => {
  it('says `filter[f]=value` means $eq where $eq is offered, and not on a JSON field ($exists only)', () => {
    const registry = new OpenApiRegistry({ title: 'People' });
    registry.addCrud(crudDoc(personDescription()));
    const parameters = at(registry.document(), 'paths', '/people', 'get').parameters as Json[];
    const filter = (name: string) => parameters.find((p) => p.name === `filter[${name}]`) as Json;
    assert.deepEqual(Object.keys(at(filter('meta'), 'schema', 'properties')), ['$exists']);
    assert.doesNotMatch(String(filter('meta').description), /short for/);
    assert.match(String(filter('name').description), /`filter\[name\]=value` is short for `\$eq`/);
  });
});

describe('OpenAPI of a field whose filters the database limits (filterLimit)', () => {
  class Box extends FrameworkModel {}
  const reason = 'the database reads a null there as the text null';
  const registry = new OpenApiRegistry({ title: 'Boxes' });
  registry.addCrud(
    crudDoc(
      buildModelDescription({
        model: Box,
        name: 'Box',
        primaryKeys: ['id'],
        fields: [
          field('id', 'integer', { generated: true, hasDefault: true, unique: true }),
          field('specs', 'object', {
            nullable: true,
            fields: [
              field('label', 'string', {
                nullable: true,
                filterLimit: { operators: ['$eq', '$like', '$ilike'], values: ['null'], reason },
              }),
              field('built', 'datetime', { nullable: true, filterLimit: { operators: [], reason } }),
              field('cores', 'integer', { required: true }),
            ],
          }),
        ],
      }),
    ),
  );
  const parameters = at(registry.document(), 'paths', '/boxes', 'get').parameters as Json[];
  const parameter = (name: string) => parameters.find((p) => p.name === `filter[${name}]`);

  it('offers only the operators taken, and says why', () => {
    const label = parameter('specs.label') as Json;
    assert.deepEqual(Object.keys(at(label, 'schema', 'properties')), ['$eq', '$like', '$ilike']);
    assert.match(
      String(label.description),
      /Only these operators, and no value of "null": the database reads a null/,
    );
    assert.ok(Object.keys(at(parameter('specs.cores'), 'schema', 'properties')).includes('$gt'));
  });

  it('has no parameter for a field no filter is taken on', () => {
    assert.equal(parameter('specs.built'), undefined);
  });
});
