/**
 * The plugin's policies, values a `CrudRouter` enforces per HTTP method. Both need a user and
 * authenticate the request themselves, so an unsecured router can still have admin-only writes.
 */
import { ConfigurationError } from '../errors.js';
import type {
  AuthDependency,
  FilterCondition,
  ModelClass,
  ModelDescription,
  Policy,
  PolicyInput,
} from '../types.js';
import { detectOwnership, type Ownership, ownerIdOf, sameKey } from './ownership.js';

/** Options of `owner_or_admin`. */
export interface OwnerOrAdminOptions {
  /** The ownership field, when the detection rule cannot find it. */
  readonly field?: string;
}

/** `admin_only()`: only users holding the admin flag. */
export function adminOnlyPolicy(dependency: AuthDependency): Policy {
  return Object.freeze({
    name: 'admin_only',
    requiresUser: true,
    authenticate: dependency,
    description: 'Only administrators may do this.',
    allows: ({ user }: PolicyInput) => user?.isAdmin === true,
  });
}

/**
 * `owner_or_admin(Model)`: an admin may act on any record, another user only on records they own.
 * Lists are narrowed to the caller's own records; a create is allowed (the router sets the owner).
 */
export function ownerOrAdminPolicy(
  dependency: AuthDependency,
  userModel: ModelClass,
  model: ModelClass,
  options: OwnerOrAdminOptions = {},
): Policy {
  if (typeof model !== 'function')
    throw new ConfigurationError('owner_or_admin needs the model class, e.g. owner_or_admin(Post).');
  if (options.field !== undefined && (typeof options.field !== 'string' || options.field === '')) {
    throw new ConfigurationError('owner_or_admin: `field` must be a field name.');
  }
  const resolved = new WeakMap<ModelDescription, Ownership>();

  /** The ownership of the router's model, checked on first use (at the router's registration). */
  const ownershipOf = (description: ModelDescription): Ownership => {
    let ownership = resolved.get(description);
    if (ownership === undefined) {
      if (description.model !== model) {
        throw new ConfigurationError(
          `owner_or_admin(${model.name}) is used on the router of ${description.name}; pass ${description.name}.`,
        );
      }
      ownership = detectOwnership(description, userModel, options.field);
      if (ownership === undefined) {
        throw new ConfigurationError(
          `owner_or_admin(${model.name}): no field of ${model.name} references ${userModel.name}; add a many-to-one ` +
            'relation to it or name the field: owner_or_admin(Model, { field }).',
        );
      }
      resolved.set(description, ownership);
    }
    return ownership;
  };

  const fieldName = options.field ?? 'the owner field';
  return Object.freeze({
    name: 'owner_or_admin',
    requiresUser: true,
    authenticate: dependency,
    description:
      model === userModel && options.field === undefined
        ? 'A user may act on their own record; administrators on any.'
        : `The record's owner (\`${fieldName}\`) or an administrator.`,
    ownerField: (description: ModelDescription): string | undefined => {
      const ownership = ownershipOf(description);
      return ownership.kind === 'field' ? ownership.field : undefined;
    },
    allows: ({ user, model: description, record }: PolicyInput): boolean => {
      if (user === undefined) return false;
      if (user.isAdmin) return true;
      if (record === undefined) return true;
      return sameKey(ownerIdOf(record, ownershipOf(description), description), user.id);
    },
    scope: ({ user, model: description }: PolicyInput): readonly FilterCondition[] | undefined => {
      if (user === undefined || user.isAdmin) return undefined;
      const ownership = ownershipOf(description);
      const field = ownership.kind === 'self' ? description.primaryKey : ownership.field;
      return [{ field, op: '$eq', value: user.id }];
    },
  });
}
