/**
 * The options of `AuthRouter`, each accepted in snake_case and camelCase, checked completely when
 * the router is created: a mistake fails at start-up, never on a request.
 */
import { ConfigurationError } from '../errors.js';
import type { ModelClass, OrmAdapter } from '../types.js';
import type { AccountOptions } from './account/account-options.js';
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

/** Options of `AuthRouter`. Every snake_case name has a camelCase alias meaning the same. */
export interface AuthRouterOptions {
  /** The user model: `class User extends AuthMixin(FrameworkModel)`. */
  readonly user_model?: ModelClass;
  /** Alias of `user_model`. */
  readonly userModel?: ModelClass;
  /** HS256 secret of at least 32 bytes; default the `JWT_SECRET` environment variable. */
  readonly secret?: string;
  /** Former HS256 secrets, still accepted while tokens signed with them expire (key rotation). */
  readonly previous_secrets?: readonly string[];
  /** Alias of `previous_secrets`. */
  readonly previousSecrets?: readonly string[];
  /** RS256/ES256 private key (PEM or `KeyObject`); signs tokens. */
  readonly private_key?: KeyInput;
  /** Alias of `private_key`. */
  readonly privateKey?: KeyInput;
  /** RS256/ES256 public key; derived from the private key when omitted. Alone, the router only verifies. */
  readonly public_key?: KeyInput;
  /** Alias of `public_key`. */
  readonly publicKey?: KeyInput;
  /** Former public keys still accepted for verification (key rotation). */
  readonly previous_public_keys?: readonly KeyInput[];
  /** Alias of `previous_public_keys`. */
  readonly previousPublicKeys?: readonly KeyInput[];
  /** `HS256` (with a secret), `RS256` or `ES256` (with a key pair); inferred when omitted. */
  readonly algorithm?: JwtAlgorithm;
  /** Seconds a token stays valid (default 3600). */
  readonly token_lifetime?: number;
  /** Alias of `token_lifetime`. */
  readonly tokenLifetime?: number;
  /** Seconds a refresh token stays valid (default 2592000, 30 days); each rotation starts a new lifetime. */
  readonly refresh_token_lifetime?: number;
  /** Alias of `refresh_token_lifetime`. */
  readonly refreshTokenLifetime?: number;
  /**
   * Where refresh tokens live: `new AdapterRefreshStore({ model: RefreshToken })` (the app's database)
   * or `new RedisRefreshStore({ url })`. Default an in-memory store: one process only.
   */
  readonly refresh_store?: RefreshTokenStore;
  /** Alias of `refresh_store`. */
  readonly refreshStore?: RefreshTokenStore;
  /** The `iss` claim written and required (default `koa-model-api`). */
  readonly issuer?: string;
  /** The `aud` claim written and required (default `koa-model-api`). */
  readonly audience?: string;
  /** `'bcrypt'` (default), `'argon2id'`, or a hasher such as `new BcryptHasher({ cost: 10 })`. */
  readonly password_hasher?: PasswordHasherOption;
  /** Alias of `password_hasher`. */
  readonly passwordHasher?: PasswordHasherOption;
  /** The bcrypt cost (4–31, default 12) when the hasher is bcrypt. */
  readonly bcrypt_cost?: number;
  /** Alias of `bcrypt_cost`. */
  readonly bcryptCost?: number;
  /** Login throttling limits and store, or `false` to turn throttling off. */
  readonly throttle?: ThrottleOptions | false;
  /** Where the throttle keeps its counters (e.g. a `RedisThrottleStore`); same as `throttle.store`. */
  readonly throttle_store?: ThrottleStore;
  /** Alias of `throttle_store`. */
  readonly throttleStore?: ThrottleStore;
  /** Refuse fields a client may not write (e.g. `is_admin` on `/register`) with 422 instead of dropping them. */
  readonly strict?: boolean;
  /** The adapter, when the routes are used on a plain Koa app without `useAdapter`. */
  readonly adapter?: OrmAdapter;
  /** The field `/login` looks users up by (default `username`); must be unique. */
  readonly username_field?: string;
  /** Alias of `username_field`. */
  readonly usernameField?: string;
  /** `'insensitive'` (default): usernames are stored and compared case-folded; `'sensitive'` keeps case. */
  readonly username_case?: UsernameCase;
  /** Alias of `username_case`. */
  readonly usernameCase?: UsernameCase;
  /** Password reset and email verification (`POST /forgot-password`, …); omitted: not mounted. */
  readonly account?: AccountOptions;
}

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
}

/** Every option name `AuthRouter` accepts (snake_case names and their camelCase aliases). */
export const AUTH_ROUTER_OPTION_NAMES: ReadonlySet<string> = new Set<string>([
  'user_model',
  'userModel',
  'secret',
  'previous_secrets',
  'previousSecrets',
  'private_key',
  'privateKey',
  'public_key',
  'publicKey',
  'previous_public_keys',
  'previousPublicKeys',
  'algorithm',
  'token_lifetime',
  'tokenLifetime',
  'refresh_token_lifetime',
  'refreshTokenLifetime',
  'refresh_store',
  'refreshStore',
  'issuer',
  'audience',
  'password_hasher',
  'passwordHasher',
  'bcrypt_cost',
  'bcryptCost',
  'throttle',
  'throttle_store',
  'throttleStore',
  'strict',
  'adapter',
  'username_field',
  'usernameField',
  'username_case',
  'usernameCase',
  'account',
]);

type Options = Readonly<Record<string, unknown>>;

/** The value of an option given under either spelling; both with different values is a mistake. */
function either<T>(options: Options, snake: string, camel: string): T | undefined {
  const a = options[snake];
  const b = options[camel];
  if (a !== undefined && b !== undefined && a !== b) {
    throw new ConfigurationError(`AuthRouter: \`${snake}\` and \`${camel}\` are the same option; give one.`);
  }
  return (a ?? b) as T | undefined;
}

function nonEmptyString(name: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigurationError(`AuthRouter: \`${name}\` must be a non-empty string.`);
  }
  return value;
}

function isStore(value: unknown): value is ThrottleStore {
  const store = value as Partial<ThrottleStore> | null;
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof store.hit === 'function' &&
    typeof store.undo === 'function' &&
    typeof store.reset === 'function'
  );
}

function resolveHasher(options: Options): PasswordHasher {
  const option = either<PasswordHasherOption>(options, 'password_hasher', 'passwordHasher');
  const cost = either<number>(options, 'bcrypt_cost', 'bcryptCost');
  if (cost === undefined) return hasherFrom(option);
  if (option !== undefined && option !== 'bcrypt') {
    throw new ConfigurationError('AuthRouter: `bcrypt_cost` applies only to the bcrypt hasher.');
  }
  return new BcryptHasher({ cost });
}

function resolveThrottle(options: Options): LoginThrottle | undefined {
  const throttle = options.throttle as ThrottleOptions | false | undefined;
  const separateStore = either<ThrottleStore>(options, 'throttle_store', 'throttleStore');
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
  if (!isStore(store))
    throw new ConfigurationError('AuthRouter: the throttle store must implement hit, undo and reset.');
  return new LoginThrottle(store, resolveLimits(throttle));
}

function resolveLifetime(options: Options): number {
  const lifetime = either<number>(options, 'token_lifetime', 'tokenLifetime') ?? 3600;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > 366 * 24 * 3600) {
    throw new ConfigurationError(
      `AuthRouter: \`token_lifetime\` must be a whole number of seconds from 1 to one year.`,
    );
  }
  return lifetime;
}

function resolveSessions(options: Options): { sessions: RefreshSessions; defaultStore: boolean } {
  const lifetime =
    either<number>(options, 'refresh_token_lifetime', 'refreshTokenLifetime') ??
    DEFAULT_REFRESH_TOKEN_LIFETIME;
  if (!Number.isInteger(lifetime) || lifetime < 60 || lifetime > 5 * 366 * 24 * 3600) {
    throw new ConfigurationError(
      'AuthRouter: `refresh_token_lifetime` must be a whole number of seconds from 60 to five years.',
    );
  }
  const given = either<RefreshTokenStore>(options, 'refresh_store', 'refreshStore');
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
  const options = raw as Options;
  for (const key of Object.keys(options)) {
    if (!AUTH_ROUTER_OPTION_NAMES.has(key))
      throw new ConfigurationError(`AuthRouter: unknown option \`${key}\`.`);
  }
  const userModel = either<ModelClass>(options, 'user_model', 'userModel');
  if (typeof userModel !== 'function') {
    throw new ConfigurationError(
      'AuthRouter needs `user_model`: the user model class (class User extends AuthMixin(FrameworkModel)).',
    );
  }
  if (!hasAuthMixin(userModel)) {
    throw new ConfigurationError(`AuthRouter: ${userModel.name} must extend AuthMixin(FrameworkModel).`);
  }
  const keys = resolveTokenKeys({
    algorithm: options.algorithm as JwtAlgorithm | undefined,
    secret: options.secret as string | undefined,
    previousSecrets: either<readonly string[]>(options, 'previous_secrets', 'previousSecrets'),
    privateKey: either<KeyInput>(options, 'private_key', 'privateKey'),
    publicKey: either<KeyInput>(options, 'public_key', 'publicKey'),
    previousPublicKeys: either<readonly KeyInput[]>(options, 'previous_public_keys', 'previousPublicKeys'),
  });
  const tokens = new TokenService(keys, {
    lifetime: resolveLifetime(options),
    issuer: nonEmptyString('issuer', options.issuer, 'koa-model-api'),
    audience: nonEmptyString('audience', options.audience, 'koa-model-api'),
  });
  const strict = options.strict ?? false;
  if (typeof strict !== 'boolean') throw new ConfigurationError('AuthRouter: `strict` must be a boolean.');
  const adapter = options.adapter as OrmAdapter | undefined;
  if (adapter !== undefined && typeof adapter?.describe !== 'function') {
    throw new ConfigurationError('AuthRouter: `adapter` must be an OrmAdapter.');
  }
  const { sessions, defaultStore } = resolveSessions(options);
  return {
    userModel,
    tokens,
    sessions,
    defaultRefreshStore: defaultStore,
    passwords: new Passwords(resolveHasher(options)),
    throttle: resolveThrottle(options),
    strict,
    adapter,
    usernameField: nonEmptyString(
      'username_field',
      either(options, 'username_field', 'usernameField'),
      'username',
    ),
    usernames: new UsernameRules(usernameCaseFrom(either(options, 'username_case', 'usernameCase'))),
    account: accountOptionsOf(options.account),
  };
}
