/**
 * What the account routes add to the OpenAPI document: `POST /forgot-password`,
 * `/reset-password`, `/verify-email/request` and `/verify-email`, with their bodies and problem
 * responses (the account codes of account-errors.ts named in each description).
 */
import {
  JSON_MEDIA_TYPE,
  PROBLEM_MEDIA_TYPE,
  problemResponses,
  schemaRef,
} from '../../openapi/components.js';
import type { OpenApiRegistry } from '../../openapi/registry.js';
import type { JsonSchema } from '../../schema/json-schema.js';
import { SECURITY_SCHEME_NAME } from '../dependency.js';
import { PASSWORD_SCHEMA } from '../password-policy.js';
import { EMAIL_MAX_LENGTH, TOKEN_MAX_LENGTH } from './account-routes.js';

const TAG = 'auth';

const EMAIL_BODY: JsonSchema = {
  type: 'object',
  properties: { email: { type: 'string', format: 'email', maxLength: EMAIL_MAX_LENGTH } },
  required: ['email'],
};

const TOKEN = {
  type: 'string',
  minLength: 1,
  maxLength: TOKEN_MAX_LENGTH,
  description: 'The `token` of the emailed link.',
};

const ACCEPTED = {
  description: 'Accepted; the same answer whether or not an account uses the address.',
  content: {
    [JSON_MEDIA_TYPE]: {
      schema: { type: 'object', properties: { detail: { type: 'string' } }, required: ['detail'] },
    },
  },
};

/** A problem response whose code the description names. */
function problem(description: string): Record<string, unknown> {
  return { description, content: { [PROBLEM_MEDIA_TYPE]: { schema: schemaRef('Problem') } } };
}

const COMMON = [
  'PayloadTooLarge',
  'UnsupportedMediaType',
  'ValidationFailed',
  'TooManyRequests',
  'ServiceUnavailable',
] as const;

/** Documents the account routes. */
export function documentAccountLifecycleRoutes(registry: OpenApiRegistry): void {
  registry.addOperation({
    method: 'post',
    path: '/forgot-password',
    operation: {
      tags: [TAG],
      summary: 'Ask for a password reset link',
      description:
        'Sends a single-use link to reset the password to the address, if an account uses it. The answer is ' +
        'always 202, in the same time: it does not reveal whether the address is known. Throttled per address ' +
        'and per client (429 with `Retry-After`).',
      operationId: 'forgotPassword',
      security: [],
      requestBody: { required: true, content: { [JSON_MEDIA_TYPE]: { schema: EMAIL_BODY } } },
      responses: { 202: ACCEPTED, ...problemResponses(['BadRequest', ...COMMON]) },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/reset-password',
    operation: {
      tags: [TAG],
      summary: 'Set a new password with a reset link',
      description:
        'Sets the password of the user the emailed token names (the password rule applies: 422). The token ' +
        'works once and expires; every session of the user ends (tokens issued before answer 401). An unknown, ' +
        'used or expired token gives 400 `invalid_reset_token`.',
      operationId: 'resetPassword',
      security: [],
      requestBody: {
        required: true,
        content: {
          [JSON_MEDIA_TYPE]: {
            schema: {
              type: 'object',
              properties: { token: TOKEN, password: PASSWORD_SCHEMA },
              required: ['token', 'password'],
            },
          },
        },
      },
      responses: {
        204: { description: 'The password is set; log in with it.' },
        400: problem(
          'The token is unknown, already used or expired (`invalid_reset_token`), or the body is unreadable.',
        ),
        ...problemResponses([...COMMON]),
      },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/verify-email/request',
    operation: {
      tags: [TAG],
      summary: 'Ask for an email confirmation link',
      description:
        'With a bearer token: sends a confirmation link to the caller’s address (409 when already verified). ' +
        'Without one, `{ "email": … }` asks for the link by address, for a user whose login waits on it; that ' +
        'answer is always 202, like `/forgot-password`.',
      operationId: 'requestEmailVerification',
      security: [{ [SECURITY_SCHEME_NAME]: [] }, {}],
      requestBody: { required: false, content: { [JSON_MEDIA_TYPE]: { schema: EMAIL_BODY } } },
      responses: {
        202: {
          ...ACCEPTED,
          description: 'The message is sent (or, by address, would be if an account uses it).',
        },
        ...problemResponses(['BadRequest', 'Unauthorized', 'Conflict', ...COMMON]),
      },
    },
  });
  registry.addOperation({
    method: 'post',
    path: '/verify-email',
    operation: {
      tags: [TAG],
      summary: 'Confirm an email address',
      description:
        'Marks the user the emailed token names as `verified`. The token works once and expires; an unknown, ' +
        'used or expired one gives 400 `invalid_verification_token`.',
      operationId: 'verifyEmail',
      security: [],
      requestBody: {
        required: true,
        content: {
          [JSON_MEDIA_TYPE]: {
            schema: { type: 'object', properties: { token: TOKEN }, required: ['token'] },
          },
        },
      },
      responses: {
        200: {
          description: 'The address is verified.',
          content: {
            [JSON_MEDIA_TYPE]: {
              schema: {
                type: 'object',
                properties: { verified: { type: 'boolean', const: true } },
                required: ['verified'],
              },
            },
          },
        },
        400: problem(
          'The token is unknown, already used or expired (`invalid_verification_token`), or the body is unreadable.',
        ),
        ...problemResponses([...COMMON]),
      },
    },
  });
}
