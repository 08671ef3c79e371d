/**
 * Which user model's dependency set `ctx.state.user` (a dependency that names its `userModel`, as
 * the auth plugin's do). A route whose own dependency names a user model takes a user set in front
 * of it, unless another user model's dependency set that user: then it is a key of another table,
 * and its admin flag no admin flag here (two `AuthRouter`s in one app), and the route authenticates
 * by its own dependency. A user of unknown origin (an app's own middleware, a copy that narrows the
 * rights of the plugin's user) is taken as it is, as a router in front decided. The generated
 * routes (access.ts) and the plugin's own routes that act for the caller ask this.
 */
import type { ModelClass, RequestUser } from '../types.js';

const setBy = new WeakMap<object, ModelClass>();

/** Records that the dependency of `userModel`'s router authenticated this request user. */
export function markAuthenticated(user: RequestUser, userModel: ModelClass): RequestUser {
  setBy.set(user, userModel);
  return user;
}

/** Whether a route of `userModel`'s router must authenticate the request itself: no user yet, or one of another user model's dependency. */
export function needsOwnAuthentication(user: RequestUser | undefined, userModel: ModelClass): boolean {
  if (user === undefined) return true;
  const model = setBy.get(user);
  return model !== undefined && model !== userModel;
}
