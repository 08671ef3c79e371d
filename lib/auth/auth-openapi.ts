/**
 * What the plugin adds to the OpenAPI document: the OAuth2 password-flow security scheme (so
 * Swagger UI's Authorize logs in through `/login`), and the operations of `/register`, `/login`,
 * `/change-password`, `/refresh`, `/logout`, `/logout-all`, `/admin/{id}/make-admin` and
 * `/admin/{id}/password` with their schemas and problem responses.
 */
import { JSON_MEDIA_TYPE, PROBLEM_MEDIA_TYPE, problemResponses, schemaRef } from '../openapi/components.js';
import { documentedWriteSchema } from '../openapi/lenient-schema.js';
import type { OpenApiRegistry } from '../openapi/registry.js';
import type { JsonSchema } from '../schema/json-schema.js';
import { createSchema, fieldValueSchema, readSchema } from '../schema/model-schemas.js';
import { SECURITY_SCHEME_NAME } from './dependency.js';
import { PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARACTERS } from './password-policy.js';
import type { UserBinding } from './user-binding.js';
import { REGISTRATION_EXTRA_FIELDS } from './user-binding.js';

const TAG = 'auth';
const declared = new WeakMap<OpenApiRegistry, Set<string>>();

/** Declares a named schema once per registry; returns its `$ref`. */
function namedSchema(registry: OpenApiRegistry, name: string, schema: JsonSchema): JsonSchema {
  let names = declared.get(registry);
  if (names === undefined) {
    names = new Set();
    declared.set(registry, names);
  }
  if (!names.has(name)) {
    registry.addSchema(name, schema);
    names.add(name);
  }
  return schemaRef(name);
}

/** The security scheme object: an OAuth2 password flow whose token is a JWT sent as `Bearer`. */
export function securitySchemeObject(): Record<string, unknown> {
  return {
    type: 'oauth2',
    description:
      'A JWT access token from `POST /login`, sent as `Authorization: Bearer <token>`. ' +
      'In Swagger UI, Authorize with a username and password (client id and secret are not used).',
    flows: { password: { tokenUrl: '/login', scopes: {} } },
  };
}

const ACCESS_TOKEN_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    access_token: { type: 'string', description: 'The JWT; send it as `Authorization: Bearer <token>`.' },
    token_type: { type: 'string', enum: ['bearer'] },
    expires_in: { type: 'integer', minimum: 1, description: 'Seconds until the token expires.' },
    refresh_token: {
      type: 'string',
      description:
        'An opaque refresh token: send it to `POST /refresh` for a new pair (it is then used up) or to ' +
        '`POST /logout`. Do not parse it.',
    },
    refresh_expires_in: {
      type: 'integer',
      minimum: 1,
      description: 'Seconds until the refresh token expires (each refresh starts a new lifetime).',
    },
  },
  required: ['access_token', 'token_type', 'expires_in', 'refresh_token', 'refresh_expires_in'],
  additionalProperties: false,
};

const PASSWORD_TEXT = {
  type: 'string',
  minLength: 1,
  maxLength: PASSWORD_MAX_BYTES,
  writeOnly: true,
} as const;

const LOGIN_JSON_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { username: { type: 'string', minLength: 1 }, password: { ...PASSWORD_TEXT } },
  required: ['username', 'password'],
};

const LOGIN_FORM_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'The OAuth2 password grant form (RFC 6749 §4.3), as Swagger UI sends it.',
  properties: {
    grant_type: { type: 'string', enum: ['password'] },
    username: { type: 'string', minLength: 1 },
    password: { ...PASSWORD_TEXT },
    scope: { type: 'string', description: 'Ignored.' },
    client_id: { type: 'string', description: 'Ignored.' },
    client_secret: { type: 'string', description: 'Ignored.' },
  },
  required: ['username', 'password'],
};

/** The registration body as the server takes it: the username rule stated, unknown fields allowed unless strict. */
function registrationSchema(binding: UserBinding, strict: boolean): JsonSchema {
  const schema = createSchema(binding.model, {
    extraFields: REGISTRATION_EXTRA_FIELDS,
    extraRequired: ['password'],
  });
  const username = schema.properties?.[binding.usernameField];
  const properties =
    username === undefined
      ? schema.properties
      : { ...schema.properties, [binding.usernameField]: { ...username, ...USERNAME_RULE } };
  return documentedWriteSchema({ ...schema, ...(properties === undefined ? {} : { properties }) }, strict);
}

/** What /register refuses at once: an empty name, or whitespace at either end (username.ts). */
const USERNAME_RULE: JsonSchema = { minLength: 1, pattern: '^\\S(?:.*\\S)?$' };

/** Documents `POST /register` and `POST /login` and the security scheme. */
export function documentAccountRoutes(registry: OpenApiRegistry, binding: UserBinding, strict = false): void {
  const model = binding.model;
  registry.addSecurityScheme(SECURITY_SCHEME_NAME, securitySchemeObject());
  const user = namedSchema(registry, model.name, readSchema(model));
  const registration = namedSchema(
    registry,
    `${model.name}Registration`,
    registrationSchema(binding, strict),
  );
  const token = namedSchema(registry, 'AccessToken', ACCESS_TOKEN_SCHEMA);
  registry.addOperation({
    method: 'post',
    path: '/register',
    operation: {
      tags: [TAG],
      summary: 'Register a user',
      description:
        `Creates a ${model.name} from its writable fields and a \`password\` (at least 8 characters, at most ` +
        `${PASSWORD_MAX_BYTES} bytes of UTF-8). Admin flags and the password hash are never accepted. ` +
        'The username is stored in Unicode NFKC (case-folded unless the router keeps case); control, ' +
        'invisible and mixed-script look-alike names are refused. Too many registrations from one client ' +
        'address give 429 with `Retry-After`. The response is the user without secrets.',
      operationId: 'register',
      requestBody: { required: true, content: { [JSON_MEDIA_TYPE]: { schema: registration } } },
      responses: {
        201: {
          description: 'The registered user.',
          headers: { Location: { $ref: '#/components/headers/Location' } },
          content: { [JSON_MEDIA_TYPE]: { schema: user } },
        },
        ...problemResponses([
          'BadRequest',
          'Conflict',
          'PayloadTooLarge',
          'UnsupportedMediaType',
          'ValidationFailed',
          'TooManyRequests',
          'ServiceUnavailable',
        ]),
      },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/login',
    operation: {
      tags: [TAG],
      summary: 'Log in',
      description:
        'Exchanges a username and password for a bearer token. Takes JSON or the OAuth2 password form. ' +
        'An unknown username and a wrong password give the same 401. Too many attempts per (username, client ' +
        'address), or too many failures from one client address, give 429 with `Retry-After`.',
      operationId: 'login',
      requestBody: {
        required: true,
        content: {
          [JSON_MEDIA_TYPE]: { schema: LOGIN_JSON_SCHEMA },
          'application/x-www-form-urlencoded': { schema: LOGIN_FORM_SCHEMA },
        },
      },
      responses: {
        200: {
          description: 'An access token and a refresh token.',
          content: { [JSON_MEDIA_TYPE]: { schema: token } },
        },
        ...problemResponses(['BadRequest']),
        401: {
          description: 'The username or password is incorrect.',
          headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } },
          content: { [PROBLEM_MEDIA_TYPE]: { schema: schemaRef('Problem') } },
        },
        ...problemResponses([
          'PayloadTooLarge',
          'UnsupportedMediaType',
          'ValidationFailed',
          'TooManyRequests',
          'ServiceUnavailable',
        ]),
      },
    },
  });
}

const NEW_PASSWORD_SCHEMA: JsonSchema = {
  type: 'string',
  minLength: PASSWORD_MIN_CHARACTERS,
  maxLength: PASSWORD_MAX_BYTES,
  writeOnly: true,
  description: `At least ${PASSWORD_MIN_CHARACTERS} characters and at most ${PASSWORD_MAX_BYTES} bytes of UTF-8.`,
};

const CHANGE_PASSWORD_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    current_password: { ...PASSWORD_TEXT, description: 'The password the user has now.' },
    new_password: NEW_PASSWORD_SCHEMA,
  },
  required: ['current_password', 'new_password'],
};

const SET_PASSWORD_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { new_password: NEW_PASSWORD_SCHEMA },
  required: ['new_password'],
};

/** A 401 of a bearer-token route: no, a bad, an expired or a revoked token. */
const TOKEN_401 = {
  description:
    'No valid bearer token (missing, malformed, expired, or revoked by a password change or `/logout-all`).',
  headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } },
  content: { [PROBLEM_MEDIA_TYPE]: { schema: schemaRef('Problem') } },
};

/** Documents `POST /change-password`. */
export function documentCredentialRoutes(registry: OpenApiRegistry, _binding: UserBinding): void {
  registry.addSecurityScheme(SECURITY_SCHEME_NAME, securitySchemeObject());
  const token = namedSchema(registry, 'AccessToken', ACCESS_TOKEN_SCHEMA);
  registry.addOperation({
    method: 'post',
    path: '/change-password',
    operation: {
      tags: [TAG],
      summary: 'Change your password',
      description:
        'Sets a new password for the user of the bearer token, given the current one. Every access and ' +
        'refresh token issued before the change stops working at once (401); the response carries fresh ones. ' +
        'A wrong current password gives 403 `invalid_current_password` and counts as a failed login ' +
        '(too many give 429 with `Retry-After`).',
      operationId: 'changePassword',
      security: [{ [SECURITY_SCHEME_NAME]: [] }],
      requestBody: {
        required: true,
        content: {
          [JSON_MEDIA_TYPE]: { schema: namedSchema(registry, 'ChangePassword', CHANGE_PASSWORD_SCHEMA) },
        },
      },
      responses: {
        200: {
          description: 'The password is changed; a new access token and refresh token for the caller.',
          content: { [JSON_MEDIA_TYPE]: { schema: token } },
        },
        ...problemResponses(['BadRequest']),
        401: TOKEN_401,
        403: {
          description: 'The current password is wrong (`invalid_current_password`).',
          content: { [PROBLEM_MEDIA_TYPE]: { schema: schemaRef('Problem') } },
        },
        ...problemResponses([
          'PayloadTooLarge',
          'UnsupportedMediaType',
          'ValidationFailed',
          'TooManyRequests',
          'ServiceUnavailable',
        ]),
      },
    },
  });
}

const REFRESH_JSON_SCHEMA: JsonSchema = {
  type: 'object',
  properties: { refresh_token: { type: 'string', minLength: 1 } },
  required: ['refresh_token'],
};

const REFRESH_FORM_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'The OAuth2 refresh grant form (RFC 6749 §6).',
  properties: {
    grant_type: { type: 'string', enum: ['refresh_token'] },
    refresh_token: { type: 'string', minLength: 1 },
  },
  required: ['refresh_token'],
};

/** A 401 of `/refresh`: the refresh token is refused. */
const REFRESH_401 = {
  description:
    'The refresh token is refused: `invalid_refresh_token` (malformed, unknown, revoked, or its user is gone), ' +
    '`refresh_token_expired`, or `refresh_token_reused` (it was already used: every token of its session is revoked).',
  headers: { 'WWW-Authenticate': { $ref: '#/components/headers/WWWAuthenticate' } },
  content: { [PROBLEM_MEDIA_TYPE]: { schema: schemaRef('Problem') } },
};

/** Documents `POST /refresh`, `POST /logout` and `POST /logout-all`. */
export function documentSessionRoutes(registry: OpenApiRegistry, _binding: UserBinding): void {
  registry.addSecurityScheme(SECURITY_SCHEME_NAME, securitySchemeObject());
  const token = namedSchema(registry, 'AccessToken', ACCESS_TOKEN_SCHEMA);
  const refreshBody = {
    required: true,
    content: {
      [JSON_MEDIA_TYPE]: { schema: namedSchema(registry, 'RefreshTokenInput', REFRESH_JSON_SCHEMA) },
      'application/x-www-form-urlencoded': { schema: REFRESH_FORM_SCHEMA },
    },
  };
  const bodyProblems = [
    'PayloadTooLarge',
    'UnsupportedMediaType',
    'ValidationFailed',
    'ServiceUnavailable',
  ] as const;
  registry.addOperation({
    method: 'post',
    path: '/refresh',
    operation: {
      tags: [TAG],
      summary: 'Refresh the access token',
      description:
        'Exchanges a refresh token for a new access token and a new refresh token of the same session. ' +
        'The presented refresh token is used up: presenting it again revokes every token of its session ' +
        '(401 `refresh_token_reused`). Takes JSON or the OAuth2 refresh form.',
      operationId: 'refreshToken',
      requestBody: refreshBody,
      responses: {
        200: {
          description: 'A new access token and refresh token.',
          content: { [JSON_MEDIA_TYPE]: { schema: token } },
        },
        ...problemResponses(['BadRequest']),
        401: REFRESH_401,
        ...problemResponses(bodyProblems),
      },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/logout',
    operation: {
      tags: [TAG],
      summary: 'Log out',
      description:
        'Revokes the session of a refresh token (it and every token refreshed from the same login). ' +
        'Answers 204 for an unknown, expired or already revoked token too. Access tokens already issued ' +
        'stay valid until they expire; `POST /logout-all` ends those as well.',
      operationId: 'logout',
      requestBody: refreshBody,
      responses: {
        204: { description: 'The session is ended.' },
        ...problemResponses(['BadRequest', ...bodyProblems]),
      },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/logout-all',
    operation: {
      tags: [TAG],
      summary: 'Log out everywhere',
      description:
        'Ends every session of the user of the bearer token: every access token and refresh token issued ' +
        'until now stops working at once (this token included).',
      operationId: 'logoutAll',
      security: [{ [SECURITY_SCHEME_NAME]: [] }],
      responses: {
        204: { description: 'Every session is ended.' },
        401: TOKEN_401,
        ...problemResponses(['ServiceUnavailable']),
      },
    },
  });
}

/** Documents `POST /admin/{id}/make-admin`, `POST /admin/{id}/password` and `POST /admin/{id}/revoke-sessions`. */
export function documentAdminRoutes(registry: OpenApiRegistry, binding: UserBinding): void {
  const model = binding.model;
  registry.addSecurityScheme(SECURITY_SCHEME_NAME, securitySchemeObject());
  const user = namedSchema(registry, model.name, readSchema(model));
  const key = model.fieldsByName.get(model.primaryKey);
  const {
    default: _ignored,
    description: _text,
    ...keySchema
  } = key === undefined ? { type: 'string' } : fieldValueSchema(key);
  if (Array.isArray(keySchema.type))
    keySchema.type = keySchema.type.find((type) => type !== 'null') ?? 'string';
  // The `{id}` of every admin route.
  const parameters = [
    {
      name: 'id',
      in: 'path',
      required: true,
      description: `Primary key of the ${model.name}.`,
      schema: keySchema,
    },
  ];
  registry.addOperation({
    method: 'post',
    path: '/admin/{id}/make-admin',
    operation: {
      tags: [TAG],
      summary: 'Grant the admin flag',
      description: `Sets \`${binding.adminFlag}\` on the user. Idempotent. Administrators only.`,
      operationId: 'makeAdmin',
      parameters,
      security: [{ [SECURITY_SCHEME_NAME]: [] }],
      responses: {
        200: {
          description: 'The user, now an administrator.',
          content: { [JSON_MEDIA_TYPE]: { schema: user } },
        },
        ...problemResponses(['Unauthorized', 'Forbidden', 'NotFound', 'ServiceUnavailable']),
      },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/admin/{id}/password',
    operation: {
      tags: [TAG],
      summary: "Set a user's password",
      description:
        'Sets the password of another user and revokes every token they hold. Administrators only; ' +
        'an administrator changes their own password with `POST /change-password` (403 here).',
      operationId: 'setUserPassword',
      parameters,
      security: [{ [SECURITY_SCHEME_NAME]: [] }],
      requestBody: {
        required: true,
        content: { [JSON_MEDIA_TYPE]: { schema: namedSchema(registry, 'SetPassword', SET_PASSWORD_SCHEMA) } },
      },
      responses: {
        200: { description: 'The user.', content: { [JSON_MEDIA_TYPE]: { schema: user } } },
        ...problemResponses([
          'BadRequest',
          'Unauthorized',
          'Forbidden',
          'NotFound',
          'PayloadTooLarge',
          'UnsupportedMediaType',
          'ValidationFailed',
          'ServiceUnavailable',
        ]),
      },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/admin/{id}/revoke-sessions',
    operation: {
      tags: [TAG],
      summary: "End a user's sessions",
      description:
        'Revokes every access and refresh token the user holds (a stolen device, a departed employee); ' +
        'tokens issued afterwards work. Administrators only; the caller ends its own sessions with ' +
        '`POST /logout-all`.',
      operationId: 'revokeUserSessions',
      parameters,
      security: [{ [SECURITY_SCHEME_NAME]: [] }],
      responses: {
        204: { description: 'Every session of the user is ended.' },
        ...problemResponses(['Unauthorized', 'Forbidden', 'NotFound', 'ServiceUnavailable']),
      },
    },
  });
}
