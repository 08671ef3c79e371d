/** The account routes (password reset, email verification): what applications and the auth plugin import. */
export { ACCOUNT_ERRORS, type AccountErrorCode, accountError } from './account-errors.js';
export {
  ACCOUNT_OPTION_NAMES,
  type AccountLimits,
  type AccountOptions,
  type AccountSettings,
  type AccountThrottleOptions,
  DEFAULT_ACCOUNT_LIMITS,
  type ResolvedAccountOptions,
  resolveAccountOptions,
} from './account-options.js';
export { ACCOUNT_ROUTE_SEGMENTS, accountLifecycleRoutes, accountRouteSpecs } from './account-routes.js';
export { AccountService, assertEmailVerified } from './account-service.js';
export { mountAccountRoutes } from './account-setup.js';
