/**
 * Compiles a MemoryAdapter's declarations in two passes: every model's fields first, then the
 * collections, which need the fields of the models on both of their sides.
 */
import type { ModelClass } from '../../lib/types.js';
import { withCollections } from './collections.js';
import { compileModel, Declarations } from './compile.js';
import type { CompiledModel } from './compiled.js';
import type { MemoryModelDeclaration } from './declaration.js';

/** Compiles every declaration; relation targets must be among them. */
export function compileModels(list: readonly MemoryModelDeclaration[]): Map<ModelClass, CompiledModel> {
  const declarations = new Declarations(list);
  const fieldsOnly = new Map(
    list.map((declaration) => [declaration.model, compileModel(declaration, declarations)]),
  );
  return new Map(
    list.map((declaration) => [declaration.model, withCollections(declaration, fieldsOnly, declarations)]),
  );
}
