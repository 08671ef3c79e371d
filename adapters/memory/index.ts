/**
 * `koa-model-api/adapters/memory`: the reference in-memory `OrmAdapter`, for tests, prototypes
 * and as the model an adapter author follows (see also `koa-model-api/conformance`).
 * @module koa-model-api/adapters/memory
 */
export { MemoryAdapter, type MemoryAdapterOptions } from './adapter.js';
export {
  defineMemoryModel,
  type JsonValue,
  type MemoryCollectionDeclaration,
  type MemoryDefault,
  type MemoryFieldDeclaration,
  type MemoryManyToMany,
  type MemoryModelDeclaration,
  type MemoryModelOptions,
  type MemoryOneToMany,
  type MemoryRelationField,
  type MemoryScalarField,
  type MemoryTarget,
} from './declaration.js';
export { MemorySession } from './session.js';
