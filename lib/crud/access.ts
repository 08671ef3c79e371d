/**
 * Who may use a router's routes: its authentication (the secured router's dependency, then the
 * method policy's own) and its policies. The generated handlers use it for their own model; the
 * relation features use it for the router that serves a related model, so an embedded record is
 * read under the same rules as through its own routes.
 */
import type { Middleware } from 'koa';
import { ApiError } from '../errors.js';
import { needsOwnAuthentication } from '../http/authenticated-by.js';
import type {
  AppContext,
  AppState,
  CrudMethod,
  ModelClass,
  Policy,
  PolicyInput,
  RawRecord,
  RecordId,
} from '../types.js';
import type { CrudPlan } from './crud-plan.js';

const noop = async (): Promise<void> => {};

/** Runs one authentication middleware to its end (any thenable a custom one returns is awaited). */
async function run(dependency: Middleware<AppState>, ctx: AppContext): Promise<void> {
  await dependency(ctx, noop);
}

/**
 * Authenticates the caller, the one way every route does: a secured router's dependency first;
 * then, while there is still no user, the method policy's own `authenticate` (so that an unsecured
 * router can guard some methods, and an anonymous caller gets its 401 before learning whether a
 * record exists). A create without such a policy on a router that sets the owner from the caller
 * runs the plan's `ownerAuthentication` instead. Returns a promise only when a dependency runs.
 */
export function authenticate(plan: CrudPlan, ctx: AppContext, method: CrudMethod): undefined | Promise<void> {
  const { secure, authDependency, policies } = plan.options;
  const router = secure ? authDependency : undefined;
  const policy = policies[method]?.authenticate ?? (method === 'POST' ? plan.ownerAuthentication : undefined);
  if (ctx.state.user !== undefined) {
    // Set in front of the router: taken, unless another user model's dependency set it while the
    // router's own dependency names its user model (another realm's user: authenticated-by.ts).
    const own = router ?? policy;
    const model = (own as { readonly userModel?: ModelClass } | undefined)?.userModel;
    if (own === undefined || model === undefined || !needsOwnAuthentication(ctx.state.user, model))
      return undefined;
    return run(own, ctx);
  }
  if (router === undefined) return policy === undefined ? undefined : run(policy, ctx);
  if (policy === undefined || policy === router) return run(router, ctx);
  return run(router, ctx).then(() => (ctx.state.user === undefined ? run(policy, ctx) : undefined));
}

/**
 * The method's policy decides on the authenticated caller: 401 without a user when one is needed,
 * 403 when refused (with `refusal` as the detail when given). Returns a promise only when `allows`
 * answers with one, so that the usual synchronous policy costs the request no promise. A create
 * on a router that sets the owner from the caller needs a caller whatever the policies say.
 */
export function enforce(
  plan: CrudPlan,
  ctx: AppContext,
  method: CrudMethod,
  record?: RawRecord,
  refusal?: string,
  id?: RecordId,
): undefined | Promise<void> {
  // No client may write the owner here, so an anonymous create could only store a record owned by
  // nobody (or fail the field's own required check with a 422 that blames the body).
  if (method === 'POST' && plan.ownerField !== undefined && ctx.state.user === undefined) {
    throw ApiError.unauthorized(
      `A create sets \`${plan.ownerField}\` to the caller: it needs a signed-in caller.`,
    );
  }
  const policy: Policy | undefined = plan.options.policies[method];
  if (policy === undefined) return undefined;
  const user = ctx.state.user;
  if (policy.requiresUser && user === undefined) {
    throw refusal === undefined
      ? ApiError.unauthorized()
      : ApiError.unauthorized(`${refusal} needs a signed-in caller.`);
  }
  const input: PolicyInput =
    record === undefined
      ? { user, method, model: plan.model }
      : id === undefined
        ? { user, method, model: plan.model, record }
        : { user, method, model: plan.model, record, id };
  const allowed = policy.allows(input);
  const refuse = (): ApiError =>
    ApiError.forbidden(refusal === undefined ? undefined : `${refusal} is not allowed to you.`);
  if (typeof allowed === 'boolean') {
    if (!allowed) throw refuse();
    return undefined;
  }
  return Promise.resolve(allowed).then((yes) => {
    if (!yes) throw refuse();
  });
}

/**
 * Whether the caller may read the target router's records without narrowing, for a relation
 * (`include=owner`, `filter[owner.name]`): the router's authentication, its read policy without a
 * record, and no `scope` (a router that shows each caller only some records cannot have them
 * embedded or searched through another model). `what` names the relation in the refusal.
 */
export async function admitRelationRead(target: CrudPlan, ctx: AppContext, what: string): Promise<void> {
  const authenticating = authenticate(target, ctx, 'GET');
  if (authenticating !== undefined) await authenticating;
  const deciding = enforce(target, ctx, 'GET', undefined, what);
  if (deciding !== undefined) await deciding;
  const policy = target.options.policies.GET;
  const scope = policy?.scope?.({ user: ctx.state.user, method: 'GET', model: target.model });
  if (scope !== undefined && scope.length > 0) {
    throw ApiError.forbidden(
      `${what} is not allowed to you: ${target.model.name} records are shown to each caller only in part.`,
    );
  }
}
