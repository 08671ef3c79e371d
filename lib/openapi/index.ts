/**
 * `koa-model-api/openapi`: the OpenAPI 3.1 document and what it is built from. The registry an
 * `Application` keeps (`app.openapi`), the document builder, the shared components a plugin
 * refers to (`responseRef('NotFound')`, …), the JSON Schemas of a model's bodies, and the Swagger
 * UI middleware for a Koa app composed without `Application`.
 * @module koa-model-api/openapi
 */
export type { CrudOperationName, OperationCheck, OperationDeclaration } from '../http/operation.js';
export type { IncludableRelation } from '../model/relations.js';
export type { LikeLimits } from '../query/list-query.js';
export type { JsonSchema } from '../schema/json-schema.js';
export {
  createSchema,
  fieldValueSchema,
  readSchema,
  updateSchema,
  type WriteSchemaOptions,
} from '../schema/model-schemas.js';
export { DEFAULT_DOCS_PATH, type SwaggerUiMiddlewareOptions, swaggerUi } from '../swagger-ui.js';
export {
  headerRef,
  PROBLEM_MEDIA_TYPE,
  PROBLEM_RESPONSES,
  type ProblemResponseName,
  parameterRef,
  responseRef,
  schemaRef,
} from './components.js';
export {
  buildOpenApiDocument,
  DEFAULT_SECURITY_SCHEME,
  OPENAPI_VERSION,
  type OpenApiInfo,
  type OpenApiSources,
} from './document.js';
export { OpenApiRegistry } from './registry.js';
export type * from './types.js';
