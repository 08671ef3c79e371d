/**
 * `koa-model-api`: turn ORM models into a secure REST API on Koa. The root holds the
 * specification's names, the error types and the contract types; the rest comes from named
 * subpaths: `koa-model-api/auth` (the authentication plugin), `/openapi` (the document and its
 * schema builders), `/adapter-kit` (for adapter authors), `/conformance` (the adapter test suite)
 * and `/adapters/mikro-orm`, `/adapters/memory`.
 * @module koa-model-api
 */
export { Application, type ApplicationOptions, type ListenOptions, type PathKind } from './application.js';
// AuthMixin's return type names AuthModelConstructor: a user's `declaration: true` build writes it
// into the user model's .d.ts, which it can only do through an entry point the user imports.
export { AuthMixin, type AuthModelConstructor, type AuthModelFields } from './auth/auth-mixin.js';
export { AuthRouter } from './auth/auth-router.js';
export type {
  CrudLikeOptions,
  CrudLikeSettings,
  CrudRouterOptions,
  CrudRouterSettings,
} from './crud/crud-options.js';
export { CrudRouter } from './crud/crud-router.js';
export {
  ApiError,
  ConfigurationError,
  ERROR_CATALOGUE,
  type ErrorCode,
  type FieldError,
  type ProblemDetails,
} from './errors.js';
export { DEFAULT_BODY_LIMIT } from './http/body.js';
export {
  consoleLogger,
  type Logger,
  problemDetails,
  problemMiddleware,
  securityHeaders,
  sendProblem,
  toApiError,
} from './http/problem-middleware.js';
export { type AllowedMethodsSource, allowedMethods, type GroupRouter } from './http/route-group.js';
export { adapterOf, sessionOf, useAdapter } from './http/session.js';
export { FrameworkModel, PROTECTED_FIELDS } from './model/framework-model.js';
export type { WriteHooks, WriteMode } from './model/write-hooks.js';
export type { CamelAliases, CamelCase } from './options/spelling.js';
export {
  add_swagger_ui,
  addSwaggerUi,
  type SwaggerHost,
  type SwaggerUiOptions,
} from './swagger-ui.js';
export type * from './types.js';
