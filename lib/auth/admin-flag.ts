/**
 * The admin flag rule: the first of `is_admin`, `is_superuser`, `is_staff`, `is_master` present on
 * the user model is the authority for admin-only policies; no configuration is needed.
 */
import { ConfigurationError } from '../errors.js';
import type { ModelDescription } from '../types.js';

/** The admin flag names, in the order the plugin looks for them. */
export const ADMIN_FLAGS = ['is_admin', 'is_superuser', 'is_staff', 'is_master'] as const;

/** One of the admin flag names. */
export type AdminFlag = (typeof ADMIN_FLAGS)[number];

/** The admin flag of a user model description, or `undefined` when it has none. */
export function findAdminFlag(model: ModelDescription): AdminFlag | undefined {
  return ADMIN_FLAGS.find((name) => model.fieldsByName.has(name));
}

/** The admin flag of a user model; a `ConfigurationError` when the model has none. */
export function adminFlagOf(model: ModelDescription): AdminFlag {
  checkFlagNames(model);
  const flag = findAdminFlag(model);
  if (flag === undefined) {
    throw new ConfigurationError(
      `User model ${model.name} has no admin flag (${ADMIN_FLAGS.join(', ')}): declare it as \`class ${model.name} extends AuthMixin(FrameworkModel)\`.`,
    );
  }
  return flag;
}

/**
 * The plugin finds, reads, writes and protects the flag by one name: a flag served under another
 * JSON name (`serializedName`), or another property served under a flag's name, would split them.
 */
function checkFlagNames(model: ModelDescription): void {
  const flags: readonly string[] = ADMIN_FLAGS;
  for (const field of model.fields) {
    if (field.property === undefined) continue;
    if (flags.includes(field.property))
      throw new ConfigurationError(
        `User model ${model.name}: the admin flag ${field.property} is served as "${field.name}" (serializedName); the auth plugin reads, writes and protects the flag by its own name. Remove the serializedName.`,
      );
    if (flags.includes(field.name))
      throw new ConfigurationError(
        `User model ${model.name}: the property ${field.property} is served under the admin flag's name "${field.name}" (serializedName). Give it another serializedName.`,
      );
  }
}

/** Reads an admin flag value as stored (drivers may give 1/0 or '1'/'0' for booleans). */
export function isTruthyFlag(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value) !== 0;
  if (typeof value === 'string') return value === '1' || value.toLowerCase() === 'true';
  return false;
}
