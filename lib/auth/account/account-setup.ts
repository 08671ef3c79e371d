/**
 * Puts the account routes on an `Application`: resolves the options (sharing the login
 * throttle's store), mounts the routes and documents them. `AuthRouter` calls it when given
 * `account` options; an application can call it itself too.
 */
import type { Application } from '../../application.js';
import type { AuthRuntime } from '../runtime.js';
import { documentAccountLifecycleRoutes } from './account-openapi.js';
import { type AccountOptions, resolveAccountOptions } from './account-options.js';
import { ACCOUNT_ROUTE_SEGMENTS, accountLifecycleRoutes } from './account-routes.js';
import { AccountService } from './account-service.js';

/**
 * Adds `POST /forgot-password`, `/reset-password`, `/verify-email/request` and `/verify-email`.
 * @example
 * const account = mountAccountRoutes(app, auth, { reset_url: 'https://app.example.com/reset' });
 */
export function mountAccountRoutes(
  app: Application,
  runtime: AuthRuntime,
  options: AccountOptions = {},
): AccountService {
  const resolved = resolveAccountOptions(options, { logger: app.logger, store: runtime.throttle?.store });
  const service = new AccountService(runtime, resolved);
  // Checked now rather than on a request: a user model without the email field fails at start-up.
  service.binding(app.adapter);
  // Before the routes serve anything: the login check and the user routes' guard of the address
  // read these settings, so the field mailed to is the field whose change needs the password.
  runtime.adoptAccount(service);
  const routes = accountLifecycleRoutes(service, app.bodyLimit);
  for (const segment of ACCOUNT_ROUTE_SEGMENTS) {
    app.reservePath(`/${segment}`, 'the auth routes', { kind: 'leaf' });
    app.mount(segment, routes);
  }
  documentAccountLifecycleRoutes(app.openapi);
  return service;
}
