import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import addFormatsModule from 'ajv-formats';
import { responseRef } from '../../../lib/openapi/components.js';
import { OpenApiRegistry } from '../../../lib/openapi/registry.js';
import {
  crudDoc,
  gadgetDescription,
  PASSWORD_SCHEME,
  personDescription,
  policy,
  SCHEME,
  userDescription,
} from './fixtures.js';

const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ??
  addFormatsModule) as FormatsPlugin;

type Json = Record<string, unknown>;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Reads a nested member of the document, failing the test when a step is missing. */
function at(value: unknown, ...path: string[]): Json {
  let current = value;
  for (const key of path) {
    assert.ok(typeof current === 'object' && current !== null && key in current, `missing ${path.join('.')}`);
    current = (current as Json)[key];
  }
  return current as Json;
}

/** Every operation of the document with its method and path. */
function operations(doc: Json): { method: string; path: string; op: Json }[] {
  return Object.entries(at(doc, 'paths')).flatMap(([path, item]) =>
    METHODS.filter((method) => method in (item as Json)).map((method) => ({
      method,
      path,
      op: (item as Json)[method] as Json,
    })),
  );
}

/** A blog-like application: a secured router with policies, an open one, a strict one, auth routes. */
function fullRegistry(): OpenApiRegistry {
  const registry = new OpenApiRegistry({ title: 'Test API', version: '2.0.0', description: 'All kinds.' });
  registry.addSecurityScheme(SCHEME, PASSWORD_SCHEME);
  registry.addSchema('Token', {
    type: 'object',
    properties: {
      access_token: { type: 'string' },
      token_type: { const: 'bearer' },
      expires_in: { type: 'integer' },
    },
    required: ['access_token', 'token_type', 'expires_in'],
  });
  registry.addCrud(
    crudDoc(personDescription(), {
      secure: true,
      securityScheme: SCHEME,
      readOnlyFields: new Set(['owner']),
      policies: {
        PUT: policy('owner_or_admin', 'Only the owner of the record or an admin.'),
        PATCH: policy('owner_or_admin', 'Only the owner of the record or an admin.'),
        DELETE: policy('admin_only', 'Only admins.'),
      },
    }),
  );
  registry.addCrud(
    crudDoc(userDescription(), {
      policies: { DELETE: policy('admin_only', 'Only admins.', true, SCHEME) },
      extraInputFields: { password: { type: 'string', minLength: 8, writeOnly: true } },
      extraRequiredOnCreate: ['password'],
    }),
  );
  registry.addCrud(crudDoc(gadgetDescription(), { prefix: '/api/', strict: true }));
  registry.addOperation({
    method: 'post',
    path: '/login',
    operation: {
      tags: ['auth'],
      operationId: 'login',
      summary: 'Log in',
      requestBody: {
        required: true,
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              properties: { username: { type: 'string' }, password: { type: 'string' } },
              required: ['username', 'password'],
            },
          },
        },
      },
      responses: {
        200: {
          description: 'A token.',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Token' } } },
        },
        401: responseRef('Unauthorized'),
        429: responseRef('TooManyRequests'),
      },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/admin/{id}/make-admin',
    operation: {
      tags: ['admin'],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      responses: { 200: { description: 'The user.' }, 403: responseRef('Forbidden') },
      security: [{ [SCHEME]: [] }],
    },
  });
  return registry;
}

async function assertValid(doc: Readonly<Json>): Promise<void> {
  const result = await new Validator().validate(structuredClone(doc) as Json);
  assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
}

describe('OpenAPI document', () => {
  const doc = fullRegistry().document();

  it('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.info, { title: 'Test API', version: '2.0.0', description: 'All kinds.' });
    await assertValid(doc);
  });

  it('stays valid for an empty application and for a secured router without a declared scheme', async () => {
    await assertValid(new OpenApiRegistry({ title: 'Empty' }).document());
    const registry = new OpenApiRegistry({ title: 'Fallback' });
    registry.addCrud(crudDoc(gadgetDescription(), { secure: true }));
    const fallback = registry.document();
    await assertValid(fallback);
    assert.deepEqual(at(fallback, 'components', 'securitySchemes'), {
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
    });
    assert.deepEqual(at(fallback, 'paths', '/gadgets', 'get').security, [{ bearerAuth: [] }]);
  });

  it('has component schemas that are valid JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addKeyword('components');
    ajv.addSchema({ $id: 'https://koa-model-api.test/doc', components: at(doc, 'components') });
    const schemas = at(doc, 'components', 'schemas');
    for (const name of ['Person', 'PersonCreate', 'PersonUpdate', 'User', 'UserCreate', 'Problem']) {
      assert.ok(name in schemas, name);
    }
    for (const name of Object.keys(schemas))
      ajv.compile({ $ref: `https://koa-model-api.test/doc#/components/schemas/${name}` });
    const problem = ajv.compile({ $ref: 'https://koa-model-api.test/doc#/components/schemas/Problem' });
    assert.equal(
      problem({ type: 'x', title: 't', status: 422, detail: 'd', code: 'validation_failed' }),
      true,
    );
    assert.equal(problem({ type: 'x', title: 't', status: 422, detail: 'd', code: 'nope' }), false);
  });

  it('names operations after the model and the resource, uniquely', () => {
    const ids = operations(doc).map(({ op }) => op.operationId);
    assert.equal(new Set(ids).size, ids.length);
    for (const id of [
      'listPeople',
      'createPerson',
      'getPerson',
      'updatePerson',
      'patchPerson',
      'deletePerson',
    ]) {
      assert.ok(ids.includes(id), id);
    }
    assert.ok(ids.includes('listUsers') && ids.includes('listGadgets') && ids.includes('login'));
    assert.equal(at(doc, 'paths', '/admin/{id}/make-admin', 'post').operationId, 'postAdminIdMakeAdmin');
    assert.ok('/api/gadgets/{id}' in at(doc, 'paths'), 'the prefix is normalised');
  });

  it('puts security, 401 and 403 only where a user is needed or a policy applies', () => {
    for (const { method, path, op } of operations(doc)) {
      const responses = at(op, 'responses');
      const where = `${method} ${path}`;
      if (path.startsWith('/people')) {
        assert.deepEqual(op.security, [{ [SCHEME]: [] }], where);
        assert.ok('401' in responses, where);
        assert.equal('403' in responses, ['put', 'patch', 'delete'].includes(method), where);
      } else if (path.startsWith('/users')) {
        const isDelete = method === 'delete';
        // A public operation says so with `security: []` (Redocly's security-defined rule).
        assert.deepEqual(op.security, isDelete ? [{ [SCHEME]: [] }] : [], where);
        assert.equal('401' in responses, isDelete, where);
        assert.equal('403' in responses, isDelete, where);
      } else if (path.startsWith('/api/gadgets')) {
        assert.deepEqual(op.security, [], where);
        assert.equal('401' in responses || '403' in responses, false, where);
      }
    }
    assert.deepEqual(at(doc, 'paths', '/users/{id}', 'delete').security, [{ [SCHEME]: [] }]);
    assert.match(String(at(doc, 'paths', '/people/{id}', 'delete').description), /Only admins\./);
    assert.match(String(at(doc, 'paths', '/people/{id}', 'put').description), /owner of the record/);
    assert.deepEqual(at(doc, 'components', 'securitySchemes'), { [SCHEME]: PASSWORD_SCHEME });
    assert.equal('security' in doc, false, 'no document-wide security');
  });

  it("names the scheme an owned record's create authenticates with: the router's, else a policy's that needs a user", () => {
    const registry = new OpenApiRegistry({ title: 'Two schemes', version: '1.0.0' });
    registry.addSecurityScheme(SCHEME, PASSWORD_SCHEME);
    registry.addSecurityScheme('PartnerBearer', { type: 'http', scheme: 'bearer' });
    // Unsecured, no POST policy: the create runs the PUT policy's authentication (PartnerBearer).
    registry.addCrud(
      crudDoc(personDescription(), {
        ownerField: 'owner',
        readOnlyFields: new Set(['owner']),
        policies: {
          GET: policy('public', 'Anyone.', false),
          PUT: policy('owner_or_admin', 'Only the owner of the record or an admin.', true, 'PartnerBearer'),
        },
      }),
    );
    // The router's own dependency comes first, as at run time.
    registry.addCrud(
      crudDoc(gadgetDescription(), {
        ownerField: 'owner',
        securityScheme: SCHEME,
        policies: { DELETE: policy('admin_only', 'Only admins.', true, 'PartnerBearer') },
      }),
    );
    // A dependency of the router's own that names no scheme still comes first: not the policy's.
    registry.addCrud(
      crudDoc(userDescription(), {
        ownerField: 'owner',
        authenticates: true,
        policies: { DELETE: policy('admin_only', 'Only admins.', true, 'PartnerBearer') },
      }),
    );
    const twoSchemes = registry.document();
    assert.notDeepEqual(at(twoSchemes, 'paths', '/users', 'post').security, [{ PartnerBearer: [] }]);
    assert.deepEqual(at(twoSchemes, 'paths', '/people', 'post').security, [{ PartnerBearer: [] }]);
    assert.deepEqual(at(twoSchemes, 'paths', '/gadgets', 'post').security, [{ [SCHEME]: [] }]);
  });

  it('answers 503 on every generated operation and documents its status codes', () => {
    for (const { path, op } of operations(doc)) {
      if (path === '/login' || path.startsWith('/admin')) continue;
      assert.ok('503' in at(op, 'responses'), path);
      // Answered by the HTTP server before routing, to any request with headers too large.
      assert.ok('431' in at(op, 'responses'), path);
    }
    const list = at(doc, 'paths', '/people', 'get');
    assert.deepEqual(Object.keys(at(list, 'responses', '200', 'headers')), ['X-Total-Count', 'Link']);
    assert.ok('400' in at(list, 'responses'));
    const create = at(doc, 'paths', '/people', 'post');
    assert.deepEqual(Object.keys(at(create, 'responses')), [
      '201',
      '400',
      '401',
      '409',
      '413',
      '415',
      '422',
      '431',
      '503',
    ]);
    assert.ok('Location' in at(create, 'responses', '201', 'headers'));
    assert.deepEqual(at(create, 'requestBody', 'content', 'application/json', 'schema'), {
      $ref: '#/components/schemas/PersonCreate',
    });
    const remove = at(doc, 'paths', '/api/gadgets/{id}', 'delete');
    // 400: a delete refuses every query parameter but the ignored ones.
    assert.deepEqual(Object.keys(at(remove, 'responses')), ['204', '400', '404', '409', '431', '503']);
    assert.deepEqual(
      at(doc, 'components', 'responses', 'NotFound', 'content', 'application/problem+json', 'schema'),
      {
        $ref: '#/components/schemas/Problem',
      },
    );
  });

  it('documents the list parameters', () => {
    const parameters = at(doc, 'paths', '/people', 'get').parameters as Json[];
    const byName = new Map(parameters.filter((p) => 'name' in p).map((p) => [p.name, p]));
    assert.deepEqual(
      parameters.filter((p) => '$ref' in p),
      [{ $ref: '#/components/parameters/Limit' }, { $ref: '#/components/parameters/Offset' }],
    );
    assert.deepEqual(at(doc, 'components', 'parameters', 'Limit', 'schema'), {
      type: 'integer',
      minimum: 1,
      maximum: 1000,
      default: 100,
    });
    // One flat deepObject parameter per filterable field: generic clients serialize one level only.
    assert.equal(byName.has('filter'), false);
    const age = byName.get('filter[age]');
    assert.equal(age?.style, 'deepObject');
    assert.equal(age?.explode, true);
    assert.deepEqual(Object.keys(at(age, 'schema', 'properties')), [
      '$eq',
      '$ne',
      '$gt',
      '$gte',
      '$lt',
      '$lte',
      '$in',
      '$nin',
      '$exists',
    ]);
    assert.equal(at(age, 'schema', 'properties', '$gte').type, 'integer');
    assert.equal(at(age, 'schema', 'properties', '$in').type, 'string');
    assert.equal(at(age, 'schema', 'properties', '$exists').type, 'boolean');
    assert.ok('$like' in at(byName.get('filter[name]'), 'schema', 'properties'));
    assert.equal(at(byName.get('sort'), 'explode'), false);
    const sortKeys = at(byName.get('sort'), 'schema', 'items').enum as string[];
    assert.ok(sortKeys.includes('-age') && sortKeys.includes('name'));
    assert.ok(byName.has('filter[owner]') && !byName.has('filter[secret]'));
  });

  it('types the id parameter like the primary key', () => {
    const personId = (at(doc, 'paths', '/people/{id}').parameters as Json[])[0];
    assert.equal(at(personId, 'schema').type, 'integer');
    const gadgetId = (at(doc, 'paths', '/api/gadgets/{id}').parameters as Json[])[0];
    assert.deepEqual(at(gadgetId, 'schema'), { type: 'string', format: 'uuid' });
  });

  it('leaves hidden fields out of every schema and parameter', () => {
    const text = JSON.stringify(doc);
    assert.equal(text.includes('hashed_password'), false);
    assert.equal(/"-?secret"/.test(text), false);
  });

  it('leaves read-only and protected fields out of the write schemas only', () => {
    const schemas = at(doc, 'components', 'schemas');
    const props = (name: string) => Object.keys(at(schemas, name, 'properties'));
    assert.ok(props('Person').includes('owner') && props('Person').includes('id'));
    for (const name of ['PersonCreate', 'PersonUpdate']) {
      for (const field of ['owner', 'id', 'created_at'])
        assert.equal(props(name).includes(field), false, `${name}.${field}`);
    }
    assert.ok(props('User').includes('is_admin'));
    assert.deepEqual(props('UserCreate'), ['username', 'email', 'age', 'password']);
    assert.deepEqual(at(schemas, 'UserCreate').required, ['username', 'email', 'password']);
    assert.equal(props('UserUpdate').includes('is_admin'), false);
  });

  it('lists a tag per resource and the plugin tags', () => {
    const tags = (doc.tags as Json[]).map((tag) => tag.name);
    assert.deepEqual(tags, ['people', 'users', 'gadgets', 'auth', 'admin']);
    assert.deepEqual(at(doc, 'paths', '/people', 'get').tags, ['people']);
  });
});

describe('OAuth2 URLs under the servers’ path', () => {
  /** The token URL of a document with these servers and a `/login` operation (or none). */
  function tokenUrl(servers: { url: string }[] | undefined, login = true, url = '/login'): unknown {
    const registry = new OpenApiRegistry({ title: 'Mounted', ...(servers === undefined ? {} : { servers }) });
    registry.addSecurityScheme(SCHEME, {
      type: 'oauth2',
      flows: { password: { tokenUrl: url, scopes: {} } },
    });
    if (login)
      registry.addOperation({
        method: 'post',
        path: '/login',
        operation: { responses: { 200: { description: 'A token.' } } },
      });
    const doc = registry.document();
    return (at(doc, 'components', 'securitySchemes', SCHEME).flows as { password: { tokenUrl: unknown } })
      .password.tokenUrl;
  }

  it('joins a token URL naming one of the document’s paths to the one server path', () => {
    assert.equal(tokenUrl(undefined), '/login');
    assert.equal(tokenUrl([{ url: '/' }]), '/login');
    assert.equal(tokenUrl([{ url: '/api' }]), '/api/login');
    assert.equal(tokenUrl([{ url: '/api/v1/' }]), '/api/v1/login');
    // Root-relative: resolved against the chosen server's origin, as the operations are.
    assert.equal(tokenUrl([{ url: 'https://api.example.org/v2' }]), '/v2/login');
    assert.equal(
      tokenUrl([{ url: 'https://a.example/api' }, { url: 'https://b.example/api/' }]),
      '/api/login',
    );
  });

  it('leaves it when the servers differ in path or hold variables, or the URL is no path of the document', () => {
    assert.equal(tokenUrl([{ url: '/api' }, { url: '/v2' }]), '/login');
    assert.equal(tokenUrl([{ url: '{scheme}://host/api' }]), '/login');
    assert.equal(tokenUrl([{ url: '/api/{version}' }]), '/login');
    assert.equal(tokenUrl([{ url: '/api' }], false), '/login');
    assert.equal(tokenUrl([{ url: '/api' }], true, '/oauth/token'), '/oauth/token');
    assert.equal(tokenUrl([{ url: '/api' }], true, 'https://idp.example/token'), 'https://idp.example/token');
  });
});
