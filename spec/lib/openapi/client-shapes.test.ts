/**
 * The document describes requests the way generated clients send them, and the server accepts
 * exactly that: repeated `sort`/`fields` (openapi-fetch's default for arrays) as well as the
 * comma-separated form, one flat `filter[path]` parameter per field with only the operators the
 * field's type takes, request bodies that allow unknown keys unless the router is strict, and
 * explicit `security: []`, `servers` and tag descriptions for linters.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApiError } from '../../../lib/errors.js';
import { FrameworkModel } from '../../../lib/model/framework-model.js';
import { OpenApiRegistry } from '../../../lib/openapi/registry.js';
import { parseListQuery } from '../../../lib/query/list-query.js';
import { describeFields } from '../../support/model-facts.js';
import { crudDoc, gadgetDescription, personDescription, placeDescription } from './fixtures.js';

type Json = Record<string, unknown>;

/** Walks a JSON value by keys, failing with the path when a step is missing. */
function at(value: unknown, ...keys: string[]): Json {
  let current = value;
  for (const key of keys) {
    assert.ok(current !== null && typeof current === 'object' && key in current, keys.join('.'));
    current = (current as Json)[key];
  }
  return current as Json;
}

class Widget extends FrameworkModel {}
const widget = describeFields(Widget, {
  name: { type: 'string', maxLength: 100 },
  quantity: { type: 'integer', hasDefault: true },
  active: { type: 'boolean' },
  metadata: { type: 'json', nullable: true },
});

describe('list parameters as generated clients send them', () => {
  it('accepts sort and fields repeated, comma-separated, or both, in the order given', () => {
    const repeated = parseListQuery(widget, 'sort=-quantity&sort=name&fields=name&fields=quantity');
    const mixed = parseListQuery(widget, 'sort=-quantity,name&fields=name,quantity');
    for (const query of [repeated, mixed]) {
      assert.deepEqual(query.sort, [
        { field: 'quantity', direction: 'desc' },
        { field: 'name', direction: 'asc' },
        { field: 'id', direction: 'asc' },
      ]);
      assert.deepEqual(query.fields, ['name', 'quantity']);
    }
  });

  it('still refuses a key sorted twice across repetitions, and other repeated parameters', () => {
    const refused = (search: string, pattern: RegExp) =>
      assert.throws(
        () => parseListQuery(widget, search),
        (error: unknown) => error instanceof ApiError && error.status === 400 && pattern.test(error.message),
        search,
      );
    refused('sort=name&sort=-name', /named twice/);
    refused('sort=name&sort=', /empty sort key/);
    refused('filter[name]=a&filter[name]=b', /more than once/);
    refused('offset=1&offset=2', /more than once/);
  });
});

describe('the document generated clients and linters read', () => {
  const registry = new OpenApiRegistry({ title: 'Shapes' });
  registry.addCrud(crudDoc(personDescription()));
  registry.addCrud(crudDoc(gadgetDescription(), { prefix: '/api', strict: true }));
  registry.addCrud(crudDoc(widget, { fieldRules: { name: { minLength: 1, description: 'Not empty.' } } }));
  registry.addCrud(crudDoc(placeDescription()));
  const doc = registry.document();
  const schemas = at(doc, 'components', 'schemas');
  const parameters = (path: string) =>
    new Map((at(doc, 'paths', path, 'get').parameters as Json[]).map((p) => [String(p.name), p]));

  it('has one flat deepObject parameter per filterable field, with the operators its type takes', () => {
    const widgets = parameters('/widgets');
    const operators = (name: string) => Object.keys(at(widgets.get(name), 'schema', 'properties'));
    assert.deepEqual(operators('filter[name]'), [
      '$eq',
      '$ne',
      '$gt',
      '$gte',
      '$lt',
      '$lte',
      '$in',
      '$nin',
      '$like',
      '$ilike',
      '$exists',
    ]);
    assert.deepEqual(operators('filter[active]'), ['$eq', '$ne', '$in', '$nin', '$exists']);
    assert.deepEqual(operators('filter[metadata]'), ['$exists']);
    assert.equal(at(widgets.get('filter[active]'), 'schema', 'properties', '$eq').type, 'boolean');
    assert.equal(at(widgets.get('filter[name]'), 'schema', 'additionalProperties'), false);
    assert.ok(parameters('/places').has('filter[address.city]'));
  });

  it('leaves additionalProperties open in the bodies of lenient routers only', () => {
    for (const name of ['PersonCreate', 'PersonUpdate', 'PlaceCreate']) {
      assert.equal('additionalProperties' in at(schemas, name), false, name);
    }
    assert.equal('additionalProperties' in at(schemas, 'PlaceCreate', 'properties', 'address'), false);
    for (const name of ['GadgetCreate', 'GadgetUpdate']) {
      assert.equal(at(schemas, name).additionalProperties, false, name);
    }
    assert.equal(at(schemas, 'Person').additionalProperties, false, 'responses stay closed');
  });

  it('merges the rules plugins enforce into the write schemas', () => {
    for (const name of ['WidgetCreate', 'WidgetUpdate']) {
      assert.equal(at(schemas, name, 'properties', 'name').minLength, 1, name);
      assert.equal(at(schemas, name, 'properties', 'name').maxLength, 100, name);
    }
    assert.equal('minLength' in at(schemas, 'Widget', 'properties', 'name'), false);
  });

  it('marks public operations with security: [] and names a relative server and a description', () => {
    assert.deepEqual(at(doc, 'paths', '/widgets', 'get').security, []);
    assert.deepEqual(at(doc, 'paths', '/widgets/{id}', 'delete').security, []);
    assert.deepEqual(doc.servers, [{ url: '/', description: 'The server that serves this document.' }]);
    assert.equal(at(doc, 'info').description, 'The Shapes API.');
  });

  it('passes the license, contact and servers the application gives', () => {
    const named = new OpenApiRegistry({
      title: 'Named',
      description: 'Ours.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { email: 'api@example.org' },
      servers: [{ url: 'https://api.example.org/v1' }],
    }).document();
    assert.deepEqual(at(named, 'info'), {
      title: 'Named',
      version: '1.0.0',
      description: 'Ours.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { email: 'api@example.org' },
    });
    assert.deepEqual(named.servers, [{ url: 'https://api.example.org/v1' }]);
  });

  it('describes the tags plugins name without a description', () => {
    const withPlugin = new OpenApiRegistry({ title: 'Plugins' });
    withPlugin.addOperation({
      method: 'post',
      path: '/ping',
      operation: { tags: ['health_checks'], responses: { 204: { description: 'Pong.' } } },
    });
    const tags = withPlugin.document().tags as Json[];
    assert.deepEqual(tags, [{ name: 'health_checks', description: 'Health checks operations.' }]);
    assert.deepEqual(at(withPlugin.document(), 'paths', '/ping', 'post').security, []);
  });
});
