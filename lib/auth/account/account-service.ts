/**
 * `AccountService`: what the account routes share for one `AuthRouter` — the resolved options,
 * the throttle of the account routes, the mail of a token link, and the work done after a
 * response (so `POST /forgot-password` answers before the database is asked whether the address
 * exists, and takes the same time either way).
 */
import { createHash } from 'node:crypto';
import { ApiError, ConfigurationError } from '../../errors.js';
import type { OrmAdapter, RawRecord } from '../../types.js';
import { isTruthyFlag } from '../admin-flag.js';
import type { LinkMailInput, MailContent } from '../mail/templates.js';
import type { AuthRuntime } from '../runtime.js';
import { throttledAddress } from '../throttle/client-address.js';
import { type ThrottleLimit, throttleStoreUnavailable } from '../throttle/login-throttle.js';
import { MemoryThrottleStore } from '../throttle/memory-store.js';
import type { ThrottleStore } from '../throttle/store.js';
import type { UserBinding } from '../user-binding.js';
import { accountError } from './account-errors.js';
import { linkWithToken, type ResolvedAccountOptions } from './account-options.js';

/** What is counted, each in its own key space of the shared store. */
export type AccountThrottleKind =
  | 'forgot_email'
  | 'forgot_address'
  | 'reset_address'
  | 'verify_address'
  | 'verify_request';

const PREFIX: Readonly<Record<AccountThrottleKind, string>> = {
  forgot_email: 'fe',
  forgot_address: 'fa',
  reset_address: 'ra',
  verify_address: 'va',
  verify_request: 'vr',
};

/** The shared state of the account routes. */
export class AccountService {
  /** The options, checked. */
  readonly options: ResolvedAccountOptions;
  /** The plugin the routes belong to. */
  readonly runtime: AuthRuntime;
  private readonly pending = new Set<Promise<void>>();
  /** Where single-use claims are counted: the throttle's store (shared by instances), else this process. */
  private readonly claims: ThrottleStore;

  constructor(runtime: AuthRuntime, options: ResolvedAccountOptions) {
    this.runtime = runtime;
    this.options = options;
    this.claims = options.throttle?.store ?? new MemoryThrottleStore();
  }

  /**
   * Claims a token's stored digest for one use: `true` for the first caller only, across every
   * instance sharing the store. The adapter has no compare-and-set update, so two requests with
   * the same token could both pass the digest check before either clears it; an atomic counter
   * decides between them. `release` gives the claim back when the use failed before its write.
   */
  async claimOnce(digest: string, ttlMs: number): Promise<{ won: boolean; release: () => Promise<void> }> {
    const key = `once:${createHash('sha256').update(digest).digest('base64url').slice(0, 32)}`;
    let hit: Awaited<ReturnType<ThrottleStore['hit']>>;
    try {
      hit = await this.claims.hit(key, Math.max(1, Math.ceil(ttlMs / 1000)));
    } catch (error) {
      throw throttleStoreUnavailable(this.claims, error);
    }
    return { won: hit.count === 1, release: () => this.claims.reset(key).catch(() => undefined) };
  }

  /** The user model of `adapter`, checked to have the email field (`ConfigurationError` otherwise). */
  binding(adapter: OrmAdapter): UserBinding {
    const binding = this.runtime.binding(adapter);
    const field = binding.model.fieldsByName.get(this.options.emailField);
    if (field === undefined || (field.type !== 'string' && field.type !== 'text')) {
      throw new ConfigurationError(
        `User model ${binding.model.name}: the account routes need a string field \`${this.options.emailField}\` (set email_field).`,
      );
    }
    if (!binding.model.fieldsByName.has('verified') || !binding.model.fieldsByName.has('reset_token_hash')) {
      throw new ConfigurationError(
        `User model ${binding.model.name}: the account routes need the columns AuthMixin adds (verified, reset_token_hash, …).`,
      );
    }
    return binding;
  }

  /** Counts one attempt; 429 with `Retry-After` past the limit, 503 when the store cannot answer. */
  async count(kind: AccountThrottleKind, key: string): Promise<void> {
    const throttle = this.options.throttle;
    if (throttle === undefined) return;
    const limit: ThrottleLimit = throttle.limits[kind];
    // Opaque keys: addresses and emails are personal data, and may be long.
    const counted = kind.endsWith('_address') ? throttledAddress(key) : key;
    const digest = createHash('sha256').update(counted).digest('base64url').slice(0, 32);
    let hit: Awaited<ReturnType<typeof throttle.store.hit>>;
    try {
      hit = await throttle.store.hit(`${PREFIX[kind]}:${digest}`, limit.window);
    } catch (error) {
      throw throttleStoreUnavailable(throttle.store, error);
    }
    if (hit.count > limit.attempts) throw ApiError.tooManyRequests(hit.retryAfterSeconds);
  }

  /** Runs `work` after the response; failures are logged without the token or the address. */
  background(what: string, work: () => Promise<void>): void {
    const task = work().catch((error: unknown) => {
      const kind = error instanceof Error ? error.name : 'error';
      this.runtime.logger.error(
        `${what} failed (${kind})`,
        error instanceof ApiError ? error.code : undefined,
      );
    });
    const tracked = task.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Resolves once every background task started so far has ended (for tests and graceful shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  /** Sends the message of `template` with a link carrying `token` to `to`. */
  async sendLink(
    template: (input: LinkMailInput) => MailContent,
    url: string,
    token: string,
    to: string,
    ttlMs: number,
  ): Promise<void> {
    const content = template({
      link: linkWithToken(url, token),
      email: to,
      expiresInMinutes: Math.max(1, Math.floor(ttlMs / 60_000)),
    });
    await this.options.mailer.send({
      to,
      subject: content.subject,
      text: content.text,
      ...(content.html === undefined ? {} : { html: content.html }),
    });
  }
}

/**
 * Refuses the login of an unverified user when `require_verified_email` is on: 403
 * `email_not_verified`. Call it once the password has been checked, so it reveals nothing to
 * someone who does not know the password.
 */
export function assertEmailVerified(
  options: ResolvedAccountOptions | undefined,
  row: Readonly<RawRecord>,
): void {
  if (options?.requireVerifiedEmail !== true || isTruthyFlag(row.verified)) return;
  throw accountError(
    'email_not_verified',
    'Confirm your email address first: open the link sent to it, or ask for a new one with POST /verify-email/request.',
  );
}
