import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ConfigurationError } from '../../../lib/errors.js';
import { OpenApiRegistry } from '../../../lib/openapi/registry.js';
import { crudDoc, gadgetDescription, personDescription } from './fixtures.js';

type Json = Record<string, unknown>;

describe('OpenApiRegistry', () => {
  it('builds the document once and again after each addition', () => {
    const registry = new OpenApiRegistry({ title: 'Cache' });
    registry.addCrud(crudDoc(gadgetDescription()));
    const first = registry.document();
    assert.equal(registry.document(), first);
    assert.equal(registry.json(), registry.json());
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.paths));
    registry.addOperation({
      method: 'get',
      path: '/health',
      operation: { responses: { 200: { description: 'ok' } } },
    });
    const second = registry.document();
    assert.notEqual(second, first);
    assert.ok('/health' in (second.paths as Json));
    assert.equal('/health' in (first.paths as Json), false, 'an earlier document is not changed');
    assert.ok(registry.json().includes('/health'));
    registry.addSecurityScheme('apiKey', { type: 'apiKey', in: 'header', name: 'X-Key' });
    assert.notEqual(registry.document(), second);
  });

  it('does not share objects with what was added', () => {
    const registry = new OpenApiRegistry({ title: 'Copies' });
    const operation: Json = { responses: { 200: { description: 'ok' } } };
    registry.addOperation({ method: 'get', path: '/ping', operation });
    operation.summary = 'changed later';
    assert.equal('summary' in ((registry.document().paths as Json)['/ping'] as { get: Json }).get, false);
    assert.equal(Object.isFrozen(operation), false);
  });

  it('refuses a route documented twice, whatever its parameter is called', () => {
    const registry = new OpenApiRegistry({ title: 'Twice' });
    registry.addCrud(crudDoc(gadgetDescription()));
    assert.throws(
      () => registry.addCrud(crudDoc(gadgetDescription())),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /GET \/gadgets of the CrudRouter of Gadget is already registered/.test(error.message) &&
        /prefix/.test(error.message),
    );
    assert.throws(
      () =>
        registry.addOperation({ method: 'delete', path: '/gadgets/{code}', operation: { responses: {} } }),
      /DELETE \/gadgets\/\{code\} of another router is already registered by the CrudRouter of Gadget/,
    );
    registry.addOperation({ method: 'post', path: '/gadgets/{code}', operation: { responses: {} } });
  });

  it('refuses a malformed operation path and a bad required field', () => {
    const registry = new OpenApiRegistry({ title: 'Bad' });
    assert.throws(
      () => registry.addOperation({ method: 'get', path: 'login', operation: {} }),
      ConfigurationError,
    );
    assert.throws(
      () => registry.addCrud(crudDoc(personDescription(), { extraRequiredOnCreate: ['password'] })),
      ConfigurationError,
    );
    assert.throws(() => registry.addSchema('Problem', { type: 'object' }), /reserved/);
    registry.addSchema('Token', { type: 'object' });
    assert.throws(() => registry.addSchema('Token', { type: 'object' }), /already declared/);
    assert.throws(() => registry.addSchema('a/b', { type: 'object' }), ConfigurationError);
  });

  it('serves one model under two prefixes with distinct write schemas and ids', async () => {
    const registry = new OpenApiRegistry({ title: 'Two prefixes' });
    registry.addCrud(crudDoc(personDescription()));
    registry.addCrud(crudDoc(personDescription(), { prefix: '/admin', readOnlyFields: new Set(['owner']) }));
    const doc = registry.document();
    const schemas = (doc.components as { schemas: Json }).schemas;
    assert.ok('PersonCreate' in schemas && 'PersonCreate2' in schemas);
    assert.equal('Person2' in schemas, false, 'an identical read schema is shared');
    const paths = doc.paths as Record<string, Record<string, Json>>;
    assert.equal(paths['/people']?.get?.operationId, 'listPeople');
    assert.equal(paths['/admin/people']?.get?.operationId, 'listPeople2');
    assert.equal((paths['/admin/people']?.post?.requestBody as Json) !== undefined, true);
    const result = await new Validator().validate(structuredClone(doc) as Json);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  it('keeps a plugin operationId and renames a generated one that collides', () => {
    const registry = new OpenApiRegistry({ title: 'Ids' });
    registry.addOperation({
      method: 'get',
      path: '/whoami',
      operation: { operationId: 'listGadgets', responses: {} },
    });
    registry.addCrud(crudDoc(gadgetDescription()));
    const paths = registry.document().paths as Record<string, Record<string, Json>>;
    assert.equal(paths['/whoami']?.get?.operationId, 'listGadgets');
    assert.equal(paths['/gadgets']?.get?.operationId, 'listGadgets2');
  });
});
