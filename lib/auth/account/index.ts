/**
 * The account routes (password reset, email verification) as `koa-model-api/auth` offers them:
 * `mountAccountRoutes`, its options and the error codes the routes answer with.
 */
export { ACCOUNT_ERRORS, type AccountErrorCode } from './account-errors.js';
export {
  type AccountLimits,
  type AccountOptions,
  type AccountSettings,
  type AccountThrottleOptions,
  DEFAULT_ACCOUNT_LIMITS,
  type ResolvedAccountOptions,
} from './account-options.js';
export { AccountService } from './account-service.js';
export { mountAccountRoutes } from './account-setup.js';
