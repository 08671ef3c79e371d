/**
 * `koa-model-api/adapter-kit`: what an `OrmAdapter` author builds on (docs/adapters.md). The model
 * description builder and its naming rules, the `FrameworkModel` markers a mixin declares columns
 * and protected fields with, the ownership rule, the list query's operators and limits, the
 * `$like` pattern reader, and the contract types (also exported by the root).
 * @module koa-model-api/adapter-kit
 */
export { buildModelDescription, type FieldFacts, type ModelFacts, tableNameOf } from './model/describe.js';
export {
  explicitTableName,
  MIXIN_FIELDS,
  type MixinFieldSpec,
  mixinFieldsOf,
  PROTECTED_FIELDS,
  protectedFieldsOf,
} from './model/framework-model.js';
export { detectOwnerField, OWNER_FIELD_NAMES } from './model/ownership.js';
export { defaultTableName, snakeCase } from './model/table-name.js';
export { type LikeToken, parseLikePattern, toSqlLike } from './query/like-pattern.js';
export { FILTER_OPERATORS, LIST_LIMITS } from './query/list-query.js';
export type * from './types.js';
