/**
 * Ownership detection: which field of a model records the user who owns a record. The rule of
 * the contract: the many-to-one field that references the user model; among several, the one
 * named `owner`, then `user`, then `author`, then `created_by`.
 */
import { ConfigurationError } from '../errors.js';
import type { ModelClass, ModelDescription } from '../types.js';

/** Preferred names when several fields reference the user model. */
export const OWNER_FIELD_NAMES = ['owner', 'user', 'author', 'created_by'] as const;

/**
 * The ownership field of `model` for records owned by users of `userModel` (by class or name);
 * `undefined` when no field references the user model. On the user model itself there is none:
 * the record itself is owned.
 */
export function detectOwnerField(
  model: ModelDescription,
  userModel: ModelClass | string,
): string | undefined {
  const userName = typeof userModel === 'string' ? userModel : userModel.name;
  const candidates = model.fields.filter(
    (field) =>
      field.relation !== undefined &&
      (field.relation.targetModel === userModel || field.relation.target === userName),
  );
  if (candidates.length <= 1) return candidates[0]?.name;
  for (const name of OWNER_FIELD_NAMES) if (candidates.some((field) => field.name === name)) return name;
  throw new ConfigurationError(
    `${model.name} has several fields referencing ${userName} (${candidates.map((f) => f.name).join(', ')}) and none is named ${OWNER_FIELD_NAMES.join(', ')}: name the ownership field with the router's owner_field, or say the model has no owner with owner_field: false.`,
  );
}
