/**
 * The fields a list filter or sort may name: a field of the model, or one step through a
 * many-to-one relation to a field of its target (`author.name`), read by looking the related row
 * up by key, as a SQL adapter joins it.
 */
import { ApiError } from '../../lib/errors.js';
import type { FieldDescription, ModelClass, ModelDescription, RawRecord } from '../../lib/types.js';

/** What a path through a relation needs: the target's description and its rows by key. */
export interface RelatedRows {
  /** The description of a declared model. */
  describe(model: ModelClass): ModelDescription;
  /** The stored row of `model` with that stored key, if any. */
  find(model: ModelClass, key: string | number): RawRecord | undefined;
}

/** A field a query names, resolved. */
export interface FieldPath {
  /** The path as the query names it, for messages. */
  readonly name: string;
  /** The field at its end: its type drives comparisons. */
  readonly field: FieldDescription;
  /**
   * The value of a row: the stored value or NULL; `undefined` when the relation on the way is
   * NULL or refers to no row (an inner join drops that row: it matches no filter).
   */
  read(row: RawRecord): unknown;
}

function unknownField(parameter: string, model: ModelDescription, name: string): ApiError {
  return ApiError.invalidQuery(`${parameter}: ${model.name} has no field "${name}".`);
}

/** Resolves the field a filter (`parameter` = `filter`) or sort names. */
export function resolvePath(
  model: ModelDescription,
  name: string,
  parameter: string,
  related: RelatedRows,
): FieldPath {
  const own = model.fieldsByName.get(name);
  if (own !== undefined) return { name, field: own, read: (row) => row[own.name] ?? null };
  const dot = name.indexOf('.');
  const via = dot > 0 ? model.fieldsByName.get(name.slice(0, dot)) : undefined;
  const targetModel = via?.relation?.targetModel;
  if (via === undefined || targetModel === undefined) throw unknownField(parameter, model, name);
  const target = related.describe(targetModel);
  const field = target.fieldsByName.get(name.slice(dot + 1));
  if (field === undefined) throw unknownField(parameter, target, name.slice(dot + 1));
  return {
    name,
    field,
    read: (row) => {
      const key = row[via.name] ?? null;
      if (key === null) return undefined;
      const other = related.find(targetModel, key as string | number);
      return other === undefined ? undefined : (other[field.name] ?? null);
    },
  };
}
