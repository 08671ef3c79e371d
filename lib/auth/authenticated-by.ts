/**
 * Which user model's dependency set `ctx.state.user`. The plugin's own routes that act for the
 * caller (make-admin, an admin's password reset and revocation, change-password, logout-all, the
 * account routes) authenticate by their router's dependency unless it already did: a user another
 * realm's middleware set (a second `AuthRouter`, an API-key dependency in front of the nested admin
 * routes) is a key of another table, and its admin flag is no admin flag here.
 */
import type { ModelClass, RequestUser } from '../types.js';

const setBy = new WeakMap<object, ModelClass>();

/** Records that the dependency of `userModel`'s router authenticated this request user. */
export function markAuthenticated(user: RequestUser, userModel: ModelClass): RequestUser {
  setBy.set(user, userModel);
  return user;
}

/** Whether `user` was authenticated by the dependency of `userModel`'s router. */
export function authenticatedFor(user: RequestUser | undefined, userModel: ModelClass): boolean {
  return user !== undefined && setBy.get(user) === userModel;
}
