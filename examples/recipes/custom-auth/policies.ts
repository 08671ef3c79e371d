/**
 * Policies of your own: values with `requiresUser`, `allows`, an optional list `scope` and a
 * `description` for the OpenAPI document. `authenticate` is the dependency a policy runs when the
 * router itself is not secured.
 */
import {
  ApiError,
  type AuthDependency,
  type Policy,
  type PolicyInput,
  type RecordId,
} from '../../../lib/index.js';

const same = (a: unknown, b: RecordId | undefined): boolean => b !== undefined && String(a) === String(b);

/** Administrators only. */
export function adminOnly(authenticate: AuthDependency): Policy {
  return {
    name: 'admin_only',
    requiresUser: true,
    authenticate,
    description: 'Only administrators may do this.',
    allows: ({ user }) => user?.isAdmin === true,
  };
}

/** The record's owner or an administrator; any signed-in user may create (the router makes them the owner). */
export function ownerOrAdmin(authenticate: AuthDependency, field = 'owner'): Policy {
  return {
    name: 'owner_or_admin',
    requiresUser: true,
    authenticate,
    ownerField: () => field,
    description: `The record's owner (\`${field}\`) or an administrator.`,
    allows: ({ user, record }) =>
      record === undefined || user?.isAdmin === true || same(record[field], user?.id),
  };
}

/**
 * Throws the 404 a missing id gets (`No Article with id "2".`) when the caller may not know that the
 * record exists: a draft (`published` false) that is not theirs, unless they are an administrator.
 */
function hideOthersDrafts({ user, model, record, id }: PolicyInput, field: string): void {
  if (record === undefined || record.published === true) return;
  if (user?.isAdmin === true || same(record[field], user?.id)) return;
  // The id as the path gave it, as a missing record's 404 names it (a case-insensitive key could
  // find `draft-slug` for `Draft-Slug`: naming the stored one would tell them apart).
  throw ApiError.recordNotFound(model, id ?? record[model.primaryKey]);
}

/**
 * Published records for everyone; a draft for its owner and administrators, and for anyone else
 * the same 404 as an id with no record. Lists show published records (administrators see all).
 */
export function publishedOrOwner(authenticate: AuthDependency, field = 'owner'): Policy {
  return {
    name: 'published_or_owner',
    requiresUser: false,
    authenticate,
    description: 'Anyone reads published records; a draft only its owner or an administrator.',
    allows: (input) => {
      hideOthersDrafts(input, field);
      return true;
    },
    // Scope conditions are ANDed with the client's filters: "published OR mine" cannot be one list.
    scope: ({ user }) =>
      user?.isAdmin === true ? undefined : [{ field: 'published', op: '$eq', value: true }],
  };
}

/** `ownerOrAdmin` for writes to records with drafts: someone else's draft answers 404 as if missing, not 403. */
export function ownerOrAdminHidingDrafts(authenticate: AuthDependency, field = 'owner'): Policy {
  const policy = ownerOrAdmin(authenticate, field);
  return {
    ...policy,
    allows: (input) => {
      hideOthersDrafts(input, field);
      return policy.allows(input);
    },
  };
}
