/**
 * `AuthRouter`: the authentication plugin bound to one user model. Registration, login,
 * change-password and session (refresh, logout) routes, the admin routes, the JWT dependency, the `owner_or_admin`/`admin_only`
 * policies, `ensure_admin`, `set_password` and `revoke_sessions`, each under its specification
 * name and a camelCase alias.
 */
import { Router } from '@koa/router';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import { Application } from '../application.js';
import { ApiError, ConfigurationError } from '../errors.js';
import { DEFAULT_BODY_LIMIT } from '../http/body.js';
import { consoleLogger, type Logger } from '../http/problem-middleware.js';
import type { GroupRouter, RouteGroup } from '../http/route-group.js';
import { PRIMARY_READS, requireAdapter } from '../http/session.js';
import { aliasMethods } from '../options/spelling.js';
import type {
  AppContext,
  AppState,
  AuthDependency,
  ModelClass,
  OrmAdapter,
  Policy,
  RecordId,
} from '../types.js';
import { type AccountOptions, resolveAccountOptions } from './account/account-options.js';
import { accountLifecycleRoutes } from './account/account-routes.js';
import { AccountService } from './account/account-service.js';
import { mountAccountRoutes } from './account/account-setup.js';
import {
  documentAccountRoutes,
  documentAdminRoutes,
  documentCredentialRoutes,
  documentSessionRoutes,
} from './auth-openapi.js';
import { accountRoutes, adminRoutes } from './auth-routes.js';
import { adminCredentialRoutes, chain, credentialRoutes } from './credential-routes.js';
import { storeRevocation } from './credentials.js';
import { createAuthDependency } from './dependency.js';
import { type EnsureAdminOptions, type EnsureAdminResult, ensureAdmin } from './ensure-admin.js';
import type { AuthRouterOptions } from './options.js';
import { resolveAuthOptions } from './options.js';
import { passwordProblem } from './password-policy.js';
import type { Passwords } from './passwords.js';
import { adminOnlyPolicy, type OwnerOrAdminOptions, ownerOrAdminPolicy } from './policies.js';
import type { AuthRuntime } from './runtime.js';
import type { RefreshSessions } from './sessions/refresh-tokens.js';
import { sessionRoutes } from './sessions/session-routes.js';
import type { LoginThrottle } from './throttle/login-throttle.js';
import type { TokenService } from './tokens.js';
import { bindUserModel, type UserBinding } from './user-binding.js';
import { userWriteHooks } from './user-writes.js';
import type { UsernameRules } from './username.js';

/** Where `set_password` and `revoke_sessions` write. */
export interface CredentialOptions {
  /** A unit of work of the adapter (for MikroORM an `EntityManager`); default a fresh one. */
  readonly db?: unknown;
  /** The adapter, when the router has none yet (not registered on an Application, no `adapter` option). */
  readonly adapter?: OrmAdapter;
}

/** A Koa app, typed with the framework's state or not. @inline */
type AnyKoa = Koa<AppState> | Koa;

/**
 * The authentication plugin.
 *
 * @example
 * const auth = new AuthRouter({ user_model: User });   // secret from JWT_SECRET
 * auth.register_routes(app);                           // POST /register, /login, /refresh, /logout, …
 * auth.register_admin_routes(app);                     // POST /admin/{id}/make-admin, /password, /revoke-sessions
 * new CrudRouter({ model: Post, secure: true, auth_dependency: auth.get_auth_dependency(),
 *   policy: { PUT: auth.owner_or_admin(Post), DELETE: auth.admin_only() } }).register_routes(app);
 */
export class AuthRouter implements AuthRuntime {
  /** The user model (with `AuthMixin` columns) that `/register` and `/login` work on. */
  readonly userModel: ModelClass;
  /** Alias of `register_routes`. */
  declare readonly registerRoutes: AuthRouter['register_routes'];
  /** Alias of `register_admin_routes`. */
  declare readonly registerAdminRoutes: AuthRouter['register_admin_routes'];
  /** Alias of `get_auth_dependency`. */
  declare readonly getAuthDependency: AuthRouter['get_auth_dependency'];
  /** Alias of `owner_or_admin`. */
  declare readonly ownerOrAdmin: AuthRouter['owner_or_admin'];
  /** Alias of `admin_only`. */
  declare readonly adminOnly: AuthRouter['admin_only'];
  /** Alias of `ensure_admin`. */
  declare readonly ensureAdmin: AuthRouter['ensure_admin'];
  /** Alias of `revoke_sessions`. */
  declare readonly revokeSessions: AuthRouter['revoke_sessions'];
  /** Alias of `set_password`. */
  declare readonly setPassword: AuthRouter['set_password'];
  /** Signs and verifies the access tokens. @internal */
  readonly tokens: TokenService;
  /** Hashes and checks passwords with the configured scheme. @internal */
  readonly passwords: Passwords;
  /** The login throttle, or `undefined` when throttling is off. @internal */
  readonly throttle: LoginThrottle | undefined;
  /** Fields a client may not write are refused with 422 instead of dropped. */
  readonly strict: boolean;
  /** The account routes' service (password reset, email verification), once mounted. */
  account: AccountService | undefined;
  private readonly accountOptions: AccountOptions | undefined;
  /** The address field of the `account` option, until account routes are mounted. */
  private readonly configuredEmailField: string;
  /** The unique field `/login` looks users up by. */
  readonly usernameField: string;
  /** How usernames are normalised and checked (`username_case`). */
  readonly usernames: UsernameRules;
  /** Refresh tokens: issued by `/login`, rotated by `/refresh`, revoked by `/logout`. @internal */
  readonly sessions: RefreshSessions;
  /** The JWT dependency, the same as `get_auth_dependency()` returns. */
  readonly dependency: AuthDependency;
  /** Where the plugin logs; replaced by the application's logger when registered on an `Application`. */
  logger: Logger = consoleLogger;
  private readonly adapter: OrmAdapter | undefined;
  /** The adapter of the Application the routes were registered on, for `ensure_admin` without `db`. */
  private registeredAdapter: OrmAdapter | undefined;
  private readonly bindings = new WeakMap<OrmAdapter, UserBinding>();
  private readonly adminPolicy: Policy;
  private readonly defaultRefreshStore: boolean;
  private warnedMemoryStore = false;
  #router: GroupRouter | undefined;
  #adminRouter: GroupRouter | undefined;

  constructor(options: AuthRouterOptions) {
    const resolved = resolveAuthOptions(options);
    this.userModel = resolved.userModel;
    this.tokens = resolved.tokens;
    this.passwords = resolved.passwords;
    this.throttle = resolved.throttle;
    this.strict = resolved.strict;
    this.accountOptions = resolved.account;
    this.configuredEmailField = resolved.emailField;
    this.usernameField = resolved.usernameField;
    this.usernames = resolved.usernames;
    this.sessions = resolved.sessions;
    this.defaultRefreshStore = resolved.defaultRefreshStore;
    this.adapter = resolved.adapter;
    // The dependency carries the user model's write hooks, so a CrudRouter on the user model given
    // it sets no password, and an email change there needs the current one: a stolen token alone
    // must not take the account (issue 15). A router on the user model without them is refused.
    this.dependency = createAuthDependency(this, userWriteHooks(this));
    this.adminPolicy = adminOnlyPolicy(this.dependency);
    // With its own adapter the router can check the user model now rather than on a request.
    if (this.adapter !== undefined) {
      this.binding(this.adapter);
      this.sessions.store.check?.({ adapter: this.adapter });
    }
  }

  /**
   * The user model's email address field: the one the account routes mail to (`email_field`,
   * default `email`). Changing it through the user routes needs the current password.
   */
  get emailField(): string {
    return this.account?.options.emailField ?? this.configuredEmailField;
  }

  /** Takes mounted account routes as this plugin's (see `AuthRuntime.adoptAccount`). @internal */
  adoptAccount(account: AccountService): void {
    const held = this.account?.options;
    const given = account.options;
    // One plugin guards one address field and checks logins one way: account routes mounted
    // twice (two apps) with different settings would leave one of them unguarded.
    if (
      held !== undefined &&
      (held.emailField !== given.emailField || held.requireVerifiedEmail !== given.requireVerifiedEmail)
    ) {
      throw new ConfigurationError(
        'AuthRouter: its account routes are already mounted with another email_field or require_verified_email.',
      );
    }
    this.account = account;
  }

  /** The adapter of a request: the router's own, else the one the app attached. @internal */
  adapterFor(ctx: AppContext): OrmAdapter {
    return requireAdapter(ctx, this.adapter);
  }

  /** The user model compiled for an adapter (once). @internal */
  binding(adapter: OrmAdapter): UserBinding {
    let binding = this.bindings.get(adapter);
    if (binding === undefined) {
      binding = bindUserModel(adapter, this.userModel, {
        strict: this.strict,
        usernameField: this.usernameField,
      });
      this.bindings.set(adapter, binding);
    }
    return binding;
  }

  /** Checks the password rule (422 naming the field) and hashes with the current scheme. */
  async hashPassword(password: unknown, path = 'password'): Promise<string> {
    const problem = passwordProblem(password);
    if (problem !== undefined) throw ApiError.validation([{ path, message: problem }]);
    return this.passwords.hash(password as string);
  }

  /**
   * Adds `POST /register`, `POST /login`, `POST /change-password`, `POST /refresh`, `POST /logout`
   * and `POST /logout-all` to an `Application` (documented) or a plain Koa app.
   */
  register_routes(app: Application | AnyKoa): void {
    if (!this.tokens.canIssue) {
      throw new ConfigurationError(
        'AuthRouter has only a public key: it can verify tokens but not log users in.',
      );
    }
    if (app instanceof Application) {
      const binding = this.attach(app);
      // A registered user's Location points where the app serves users (a CrudRouter's prefix), looked
      // up per request: the users router may be registered after this one.
      const routes = accountRoutes(this, app.bodyLimit, () => app.openapi.collectionPathOf(this.userModel));
      for (const path of ['/register', '/login', '/change-password', '/refresh', '/logout', '/logout-all'])
        app.reservePath(path, 'the auth routes', { kind: 'leaf' });
      app.mount('register', routes);
      app.mount('login', routes);
      app.mount('change-password', credentialRoutes(this, app.bodyLimit));
      const sessions = sessionRoutes(this, app.bodyLimit);
      for (const segment of ['refresh', 'logout', 'logout-all']) app.mount(segment, sessions);
      documentAccountRoutes(app.openapi, binding, this.strict);
      documentCredentialRoutes(app.openapi, binding);
      documentSessionRoutes(app.openapi, binding);
      if (this.accountOptions !== undefined) mountAccountRoutes(app, this, this.accountOptions);
      void this.passwords
        .warmUp()
        .catch((error: unknown) => this.logger.error('password hasher failed', error));
      return;
    }
    (app as Koa).use(this.middleware() as Middleware);
  }

  /** Adds `POST /admin/{id}/make-admin`, `…/password` and `…/revoke-sessions` (administrators only). */
  register_admin_routes(app: Application | AnyKoa): void {
    if (app instanceof Application) {
      const binding = this.attach(app);
      app.mount('admin', adminRoutes(this));
      app.mount('admin', adminCredentialRoutes(this, app.bodyLimit));
      documentAdminRoutes(app.openapi, binding);
      return;
    }
    (app as Koa).use(this.adminMiddleware() as Middleware);
  }

  /** The route groups of `middleware()` and `router`: account, credential, session and account-lifecycle routes. */
  private groups(limit: number): RouteGroup[] {
    const groups = [accountRoutes(this, limit), credentialRoutes(this, limit), sessionRoutes(this, limit)];
    if (this.accountOptions === undefined) return groups;
    this.account ??= new AccountService(
      this,
      resolveAccountOptions(this.accountOptions, { logger: this.logger, store: this.throttle?.store }),
    );
    return [...groups, accountLifecycleRoutes(this.account, limit)];
  }

  /** `POST /register`, `/login`, `/change-password`, `/refresh`, `/logout` and `/logout-all` as ordinary Koa middleware (other paths pass through). */
  middleware(options: { bodyLimit?: number } = {}): Middleware<AppState> {
    const [first, ...rest] = this.groups(options.bodyLimit ?? DEFAULT_BODY_LIMIT) as [
      RouteGroup,
      ...RouteGroup[],
    ];
    return rest.reduce<Middleware<AppState>>((all, group) => chain(all, group), first);
  }

  /**
   * The same routes as `middleware()` as a `@koa/router` `Router`, for mounting in an app's own
   * router: `api.use(auth.router.routes())`, then `koa.use(allowedMethods(api))`. Built on first read.
   */
  get router(): GroupRouter {
    if (this.#router === undefined) {
      const router = new Router<AppState, AppContext>({ sensitive: true });
      for (const group of this.groups(DEFAULT_BODY_LIMIT)) router.use(group.router.routes());
      this.#router = router;
    }
    return this.#router;
  }

  /** `POST /admin/{id}/make-admin`, `…/password` and `…/revoke-sessions` as ordinary Koa middleware. */
  adminMiddleware(options: { bodyLimit?: number } = {}): Middleware<AppState> {
    return chain(adminRoutes(this), adminCredentialRoutes(this, options.bodyLimit ?? DEFAULT_BODY_LIMIT));
  }

  /**
   * The same routes as `adminMiddleware()` as a `@koa/router` `Router`, for mounting in an app's
   * own router: `api.use(auth.adminRouter.routes())`. Built on first read.
   */
  get adminRouter(): GroupRouter {
    if (this.#adminRouter === undefined) {
      const router = new Router<AppState, AppContext>({ sensitive: true });
      for (const group of [adminRoutes(this), adminCredentialRoutes(this, DEFAULT_BODY_LIMIT)])
        router.use(group.router.routes());
      this.#adminRouter = router;
    }
    return this.#adminRouter;
  }

  /** The dependency that validates the bearer token and loads `ctx.state.user`; pass it as `auth_dependency`. */
  get_auth_dependency(): AuthDependency {
    return this.dependency;
  }

  /** Policy: the record's owner or an administrator (`field` names the ownership field when detection cannot). */
  owner_or_admin(model: ModelClass, options: OwnerOrAdminOptions = {}): Policy {
    return ownerOrAdminPolicy(this.dependency, this.userModel, model, options);
  }

  /** Policy: administrators only. */
  admin_only(): Policy {
    return this.adminPolicy;
  }

  /**
   * Creates the administrator when no user with `username` exists; otherwise changes nothing.
   * @example
   * await auth.ensure_admin({ db: adapter.orm.em.fork(), username: 'admin', password, email: 'admin@example.com' });
   */
  ensure_admin(options: EnsureAdminOptions): Promise<EnsureAdminResult> {
    const adapter = options?.adapter ?? this.adapter ?? this.registeredAdapter;
    if (adapter === undefined) {
      return Promise.reject(
        new ConfigurationError(
          'ensure_admin needs an adapter: register the routes on an Application first, or pass `adapter` (to AuthRouter or ensure_admin).',
        ),
      );
    }
    return ensureAdmin(this, adapter, options);
  }

  /**
   * Ends every session of a user: each access token issued until now is refused from the next
   * request on, and every refresh token is revoked (tokens issued afterwards work). Resolves
   * `false` when no user has that key.
   * @example
   * await auth.revoke_sessions(user.id);
   */
  async revoke_sessions(userId: RecordId, options: CredentialOptions = {}): Promise<boolean> {
    const adapter = this.adapterOf(options, 'revoke_sessions');
    const { row } = await storeRevocation(
      this,
      adapter,
      options.db ?? adapter.openSession(PRIMARY_READS),
      userId,
    );
    return row !== undefined;
  }

  /**
   * Sets a user's password (the password rule applies: 422 `ApiError` otherwise) and ends every
   * session of theirs, like `POST /admin/{id}/password`. Resolves `false` when no user has that key.
   */
  async set_password(userId: RecordId, password: string, options: CredentialOptions = {}): Promise<boolean> {
    const adapter = this.adapterOf(options, 'set_password');
    const hashed = await this.hashPassword(password);
    const { row } = await storeRevocation(
      this,
      adapter,
      options.db ?? adapter.openSession(PRIMARY_READS),
      userId,
      hashed,
    );
    return row !== undefined;
  }

  /** The adapter of a programmatic call: given, the router's own, or the registered one. */
  private adapterOf(options: CredentialOptions, what: string): OrmAdapter {
    const adapter = options.adapter ?? this.adapter ?? this.registeredAdapter;
    if (adapter === undefined) {
      throw new ConfigurationError(
        `${what} needs an adapter: register the routes on an Application first, or pass \`adapter\`.`,
      );
    }
    return adapter;
  }

  /** Binds to an Application: its adapter (unless the router has its own) and logger; checks the user model now. */
  private attach(app: Application): UserBinding {
    const adapter = this.adapter ?? app.adapter;
    this.registeredAdapter ??= adapter;
    this.logger = app.logger;
    this.sessions.store.check?.({ adapter });
    if (this.defaultRefreshStore && process.env.NODE_ENV === 'production' && !this.warnedMemoryStore) {
      this.warnedMemoryStore = true;
      this.logger.warn(
        'AuthRouter: refresh tokens are kept in memory (no `refresh_store`): they are lost on restart and not ' +
          'shared between instances. Use AdapterRefreshStore or RedisRefreshStore.',
      );
    }
    return this.binding(adapter);
  }
}

// The camelCase aliases declared above, derived from the specification's names.
aliasMethods(AuthRouter, {
  register_routes: true,
  register_admin_routes: true,
  get_auth_dependency: true,
  owner_or_admin: true,
  admin_only: true,
  ensure_admin: true,
  revoke_sessions: true,
  set_password: true,
});
