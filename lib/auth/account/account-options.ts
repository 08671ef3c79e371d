/**
 * The options of the account routes (password reset, email verification, mail), each accepted in
 * snake_case and camelCase (lib/options/spelling.ts), checked completely when resolved so a
 * mistake fails at start-up.
 */
import { ConfigurationError } from '../../errors.js';
import type { Logger } from '../../http/problem-middleware.js';
import { type CamelAliases, SpellingTable } from '../../options/spelling.js';
import { defaultMailer, type Mailer } from '../mail/mailer.js';
import { DEFAULT_MAIL_TEMPLATES, type MailTemplates } from '../mail/templates.js';
import type { ThrottleLimit } from '../throttle/login-throttle.js';
import { MemoryThrottleStore } from '../throttle/memory-store.js';
import type { ThrottleStore } from '../throttle/store.js';

/** Limits of the account routes; omitted ones keep their defaults. */
export interface AccountThrottleOptions {
  /** `POST /forgot-password` per email address (default 3 per 15 minutes). */
  readonly forgot_email?: ThrottleLimit;
  /** `POST /forgot-password` per client address (default 20 per 15 minutes). */
  readonly forgot_address?: ThrottleLimit;
  /** `POST /reset-password` per client address (default 20 per 15 minutes). */
  readonly reset_address?: ThrottleLimit;
  /** `POST /verify-email` per client address (default 20 per 15 minutes). */
  readonly verify_address?: ThrottleLimit;
  /** `POST /verify-email/request` per user (default 3 per 15 minutes). */
  readonly verify_request?: ThrottleLimit;
}

/** The options of the account routes under their snake_case names only; `AccountOptions` adds the aliases. */
export interface AccountSettings {
  /** Delivers the messages; default SMTP on `smtp_url`/`SMTP_URL`, else the console transport. */
  readonly mailer?: Mailer;
  /** SMTP URL of the default mailer (default `SMTP_URL` from the environment). */
  readonly smtp_url?: string;
  /** `From` of the default mailer (default `MAIL_FROM`, else `no-reply@localhost`). */
  readonly mail_from?: string;
  /** The page of your front end that asks for the new password; the token is added as `?token=` (default `PUBLIC_URL` + `/reset-password`). */
  readonly reset_url?: string;
  /** The page that confirms an address; the token is added as `?token=` (default `PUBLIC_URL` + `/verify-email`). */
  readonly verify_url?: string;
  /** Seconds a reset link works (default 1800, 30 minutes). */
  readonly reset_token_ttl?: number;
  /** Seconds a verification link works (default 86400, one day). */
  readonly verify_token_ttl?: number;
  /** Login refuses users whose email is not verified (403 `email_not_verified`; default false). */
  readonly require_verified_email?: boolean;
  /** The user model's email field (default `email`). */
  readonly email_field?: string;
  /** Replacement templates; those omitted keep the built-in ones. */
  readonly templates?: Partial<MailTemplates>;
  /** Limits, or `false` for none (behind a proxy that limits already). */
  readonly throttle?: AccountThrottleOptions | false;
  /** Where the counters live (e.g. the login throttle's `RedisThrottleStore`); default the login throttle's store, else one in memory. */
  readonly throttle_store?: ThrottleStore;
}

/** Options of the account routes. Every snake_case name has a camelCase alias meaning the same (`resetUrl`, …). */
export interface AccountOptions extends AccountSettings, CamelAliases<AccountSettings> {}

/** The option names, each snake_case one written once; the camelCase aliases are derived. */
const ACCOUNT_OPTIONS = new SpellingTable<AccountSettings>({
  mailer: true,
  smtp_url: true,
  mail_from: true,
  reset_url: true,
  verify_url: true,
  reset_token_ttl: true,
  verify_token_ttl: true,
  require_verified_email: true,
  email_field: true,
  templates: true,
  throttle: true,
  throttle_store: true,
});

/** Every option name, snake_case and camelCase: any other name is refused. */
export const ACCOUNT_OPTION_NAMES: ReadonlySet<string> = ACCOUNT_OPTIONS.names;

/** The limits, all filled in. */
export type AccountLimits = Readonly<Required<AccountThrottleOptions>>;

/** The default limits. */
export const DEFAULT_ACCOUNT_LIMITS: AccountLimits = Object.freeze({
  forgot_email: Object.freeze({ attempts: 3, window: 900 }),
  forgot_address: Object.freeze({ attempts: 20, window: 900 }),
  reset_address: Object.freeze({ attempts: 20, window: 900 }),
  verify_address: Object.freeze({ attempts: 20, window: 900 }),
  verify_request: Object.freeze({ attempts: 3, window: 900 }),
});

/** The options, checked and filled in. */
export interface ResolvedAccountOptions {
  readonly mailer: Mailer;
  readonly resetUrl: string;
  readonly verifyUrl: string;
  /** Milliseconds. */
  readonly resetTokenTtl: number;
  /** Milliseconds. */
  readonly verifyTokenTtl: number;
  readonly requireVerifiedEmail: boolean;
  readonly emailField: string;
  readonly templates: MailTemplates;
  /** `undefined` when throttling is off. */
  readonly throttle: { readonly store: ThrottleStore; readonly limits: AccountLimits } | undefined;
}

function seconds(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1) {
    throw new ConfigurationError(
      `account options: ${name} must be a positive number of seconds, got ${String(value)}.`,
    );
  }
  return Math.round(value * 1000);
}

function link(name: string, value: string | undefined, fallback: string): string {
  const url = value ?? fallback;
  if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/i.test(url)) {
    throw new ConfigurationError(`account options: ${name} must be an http(s) URL, got ${String(url)}.`);
  }
  return url;
}

function limit(name: string, value: ThrottleLimit | undefined, fallback: ThrottleLimit): ThrottleLimit {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'object' &&
    value !== null &&
    Number.isInteger(value.attempts) &&
    value.attempts >= 1 &&
    Number.isInteger(value.window) &&
    value.window >= 1;
  if (!ok)
    throw new ConfigurationError(
      `account options: throttle.${name} must be { attempts, window } of positive integers.`,
    );
  return Object.freeze({ attempts: value.attempts, window: value.window });
}

/** The user model's address field when no `email_field` says otherwise. */
export const DEFAULT_EMAIL_FIELD = 'email';

function checkedEmailField(value: string | undefined): string {
  const field = value ?? DEFAULT_EMAIL_FIELD;
  if (typeof field !== 'string' || field === '') {
    throw new ConfigurationError('account options: email_field must be a field name.');
  }
  return field;
}

/** The `email_field` of unresolved options (either spelling), checked, default `email`. */
export function emailFieldOf(given: AccountOptions | undefined): string {
  return checkedEmailField(
    given === undefined ? undefined : ACCOUNT_OPTIONS.read(given, 'account options').email_field,
  );
}

/**
 * Checks the options and fills in the defaults. `store` is the login throttle's store, shared so
 * that several instances count together when it is Redis.
 */
export function resolveAccountOptions(
  given: AccountOptions,
  context: {
    readonly logger: Logger;
    readonly store?: ThrottleStore | undefined;
    readonly env?: Readonly<Record<string, string | undefined>>;
  },
): ResolvedAccountOptions {
  if (typeof given !== 'object' || given === null) {
    throw new ConfigurationError('account options must be an object.');
  }
  const options = ACCOUNT_OPTIONS.read(given, 'account options');
  const env = context.env ?? process.env;
  const base = (env.PUBLIC_URL ?? 'http://localhost:3000').replace(/\/+$/, '');
  const templates = { ...DEFAULT_MAIL_TEMPLATES, ...(options.templates ?? {}) };
  for (const [name, template] of Object.entries(templates)) {
    if (typeof template !== 'function') {
      throw new ConfigurationError(`account options: templates.${name} must be a function.`);
    }
  }
  const emailField = checkedEmailField(options.email_field);
  const throttle = options.throttle;
  if (throttle !== undefined && throttle !== false) {
    for (const name of Object.keys(throttle)) {
      if (!Object.hasOwn(DEFAULT_ACCOUNT_LIMITS, name)) {
        throw new ConfigurationError(`account options: unknown throttle limit \`${name}\`.`);
      }
    }
  }
  const store = options.throttle_store ?? context.store;
  const mailer =
    options.mailer ??
    defaultMailer({
      smtpUrl: options.smtp_url,
      from: options.mail_from ?? env.MAIL_FROM ?? 'no-reply@localhost',
      logger: context.logger,
      env,
    });
  if (typeof mailer.send !== 'function')
    throw new ConfigurationError('account options: mailer must have send().');
  const limits = (given: AccountThrottleOptions): AccountLimits =>
    Object.freeze(
      Object.fromEntries(
        (Object.keys(DEFAULT_ACCOUNT_LIMITS) as (keyof AccountLimits)[]).map((name) => [
          name,
          limit(name, given[name], DEFAULT_ACCOUNT_LIMITS[name]),
        ]),
      ) as unknown as AccountLimits,
    );
  return Object.freeze({
    mailer,
    resetUrl: link('reset_url', options.reset_url, `${base}/reset-password`),
    verifyUrl: link('verify_url', options.verify_url, `${base}/verify-email`),
    resetTokenTtl: seconds('reset_token_ttl', options.reset_token_ttl, 1800),
    verifyTokenTtl: seconds('verify_token_ttl', options.verify_token_ttl, 86_400),
    requireVerifiedEmail: options.require_verified_email === true,
    emailField,
    templates: Object.freeze(templates),
    throttle:
      throttle === false
        ? undefined
        : { store: store ?? new MemoryThrottleStore(), limits: limits(throttle ?? {}) },
  });
}

/** The link of a token: `url` with `token` added to its query. */
export function linkWithToken(url: string, token: string): string {
  const target = new URL(url);
  target.searchParams.set('token', token);
  return target.toString();
}
