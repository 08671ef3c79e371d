/** koa-model-api: turn ORM models into a secure REST API on Koa. */
export { Application, type ApplicationOptions, type ListenOptions } from './application.js';
export * from './auth/index.js';
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
export { adapterOf, sessionOf, useAdapter } from './http/session.js';
export { buildModelDescription, type ModelFacts, tableNameOf } from './model/describe.js';
export {
  explicitTableName,
  FrameworkModel,
  MIXIN_FIELDS,
  type MixinFieldSpec,
  mixinFieldsOf,
  PROTECTED_FIELDS,
  protectedFieldsOf,
} from './model/framework-model.js';
export { detectOwnerField, OWNER_FIELD_NAMES } from './model/ownership.js';
export { defaultTableName, snakeCase } from './model/table-name.js';
export type { WriteHooks, WriteMode } from './model/write-hooks.js';
export {
  headerRef,
  PROBLEM_MEDIA_TYPE,
  PROBLEM_RESPONSES,
  type ProblemResponseName,
  parameterRef,
  responseRef,
  schemaRef,
} from './openapi/components.js';
export {
  buildOpenApiDocument,
  DEFAULT_SECURITY_SCHEME,
  OPENAPI_VERSION,
  type OpenApiInfo,
  type OpenApiSources,
} from './openapi/document.js';
export { OpenApiRegistry } from './openapi/registry.js';
export type * from './openapi/types.js';
export type { CamelAliases, CamelCase } from './options/spelling.js';
export { FILTER_OPERATORS, LIST_LIMITS } from './query/list-query.js';
export type { JsonSchema } from './schema/json-schema.js';
export {
  createSchema,
  fieldValueSchema,
  readSchema,
  updateSchema,
  type WriteSchemaOptions,
} from './schema/model-schemas.js';
export {
  add_swagger_ui,
  addSwaggerUi,
  DEFAULT_DOCS_PATH,
  type SwaggerHost,
  type SwaggerUiMiddlewareOptions,
  type SwaggerUiOptions,
  swaggerUi,
} from './swagger-ui.js';
export type * from './types.js';
