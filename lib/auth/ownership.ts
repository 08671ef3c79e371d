/**
 * Ownership as the policies see it: a field holding the owner's key (found by the core's
 * detection rule, or named explicitly), or — on the user model itself — the record itself.
 */
import { ConfigurationError } from '../errors.js';
import { detectOwnerField } from '../model/ownership.js';
import type { ModelClass, ModelDescription, RawRecord, RecordId } from '../types.js';

export { detectOwnerField, OWNER_FIELD_NAMES } from '../model/ownership.js';

/** How a record's owner is found. */
export type Ownership =
  | {
      /** The owner's key is held in a field of the record. */
      readonly kind: 'field';
      /** Name of that field. */
      readonly field: string;
    }
  | {
      /** The record is the user itself (the user model). */
      readonly kind: 'self';
    };

/**
 * The ownership of a model's records for users of `userModel`; `undefined` when it has none.
 * An explicit `field` must exist; several candidate fields without a preferred name throw.
 */
export function detectOwnership(
  model: ModelDescription,
  userModel: ModelClass,
  explicit?: string,
): Ownership | undefined {
  if (explicit !== undefined) {
    if (!model.fieldsByName.has(explicit)) {
      throw new ConfigurationError(`owner_or_admin: ${model.name} has no field "${explicit}".`);
    }
    return { kind: 'field', field: explicit };
  }
  if (model.model === userModel) return { kind: 'self' };
  const field = detectOwnerField(model, userModel);
  return field === undefined ? undefined : { kind: 'field', field };
}

/** The owner's key of a stored record (a relation may come as a key or as the referenced row). */
export function ownerIdOf(
  record: Readonly<RawRecord>,
  ownership: Ownership,
  model: ModelDescription,
): unknown {
  if (ownership.kind === 'self') return record[model.primaryKey];
  const value = record[ownership.field];
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    const key = model.fieldsByName.get(ownership.field)?.relation?.targetKey ?? 'id';
    return (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Whether a stored key and the caller's id are the same (a bigint key may arrive as a string). */
export function sameKey(stored: unknown, id: RecordId | undefined): boolean {
  if (id === undefined) return false;
  if (typeof stored !== 'string' && typeof stored !== 'number' && typeof stored !== 'bigint') return false;
  return String(stored) === String(id);
}
