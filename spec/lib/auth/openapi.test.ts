/**
 * What the plugin puts in the OpenAPI document: the OAuth2 password-flow scheme for Swagger UI's
 * Authorize, the three operations, security only where a user is needed, and no secret field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { requireTarget } from '../../support/databases.js';
import { type AuthFixture, call, startAuthApp } from './support/harness.js';

type Operation = {
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, unknown> };
};
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, Record<string, unknown>>;
    schemas: Record<string, { properties?: Record<string, Record<string, unknown>>; required?: string[] }>;
  };
};

describe('auth in the OpenAPI document', await requireTarget('sqlite-memory'), () => {
  let fx: AuthFixture;
  let document: Document;
  before(async () => {
    fx = await startAuthApp('sqlite-memory');
    const response = await call(fx.server, 'GET', '/openapi.json');
    assert.equal(response.status, 200);
    document = response.body as unknown as Document;
  });
  after(() => fx?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(
      structuredClone(document) as unknown as Record<string, unknown>,
    );
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
  });

  it('declares the OAuth2 password flow with tokenUrl /login, so Authorize logs in', () => {
    const scheme = document.components.securitySchemes.OAuth2PasswordBearer;
    assert.equal(scheme?.type, 'oauth2');
    assert.deepEqual(scheme?.flows, { password: { tokenUrl: '/login', scopes: {} } });
    assert.match(String(scheme?.description), /JWT/);
  });

  it('documents /register and /login without security, with their bodies and problems', () => {
    const register = document.paths['/register']?.post;
    const login = document.paths['/login']?.post;
    assert.ok(register !== undefined && login !== undefined);
    // Public operations say so (`security: []`), which linters and generated clients rely on.
    assert.deepEqual(register.security, []);
    assert.deepEqual(login.security, []);
    assert.deepEqual(Object.keys(register.responses).sort(), [
      '201',
      '400',
      '409',
      '413',
      '415',
      '422',
      '429',
      '431',
      '503',
    ]);
    assert.deepEqual(Object.keys(login.responses).sort(), [
      '200',
      '400',
      '401',
      '413',
      '415',
      '422',
      '429',
      '431',
      '503',
    ]);
    assert.deepEqual(Object.keys(login.requestBody?.content ?? {}).sort(), [
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    const registration = document.components.schemas.UserRegistration;
    assert.deepEqual(Object.keys(registration?.properties ?? {}).sort(), [
      'age',
      'email',
      'password',
      'username',
    ]);
    assert.deepEqual([...(registration?.required ?? [])].sort(), ['email', 'password', 'username']);
    assert.equal(registration?.properties?.password?.writeOnly, true);
    const token = document.components.schemas.AccessToken;
    assert.deepEqual(token?.required, [
      'access_token',
      'token_type',
      'expires_in',
      'refresh_token',
      'refresh_expires_in',
    ]);
  });

  it('documents make-admin with security and 401/403/404', () => {
    const makeAdmin = document.paths['/admin/{id}/make-admin']?.post;
    assert.deepEqual(makeAdmin?.security, [{ OAuth2PasswordBearer: [] }]);
    assert.deepEqual(Object.keys(makeAdmin?.responses ?? {}).sort(), [
      '200',
      '401',
      '403',
      '404',
      '431',
      '503',
    ]);
  });

  it('puts security only on operations that need a user', () => {
    assert.deepEqual(document.paths['/posts']?.get?.security, [{ OAuth2PasswordBearer: [] }]);
    assert.deepEqual(document.paths['/tags']?.get?.security, [], 'anyone may read tags');
    const createTag = document.paths['/tags']?.post;
    assert.deepEqual(
      createTag?.security,
      [{ OAuth2PasswordBearer: [] }],
      'admin_only authenticates by itself',
    );
    assert.ok(createTag !== undefined && '401' in createTag.responses && '403' in createTag.responses);
  });

  it('never mentions hashed_password', () => {
    assert.equal(JSON.stringify(document).includes('hashed_password'), false);
    const user = document.components.schemas.User;
    assert.deepEqual(Object.keys(user?.properties ?? {}).sort(), [
      'age',
      'email',
      'id',
      'is_admin',
      'username',
      'verified',
    ]);
  });
});
