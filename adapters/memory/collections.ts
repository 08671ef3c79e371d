/**
 * Compiles the to-many collections of memory declarations into `CollectionDescription`s and
 * where their links live: the target's foreign key for a one-to-many, a link table for a
 * many-to-many (the owning side's own, read backwards by the inverse side). Runs after every
 * model's fields are compiled, since a collection is checked against the other side's declaration.
 */
import { ConfigurationError } from '../../lib/errors.js';
import type { CollectionDescription, ModelClass } from '../../lib/types.js';
import { compileModel, type Declarations } from './compile.js';
import type { CollectionSource, CompiledCollection, CompiledModel } from './compiled.js';
import type { MemoryCollectionDeclaration, MemoryModelDeclaration } from './declaration.js';

/** Fields only: what the first compilation pass produced. */
type FieldModels = ReadonlyMap<ModelClass, CompiledModel>;

/** The link source of a one-to-many, after checking its inverse field points back at `owner`. */
function oneToManySource(
  where: string,
  owner: ModelClass,
  target: CompiledModel,
  inverseField: string,
): CollectionSource {
  if (target.fieldsByName.get(inverseField)?.target !== owner) {
    throw new ConfigurationError(
      `${where}: inverseField "${inverseField}" is not a many-to-one field of ${target.description.name} pointing to ${owner.name}.`,
    );
  }
  return { kind: 'foreign-key', field: inverseField };
}

/** The link source of an inverse many-to-many, after checking the owning side points back at `owner`. */
function inverseSource(
  where: string,
  owner: ModelClass,
  target: ModelClass,
  mappedBy: string,
  declarations: Declarations,
): CollectionSource {
  const owning = declarations.declarationOf(target).collections?.[mappedBy];
  const pointsBack =
    owning !== undefined &&
    owning.kind === 'many-to-many' &&
    owning.mappedBy === undefined &&
    declarations.target(`${target.name}.${mappedBy}`, owning.target) === owner;
  if (!pointsBack) {
    throw new ConfigurationError(
      `${where}: mappedBy "${mappedBy}" is not an owning many-to-many collection of ${target.name} pointing to ${owner.name}.`,
    );
  }
  return { kind: 'link-table', owner: target, name: mappedBy, inverse: true };
}

function compileCollection(
  owner: CompiledModel,
  name: string,
  decl: MemoryCollectionDeclaration,
  models: FieldModels,
  declarations: Declarations,
): CompiledCollection {
  const where = `${owner.description.name}.${name}`;
  const ownerModel = owner.description.model;
  if (decl.kind !== 'one-to-many' && decl.kind !== 'many-to-many') {
    throw new ConfigurationError(
      `${where}: unknown collection kind "${String((decl as { kind: unknown }).kind)}"; use one-to-many or many-to-many.`,
    );
  }
  const targetModel = declarations.target(where, decl.target);
  const target = models.get(targetModel) as CompiledModel;
  let source: CollectionSource;
  if (decl.kind === 'one-to-many') source = oneToManySource(where, ownerModel, target, decl.inverseField);
  else if (decl.mappedBy !== undefined)
    source = inverseSource(where, ownerModel, targetModel, decl.mappedBy, declarations);
  else source = { kind: 'link-table', owner: ownerModel, name, inverse: false };
  const description: CollectionDescription = {
    name,
    kind: decl.kind,
    target: targetModel.name,
    targetModel,
    targetKey: target.primary.field.name,
    targetKeyType: target.primary.field.type,
    ...(source.kind === 'foreign-key' ? { inverseField: source.field } : {}),
    writable: source.kind === 'link-table' && !source.inverse,
  };
  return { description: Object.freeze(description), source };
}

/**
 * The model compiled again with its collections, which `buildModelDescription` checks (a dot, a
 * field's name, a name given twice) and lists in the description.
 */
export function withCollections(
  declaration: MemoryModelDeclaration,
  models: FieldModels,
  declarations: Declarations,
): CompiledModel {
  const model = models.get(declaration.model) as CompiledModel;
  const entries = Object.entries(declaration.collections ?? {});
  if (entries.length === 0) return model;
  const collections = entries.map(([name, decl]) =>
    compileCollection(model, name, decl, models, declarations),
  );
  return compileModel(declaration, declarations, collections);
}
