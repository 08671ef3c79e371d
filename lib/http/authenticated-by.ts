/**
 * Which user model's dependency set `ctx.state.user` (a dependency that names its `userModel`, as
 * the auth plugin's do). A route whose own dependency names one authenticates by it unless it
 * already did: a user another realm's middleware set in front (a second `AuthRouter`, an API-key
 * dependency) is a key of another table, and its admin flag is no admin flag there. The generated
 * routes (access.ts) and the plugin's own routes that act for the caller ask this.
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
