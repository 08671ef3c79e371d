/**
 * The options of `AuthRouter`, each accepted in snake_case and camelCase (one spelling table,
 * lib/options/spelling.ts), checked completely when the router is created: a mistake fails at
 * start-up, never on a request.
 */
import { ConfigurationError } from '../errors.js';
import { hasMethods } from '../options/methods.js';
import { type CamelAliases, SpellingTable } from '../options/spelling.js';
import type { ModelClass, OrmAdapter } from '../types.js';
import { type AccountOptions, emailFieldOf } from './account/account-options.js';
import { hasAuthMixin } from './auth-mixin.js';
import type { PasswordHasher } from './hashers.js';
import { BcryptHasher } from './hashers.js';
import { type JwtAlgorithm, type KeyInput, resolveTokenKeys } from './keys.js';
import { hasherFrom, type PasswordHasherOption, Passwords } from './passwords.js';
import { MemoryRefreshStore } from './sessions/memory-store.js';
import { DEFAULT_REFRESH_TOKEN_LIFETIME, RefreshSessions } from './sessions/refresh-tokens.js';
import { isRefreshTokenStore, type RefreshTokenStore } from './sessions/store.js';
import { LoginThrottle, resolveLimits, type ThrottleLimit } from './throttle/login-throttle.js';
import { MemoryThrottleStore } from './throttle/memory-store.js';
import type { ThrottleStore } from './throttle/store.js';
import { TokenService } from './tokens.js';
import { type UsernameCase, UsernameRules, usernameCaseFrom } from './username.js';

/** Limits of the login throttle; omitted ones keep their defaults. */
export interface ThrottleOptions {
  /** Attempts per (username, client address) (default 5 per 900 s); a successful login clears the count. */
  readonly username?: ThrottleLimit;
  /** Failed attempts per client address, `ctx.ip` (default 100 per 900 s). */
  readonly address?: ThrottleLimit;
  /** `/register` per client address (default 50 per 900 s). */
  readonly register?: ThrottleLimit;
  /** Where counters live (default an in-memory store of at most 10,000 counters). */
  readonly store?: ThrottleStore;
}

/** The options of `AuthRouter` under their snake_case names only; `AuthRouterOptions` adds the aliases. */
export interface AuthRouterSettings {
  /** The user model: `class User extends AuthMixin(FrameworkModel)`. */
  readonly user_model?: ModelClass;
  /** HS256 secret of at least 32 bytes; default the `JWT_SECRET` environment variable. */
  readonly secret?: string;
  /** Former HS256 secrets, still accepted while tokens signed with them expire (key rotation). */
  readonly previous_secrets?: readonly string[];
  /** RS256/ES256 private key (PEM or `KeyObject`); signs tokens. */
  readonly private_key?: KeyInput;
  /** RS256/ES256 public key; derived from the private key when omitted. Alone, the router only verifies. */
  readonly public_key?: KeyInput;
  /** Former public keys still accepted for verification (key rotation). */
  readonly previous_public_keys?: readonly KeyInput[];
  /** `HS256` (with a secret), `RS256` or `ES256` (with a key pair); inferred when omitted. */
  readonly algorithm?: JwtAlgorithm;
  /** Seconds a token stays valid (default 3600). */
  readonly token_lifetime?: number;
  /** Seconds a refresh token stays valid (default 2592000, 30 days); each rotation starts a new lifetime. */
  readonly refresh_token_lifetime?: number;
  /**
   * Where refresh tokens live: `new AdapterRefreshStore({ model: RefreshToken })` (the app's database)
   * or `new RedisRefreshStore({ url })`. Default an in-memory store: one process only.
   */
  readonly refresh_store?: RefreshTokenStore;
  /** The `iss` claim written and required (default `koa-model-api`). */
  readonly issuer?: string;
  /** The `aud` claim written and required (default `koa-model-api`). */
  readonly audience?: string;
  /** `'bcrypt'` (default), `'argon2id'`, or a hasher such as `new BcryptHasher({ cost: 10 })`. */
  readonly password_hasher?: PasswordHasherOption;
  /** The bcrypt cost (4–31, default 12) when the hasher is bcrypt. */
  readonly bcrypt_cost?: number;
  /** Login throttling limits and store, or `false` to turn throttling off. */
  readonly throttle?: ThrottleOptions | false;
  /** Where the throttle keeps its counters (e.g. a `RedisThrottleStore`); same as `throttle.store`. */
  readonly throttle_store?: ThrottleStore;
  /** Refuse fields a client may not write (e.g. `is_admin` on `/register`) with 422 instead of dropping them. */
  readonly strict?: boolean;
  /** The adapter, when the routes are used on a plain Koa app without `useAdapter`. */
  readonly adapter?: OrmAdapter;
  /** The field `/login` looks users up by (default `username`); must be unique. */
  readonly username_field?: string;
  /** `'insensitive'` (default): usernames are stored and compared case-folded; `'sensitive'` keeps case. */
  readonly username_case?: UsernameCase;
  /** Password reset and email verification (`POST /forgot-password`, …); omitted: not mounted. */
  readonly account?: AccountOptions;
}

/** Options of `AuthRouter`. Every snake_case name has a camelCase alias meaning the same (`userModel`, …). */
export interface AuthRouterOptions extends AuthRouterSettings, CamelAliases<AuthRouterSettings> {}

/** The options after checks and defaults. */
export interface ResolvedAuthOptions {
  readonly userModel: ModelClass;
  readonly tokens: TokenService;
  readonly passwords: Passwords;
  readonly throttle: LoginThrottle | undefined;
  readonly strict: boolean;
  readonly adapter: OrmAdapter | undefined;
  readonly usernameField: string;
  /** How usernames are normalised and checked (username.ts). */
  readonly usernames: UsernameRules;
  /** Refresh tokens: their store and lifetime. */
  readonly sessions: RefreshSessions;
  /** Whether the refresh store is the default in-memory one (the router warns in production). */
  readonly defaultRefreshStore: boolean;
  /** The account routes' options, when they are to be mounted. */
  readonly account: AccountOptions | undefined;
  /** The user model's address field: `account.email_field`, default `email`. */
  readonly emailField: string;
}

/** The option names, each snake_case one written once; the camelCase aliases are derived. */
const AUTH_OPTIONS = new SpellingTable<AuthRouterSettings>({
  user_model: true,
  secret: true,
  previous_secrets: true,
  private_key: true,
  public_key: true,
  previous_public_keys: true,
  algorithm: true,
  token_lifetime: true,
  refresh_token_lifetime: true,
  refresh_store: true,
  issuer: true,
  audience: true,
  password_hasher: true,
  bcrypt_cost: true,
  throttle: true,
  throttle_store: true,
  strict: true,
  adapter: true,
  username_field: true,
  username_case: true,
  account: true,
});

/** Every option name `AuthRouter` accepts (snake_case names and their camelCase aliases). */
export const AUTH_ROUTER_OPTION_NAMES: ReadonlySet<string> = AUTH_OPTIONS.names;

function nonEmptyString(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigurationError(`AuthRouter: \`${name}\` must be a non-empty string.`);
  }
  return value;
}

function resolveHasher(options: AuthRouterSettings): PasswordHasher {
  const option = options.password_hasher;
  const cost = options.bcrypt_cost;
  if (cost === undefined) return hasherFrom(option);
  if (option !== undefined && option !== 'bcrypt') {
    throw new ConfigurationError('AuthRouter: `bcrypt_cost` applies only to the bcrypt hasher.');
  }
  return new BcryptHasher({ cost });
}

function resolveThrottle(options: AuthRouterSettings): LoginThrottle | undefined {
  const throttle = options.throttle;
  const separateStore = options.throttle_store;
  if (throttle === false) {
    if (separateStore !== undefined)
      throw new ConfigurationError('AuthRouter: `throttle: false` with a throttle store.');
    return undefined;
  }
  if (throttle !== undefined && (typeof throttle !== 'object' || throttle === null)) {
    throw new ConfigurationError('AuthRouter: `throttle` must be an object of limits or false.');
  }
  for (const key of Object.keys(throttle ?? {})) {
    if (!['username', 'address', 'register', 'store'].includes(key)) {
      throw new ConfigurationError(
        `AuthRouter: unknown throttle option \`${key}\` (username, address, register, store).`,
      );
    }
  }
  if (throttle?.store !== undefined && separateStore !== undefined && throttle.store !== separateStore) {
    throw new ConfigurationError(
      'AuthRouter: give the throttle store once (`throttle.store` or `throttle_store`).',
    );
  }
  const store = throttle?.store ?? separateStore ?? new MemoryThrottleStore();
  if (!hasMethods<ThrottleStore>(store, ['hit', 'undo', 'reset']))
    throw new ConfigurationError('AuthRouter: the throttle store must implement hit, undo and reset.');
  return new LoginThrottle(store, resolveLimits(throttle));
}

function resolveLifetime(options: AuthRouterSettings): number {
  const lifetime = options.token_lifetime ?? 3600;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > 366 * 24 * 3600) {
    throw new ConfigurationError(
      `AuthRouter: \`token_lifetime\` must be a whole number of seconds from 1 to one year.`,
    );
  }
  return lifetime;
}

function resolveSessions(options: AuthRouterSettings): { sessions: RefreshSessions; defaultStore: boolean } {
  const lifetime = options.refresh_token_lifetime ?? DEFAULT_REFRESH_TOKEN_LIFETIME;
  if (!Number.isInteger(lifetime) || lifetime < 60 || lifetime > 5 * 366 * 24 * 3600) {
    throw new ConfigurationError(
      'AuthRouter: `refresh_token_lifetime` must be a whole number of seconds from 60 to five years.',
    );
  }
  const given = options.refresh_store;
  if (given !== undefined && !isRefreshTokenStore(given)) {
    throw new ConfigurationError(
      'AuthRouter: `refresh_store` must implement insert, find, revokeFamily and revokeUser (AdapterRefreshStore, RedisRefreshStore, MemoryRefreshStore).',
    );
  }
  return {
    sessions: new RefreshSessions(given ?? new MemoryRefreshStore(), lifetime),
    defaultStore: given === undefined,
  };
}

function accountOptionsOf(value: unknown): AccountOptions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null)
    throw new ConfigurationError('AuthRouter: `account` must be an object of account options (or omitted).');
  return value as AccountOptions;
}

/** Checks every option and builds the router's services. */
export function resolveAuthOptions(raw: AuthRouterOptions): ResolvedAuthOptions {
  if (typeof raw !== 'object' || raw === null)
    throw new ConfigurationError('AuthRouter needs an options object.');
  const options = AUTH_OPTIONS.read(raw, 'AuthRouter');
  const userModel = options.user_model;
  if (typeof userModel !== 'function') {
    throw new ConfigurationError(
      'AuthRouter needs `user_model`: the user model class (class User extends AuthMixin(FrameworkModel)).',
    );
  }
  if (!hasAuthMixin(userModel)) {
    throw new ConfigurationError(`AuthRouter: ${userModel.name} must extend AuthMixin(FrameworkModel).`);
  }
  const keys = resolveTokenKeys({
    algorithm: options.algorithm,
    secret: options.secret,
    previousSecrets: options.previous_secrets,
    privateKey: options.private_key,
    publicKey: options.public_key,
    previousPublicKeys: options.previous_public_keys,
  });
  const tokens = new TokenService(keys, {
    lifetime: resolveLifetime(options),
    issuer: nonEmptyString('issuer', options.issuer, 'koa-model-api'),
    audience: nonEmptyString('audience', options.audience, 'koa-model-api'),
  });
  const strict = options.strict ?? false;
  if (typeof strict !== 'boolean') throw new ConfigurationError('AuthRouter: `strict` must be a boolean.');
  const adapter = options.adapter;
  if (adapter !== undefined && typeof adapter?.describe !== 'function') {
    throw new ConfigurationError('AuthRouter: `adapter` must be an OrmAdapter.');
  }
  const { sessions, defaultStore } = resolveSessions(options);
  const account = accountOptionsOf(options.account);
  return {
    userModel,
    tokens,
    sessions,
    defaultRefreshStore: defaultStore,
    passwords: new Passwords(resolveHasher(options)),
    throttle: resolveThrottle(options),
    strict,
    adapter,
    usernameField: nonEmptyString('username_field', options.username_field, 'username'),
    usernames: new UsernameRules(usernameCaseFrom(options.username_case)),
    account,
    emailField: emailFieldOf(account),
  };
}
