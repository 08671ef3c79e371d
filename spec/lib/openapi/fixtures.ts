/** Model descriptions shared by the schema and OpenAPI tests: every field kind, a user model, a UUID key. */

import type { Middleware } from 'koa';
import { CRUD_OPERATIONS } from '../../../lib/crud/crud-routes.js';
import { buildModelDescription, type ModelFacts } from '../../../lib/model/describe.js';
import { PROTECTED_FIELDS } from '../../../lib/model/framework-model.js';
import type { CrudRoutesDoc } from '../../../lib/openapi/types.js';
import type { AppState, FieldDescription, ModelDescription, Policy } from '../../../lib/types.js';

type FieldInput = ModelFacts['fields'][number];

/** A field with the common flags off; `overrides` sets what the test cares about. */
export function field(
  name: string,
  type: FieldDescription['type'],
  overrides: Partial<Omit<FieldInput, 'name' | 'type'>> = {},
): FieldInput {
  return {
    name,
    type,
    nullable: false,
    required: false,
    hasDefault: false,
    unique: false,
    hidden: false,
    generated: false,
    primary: false,
    ...overrides,
  };
}

/** `User` (table `users`): the auth mixin's hidden hash and protected admin flag. */
export class User {
  static [PROTECTED_FIELDS] = ['hashed_password', 'is_admin'];
  id?: number;
}

/** `Person` (table `people`): one field of every kind. */
export class Person {}

/** `Gadget` (table `gadgets`): a client-given UUID key. */
export class Gadget {}

/** The user model's description. */
export function userDescription(): ModelDescription {
  return buildModelDescription({
    model: User,
    name: 'User',
    primaryKeys: ['id'],
    fields: [
      field('id', 'integer', { generated: true, hasDefault: true, unique: true }),
      field('username', 'string', { required: true, unique: true, maxLength: 150 }),
      field('email', 'string', { required: true, unique: true, maxLength: 254 }),
      field('age', 'integer', { hasDefault: true, default: 18 }),
      field('hashed_password', 'string', { required: true, hidden: true, maxLength: 255 }),
      field('is_admin', 'boolean', { hasDefault: true, default: false }),
    ],
  });
}

/** A description with one field of every kind, nullable and defaulted variants, a hidden field and a relation. */
export function personDescription(): ModelDescription {
  return buildModelDescription({
    model: Person,
    name: 'Person',
    primaryKeys: ['id'],
    fields: [
      field('id', 'integer', { generated: true, hasDefault: true, unique: true }),
      field('name', 'string', { required: true, maxLength: 100 }),
      field('bio', 'text', { nullable: true }),
      field('external_id', 'uuid', { unique: true, hasDefault: true }),
      field('age', 'integer', { hasDefault: true, default: 18 }),
      field('population', 'bigint', { nullable: true }),
      field('score', 'number', { nullable: true }),
      field('price', 'decimal', { required: true }),
      field('active', 'boolean', { hasDefault: true, default: true }),
      field('birthday', 'date', { nullable: true }),
      field('created_at', 'datetime', {
        hasDefault: true,
        generated: true,
        writable: false,
        default: new Date(0),
      }),
      field('wakes_at', 'time', { nullable: true }),
      field('meta', 'json', { nullable: true, hasDefault: true, default: { tags: [] } }),
      field('status', 'enum', { hasDefault: true, default: 'active', enumValues: ['active', 'banned'] }),
      field('level', 'enum', { nullable: true, enumValues: [1, 2, 3] }),
      field('secret', 'string', { hidden: true, nullable: true }),
      field('owner', 'integer', {
        required: true,
        relation: { kind: 'many-to-one', target: 'User', targetModel: User, targetKey: 'id' },
      }),
    ],
  });
}

/** A model keyed by a client-given UUID. */
export function gadgetDescription(): ModelDescription {
  return buildModelDescription({
    model: Gadget,
    name: 'Gadget',
    primaryKeys: ['code'],
    fields: [
      field('code', 'uuid', { required: true, unique: true }),
      field('label', 'string', { required: true }),
    ],
  });
}

/** `Place` (table `places`): embedded objects, arrays, computed, lazy and non-queryable fields. */
export class Place {}

/**
 * A description with the shapes of embedded values: a required `address` object (with a nested
 * object, a nested hidden, computed and non-queryable field), a nullable `billing` object, arrays of
 * each item type, computed fields (one queryable, one not) and a lazy text.
 */
export function placeDescription(): ModelDescription {
  return buildModelDescription({
    model: Place,
    name: 'Place',
    primaryKeys: ['id'],
    fields: [
      field('id', 'integer', { generated: true, hasDefault: true, unique: true }),
      field('name', 'string', { required: true, maxLength: 50 }),
      field('address', 'object', {
        required: true,
        fields: [
          field('street', 'string', { required: true }),
          field('city', 'string', { required: true, maxLength: 40 }),
          field('zip', 'string', { nullable: true }),
          field('geo', 'object', {
            nullable: true,
            fields: [field('lat', 'number', { required: true }), field('lng', 'number', { required: true })],
          }),
          field('verified_at', 'datetime', { nullable: true }),
          field('token', 'string', { hidden: true, nullable: true }),
          field('slug', 'string', { computed: true, required: true }),
          field('notes', 'text', { nullable: true, queryable: false }),
        ],
      }),
      field('billing', 'object', {
        nullable: true,
        fields: [field('iban', 'string', { required: true }), field('since', 'date', { nullable: true })],
      }),
      field('tags', 'array', { itemType: 'string', hasDefault: true, default: [] }),
      field('ratings', 'array', { itemType: 'integer', nullable: true }),
      field('weights', 'array', { itemType: 'number', nullable: true }),
      field('label', 'string', { computed: true, required: true }),
      field('score', 'number', { computed: true, queryable: false, nullable: true }),
      field('description', 'text', { lazy: true, nullable: true }),
      field('secret', 'string', { hidden: true, nullable: true }),
      field('opened_at', 'datetime', { hasDefault: true }),
    ],
  });
}

/** The scheme name the auth plugin documents in these tests. */
export const SCHEME = 'OAuth2PasswordBearer';

/** The auth plugin's scheme: OAuth2 password flow against `/login`. */
export const PASSWORD_SCHEME = { type: 'oauth2', flows: { password: { tokenUrl: '/login', scopes: {} } } };

/** A policy value as the auth plugin makes them; `scheme` names the scheme its own authentication documents. */
export function policy(name: string, description: string, requiresUser = true, scheme?: string): Policy {
  const authenticate: Middleware<AppState> = async (_ctx, next) => {
    await next();
  };
  return {
    name,
    description,
    requiresUser,
    ...(scheme === undefined
      ? {}
      : { authenticate: Object.assign(authenticate, { securityScheme: scheme }) }),
    allows: () => true,
  };
}

/** A `CrudRoutesDoc` with nothing special; `overrides` sets what the test cares about. */
export function crudDoc(
  description: ModelDescription,
  overrides: Partial<CrudRoutesDoc> = {},
): CrudRoutesDoc {
  return {
    description,
    operations: CRUD_OPERATIONS,
    prefix: '',
    secure: false,
    policies: {},
    readOnlyFields: new Set(),
    extraInputFields: {},
    extraRequiredOnCreate: [],
    strict: false,
    ...overrides,
  };
}
