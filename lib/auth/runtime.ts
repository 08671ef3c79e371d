/** What the auth routes and `ensure_admin` use of their `AuthRouter` (kept apart to avoid an import cycle). */
import type { Logger } from '../http/problem-middleware.js';
import type { AppContext, AuthDependency, ModelClass, OrmAdapter } from '../types.js';
import type { ResolvedAccountOptions } from './account/account-options.js';
import type { Passwords } from './passwords.js';
import type { RefreshSessions } from './sessions/refresh-tokens.js';
import type { LoginThrottle } from './throttle/login-throttle.js';
import type { TokenService } from './tokens.js';
import type { UserBinding } from './user-binding.js';
import type { UsernameRules } from './username.js';

/** The services of one `AuthRouter`. */
export interface AuthRuntime {
  readonly userModel: ModelClass;
  readonly tokens: TokenService;
  readonly passwords: Passwords;
  readonly throttle: LoginThrottle | undefined;
  readonly dependency: AuthDependency;
  readonly logger: Logger;
  /** Refresh tokens (issued at login, rotated by `POST /refresh`), when the router has them. */
  readonly sessions?: RefreshSessions;
  /** How usernames are normalised and checked. */
  readonly usernames?: UsernameRules;
  /** The address the account routes mail to, read per request: mounting them may name it later. */
  readonly emailField: string;
  /**
   * The account routes' settings (password reset, email verification), once mounted; only what the
   * login route reads of the account service, so this file does not import the service back.
   */
  readonly account?: { readonly options: ResolvedAccountOptions } | undefined;
  /**
   * Makes mounted account routes the plugin's own, so that the login's verified-email check and
   * the user routes' address guard read the settings the routes mail with.
   */
  adoptAccount(account: { readonly options: ResolvedAccountOptions }): void;
  /** The adapter of a request: the router's own, or the application's. */
  adapterFor(ctx: AppContext): OrmAdapter;
  /** The user model compiled for an adapter (once per adapter). */
  binding(adapter: OrmAdapter): UserBinding;
  /** Checks the password rule (422 naming `path`) and hashes it with the current scheme. */
  hashPassword(password: unknown, path?: string): Promise<string>;
}
