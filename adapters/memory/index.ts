/**
 * `koa-model-api/adapters/memory`: the reference in-memory `OrmAdapter`, for tests, prototypes
 * and as the model an adapter author follows (see also `koa-model-api/conformance`).
 */
export { MemoryAdapter, type MemoryAdapterOptions } from './adapter.js';
export {
  defineMemoryModel,
  type JsonValue,
  type MemoryDefault,
  type MemoryFieldDeclaration,
  type MemoryModelDeclaration,
  type MemoryRelationField,
  type MemoryScalarField,
} from './declaration.js';
export { MemorySession } from './session.js';
