/**
 * `koa-model-api/auth`: the authentication plugin. `AuthRouter` and `AuthMixin` with their options,
 * the refresh-token model, password hashers, throttle and refresh-token stores, the account routes
 * and their mail. `AuthRouter` and `AuthMixin` are also exported by the root, as the specification
 * names them there.
 * @module koa-model-api/auth
 */

export * from './account/index.js';
export { ADMIN_FLAGS, type AdminFlag } from './admin-flag.js';
export {
  AUTH_MIXIN_FIELDS,
  AUTH_PROTECTED_FIELDS,
  AuthMixin,
  type AuthModelConstructor,
  type AuthModelFields,
} from './auth-mixin.js';
export { AuthRouter } from './auth-router.js';
export { SECURITY_SCHEME_NAME } from './dependency.js';
export type { EnsureAdminOptions, EnsureAdminResult } from './ensure-admin.js';
export {
  Argon2idHasher,
  type Argon2idOptions,
  BcryptHasher,
  type BcryptOptions,
  DEFAULT_BCRYPT_COST,
  type PasswordHasher,
} from './hashers.js';
export type { HashingJob } from './hashing-job.js';
export { DEFAULT_HASHING_QUEUE, HashingThreads, type HashingThreadsOptions } from './hashing-threads.js';
export { JWT_ALGORITHMS, type JwtAlgorithm, type KeyInput, MIN_SECRET_BYTES } from './keys.js';
export * from './mail/index.js';
export type { AuthRouterOptions, AuthRouterSettings, ThrottleOptions } from './options.js';
export { PASSWORD_MAX_BYTES, PASSWORD_MIN_CHARACTERS } from './password-policy.js';
export type { PasswordHasherOption } from './passwords.js';
export type { OwnerOrAdminOptions } from './policies.js';
export { AdapterRefreshStore, type AdapterRefreshStoreOptions } from './sessions/adapter-store.js';
export { MemoryRefreshStore, type MemoryRefreshStoreOptions } from './sessions/memory-store.js';
export { RedisRefreshStore, type RedisRefreshStoreOptions } from './sessions/redis-store.js';
export {
  REFRESH_TOKEN_FIELDS,
  type RefreshTokenFields,
  RefreshTokenMixin,
  type RefreshTokenModelConstructor,
} from './sessions/refresh-token-model.js';
export { DEFAULT_REFRESH_TOKEN_LIFETIME, type IssuedRefreshToken } from './sessions/refresh-tokens.js';
export type { RefreshRecord, RefreshTokenStore, StoreScope } from './sessions/store.js';
export {
  DEFAULT_THROTTLE_LIMITS,
  type ThrottleLimit,
  type ThrottleLimits,
} from './throttle/login-throttle.js';
export { MemoryThrottleStore, type MemoryThrottleStoreOptions } from './throttle/memory-store.js';
export {
  type RedisLike,
  RedisThrottleStore,
  type RedisThrottleStoreOptions,
} from './throttle/redis-store.js';
export type { ThrottleHit, ThrottleStore } from './throttle/store.js';
export type { AccessTokenClaims, IssuedToken } from './tokens.js';
export { type UsernameCase, UsernameRules } from './username.js';
