/** `CrudRouter`: the five routes of the specification (plus PATCH) for one model. */
import type Koa from 'koa';
import type { Middleware, Next } from 'koa';
import { Application } from '../application.js';
import { ConfigurationError } from '../errors.js';
import { DEFAULT_BODY_LIMIT } from '../http/body.js';
import { type GroupRouter, type RouteGroup, routeGroup } from '../http/route-group.js';
import { requireAdapter, useAdapterIfMissing } from '../http/session.js';
import { aliasMethods } from '../options/spelling.js';
import type { AppContext, AppState, OrmAdapter } from '../types.js';
import { type CrudRouterOptions, type ResolvedCrudOptions, resolveCrudOptions } from './crud-options.js';
import { type CrudPlan, compileCrudPlan } from './crud-plan.js';
import { crudOperations, crudRoutes } from './crud-routes.js';
import { adapterDirectory, type PlanDirectory } from './plan-directory.js';

/**
 * Generates `GET/POST /{resource}` and `GET/PUT/PATCH/DELETE /{resource}/{id}` for a model.
 *
 * @example
 * new CrudRouter({ model: Post, secure: true, auth_dependency: auth.get_auth_dependency(),
 *   policy: { PUT: auth.owner_or_admin(Post), DELETE: auth.admin_only() } }).register_routes(app);
 */
export class CrudRouter {
  /** The checked options. */
  readonly options: ResolvedCrudOptions;
  /** Alias of `register_routes`. */
  declare readonly registerRoutes: CrudRouter['register_routes'];
  // One plan per directory (an application, or an adapter for plain Koa use): a router registered
  // on two applications over one adapter finds each application's own routers for its relations.
  private readonly plans = new WeakMap<PlanDirectory, { plan: CrudPlan; middleware: RouteGroup }>();

  constructor(options: CrudRouterOptions) {
    this.options = resolveCrudOptions(options);
  }

  /** Compiles (once per directory) the plan and its route table, and lists the plan in the directory. */
  private compiled(
    adapter: OrmAdapter,
    bodyLimit: number,
    directory: PlanDirectory,
  ): { plan: CrudPlan; middleware: RouteGroup } {
    let entry = this.plans.get(directory);
    if (entry === undefined) {
      const plan = compileCrudPlan(this.options, adapter, bodyLimit, directory);
      entry = { plan, middleware: routeGroup(plan.basePath, crudRoutes(plan)) };
      this.plans.set(directory, entry);
      directory.add(plan);
    }
    return entry;
  }

  /**
   * The routes as a `@koa/router` `Router` (prefix `{prefix}/{resource}`), for mounting in an app's
   * own router: `api.use(crud.router.routes())`, then `koa.use(allowedMethods(api))`. Needs the `adapter`
   * option: the paths come from the model's table name, which the adapter knows.
   */
  get router(): GroupRouter {
    const adapter = this.options.adapter;
    if (adapter === undefined) {
      throw new ConfigurationError(
        `CrudRouter for ${this.options.model.name}: \`router\` needs the router's adapter (new CrudRouter({ model, adapter })), since its paths come from the model's table name.`,
      );
    }
    return this.compiled(adapter, DEFAULT_BODY_LIMIT, adapterDirectory(adapter)).middleware.router;
  }

  /** Adds the routes to an `Application` (dispatched by resource) or to a plain Koa app. */
  register_routes(app: Application | Koa<AppState> | Koa): void {
    if (app instanceof Application) {
      const adapter = this.options.adapter ?? app.adapter;
      const { plan, middleware } = this.compiled(adapter, app.bodyLimit, app.plans);
      const hooks = this.options.writeHooks;
      // Documented first: a second router on the same path is refused there, naming both.
      app.openapi.addCrud({
        description: plan.model,
        operations: crudOperations(plan),
        prefix: this.options.prefix,
        secure: this.options.secure,
        authenticates: this.options.authDependency !== undefined,
        ...(this.options.authDependency?.securityScheme === undefined
          ? {}
          : { securityScheme: this.options.authDependency.securityScheme }),
        policies: this.options.policies,
        readOnlyFields: plan.readOnlyFields,
        ...(plan.ownerField === undefined ? {} : { ownerField: plan.ownerField }),
        extraInputFields: hooks?.extraFields ?? {},
        extraRequiredOnCreate: hooks?.requiredOnCreate ?? [],
        ...(hooks?.fieldRules === undefined ? {} : { fieldRules: hooks.fieldRules }),
        ...(hooks?.deleteRule === undefined ? {} : { deleteRule: hooks.deleteRule }),
        strict: this.options.strict,
        like: this.options.like,
        relations: () => plan.relations(),
        includeLimit: this.options.includeLimit,
      });
      app.reservePath(plan.basePath, `the CrudRouter of ${plan.model.name}`, { kind: 'resource' });
      app.mount(plan.basePath.split('/')[1] ?? '', middleware);
      return;
    }
    if (this.options.adapter !== undefined) useAdapterIfMissing(app as Koa, this.options.adapter);
    app.use(this.middleware() as Middleware);
  }

  /**
   * Ordinary Koa middleware serving this router's routes and calling `next()` for every other
   * path, for composing into an existing Koa app. The adapter comes from the options or from
   * `useAdapter(koaApp, adapter)`.
   */
  middleware(options: { bodyLimit?: number } = {}): Middleware<AppState> {
    const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    // With its own adapter the router compiles now, so that routers of related models find it
    // before its first request; otherwise it compiles on its first request.
    const own = this.options.adapter;
    if (own !== undefined) this.compiled(own, bodyLimit, adapterDirectory(own));
    return (ctx: AppContext, next: Next) => {
      const adapter = requireAdapter(ctx, this.options.adapter);
      return this.compiled(adapter, bodyLimit, adapterDirectory(adapter)).middleware(ctx, next);
    };
  }
}

aliasMethods(CrudRouter, { register_routes: true });
