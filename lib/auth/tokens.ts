/**
 * Access tokens: signs `{ sub, user_table, iat, iat_ms, exp, iss, aud }` with the configured key and algorithm,
 * and holds the verification settings the auth dependency hands to koa-jwt, plus the checks
 * jsonwebtoken leaves out: no `crit` header, no `iat` in the future, `exp` and `sub` present.
 */
import jwt from 'jsonwebtoken';
import { ConfigurationError } from '../errors.js';
import type { JwtAlgorithm, TokenKeys } from './keys.js';

/** Settings of the token service. */
export interface TokenSettings {
  /** Seconds a token stays valid. */
  readonly lifetime: number;
  readonly issuer: string;
  readonly audience: string;
}

/** What `/login` answers. */
export interface IssuedToken {
  /** The signed JWT to send as `Authorization: Bearer <token>`. */
  readonly access_token: string;
  /** Always `bearer` (OAuth 2 token type). */
  readonly token_type: 'bearer';
  /** Seconds the token stays valid. */
  readonly expires_in: number;
}

/** The claims of a verified access token. */
export interface AccessTokenClaims {
  /** Subject: the user's primary key, as a string. */
  readonly sub: string;
  /** Expiry time, in seconds since the epoch. */
  readonly exp: number;
  /** Issue time, in seconds since the epoch. */
  readonly iat?: number;
  /** Issue time in milliseconds: compared with the user's `tokens_valid_after` (revocation). */
  readonly iat_ms?: number;
  /**
   * The table of the users `sub` is a key of: a router on other users refuses the token (two
   * user models in one process share a key, issuer and audience by default). Absent in tokens
   * another issuer signed, which are taken as before.
   */
  readonly user_table?: string;
  /** Issuer the token was signed for. */
  readonly iss?: string;
  /** Audience the token was signed for. */
  readonly aud?: string | string[];
}

/** Seconds a token's `iat` may lie ahead of this server's clock (clock skew between servers). */
export const IAT_LEEWAY_SECONDS = 60;

/** The options the verifier is given (the part of jsonwebtoken's `VerifyOptions` we set). */
export interface TokenVerifyOptions {
  /** The one algorithm accepted. */
  algorithms: JwtAlgorithm[];
  issuer: string;
  audience: string;
  complete?: false;
}

// jsonwebtoken's error class, typed as a plain Error subclass: the published typings must not need
// `@types/jsonwebtoken`, which is not a dependency. At run time it is jsonwebtoken's class, so koa-jwt
// and `instanceof jwt.JsonWebTokenError` still treat a TokenRuleError as a token error.
const JwtError: new (message: string) => Error = jwt.JsonWebTokenError;

/** A token that verified but breaks a rule of ours; `detail` is safe to send. */
export class TokenRuleError extends JwtError {
  constructor(readonly detail: string) {
    super(detail);
  }
}

/** Options of `TokenService.issue`. */
export interface IssueOptions {
  /** The issue time in milliseconds since the epoch; default now. */
  readonly issuedAtMs?: number;
  /** The table of the user model `subject` is a key of (the `user_table` claim). */
  readonly userTable?: string;
}

/** Signs access tokens and describes how they are verified. */
export class TokenService {
  readonly keys: TokenKeys;
  readonly settings: TokenSettings;

  constructor(keys: TokenKeys, settings: TokenSettings) {
    this.keys = keys;
    this.settings = settings;
    this.probe();
  }

  /** The one algorithm tokens are signed and accepted with. */
  get algorithm(): JwtAlgorithm {
    return this.keys.algorithm;
  }

  /** Whether this configuration can sign (a public key alone only verifies). */
  get canIssue(): boolean {
    return this.keys.signingKey !== undefined;
  }

  /** A fresh access token for the user with this primary key. */
  issue(subject: string, options: IssueOptions = {}): IssuedToken {
    const key = this.keys.signingKey;
    if (key === undefined)
      throw new ConfigurationError('This AuthRouter has no private key and cannot issue tokens.');
    const issuedAtMs = options.issuedAtMs ?? Date.now();
    // `iat_ms` orders the token against a password change within the same second; `iat` stays
    // the standard whole seconds, and `exp` counts from it.
    const payload = {
      iat: Math.floor(issuedAtMs / 1000),
      iat_ms: issuedAtMs,
      ...(options.userTable === undefined ? {} : { user_table: options.userTable }),
    };
    const token = jwt.sign(payload, key, {
      algorithm: this.keys.algorithm,
      subject,
      expiresIn: this.settings.lifetime,
      issuer: this.settings.issuer,
      audience: this.settings.audience,
    });
    return { access_token: token, token_type: 'bearer', expires_in: this.settings.lifetime };
  }

  /** Verifies a token synchronously (the same checks as the dependency); throws jsonwebtoken's errors. */
  verify(token: string): AccessTokenClaims {
    requireNoCriticalHeader(token);
    let lastError: unknown;
    for (const key of this.keys.verifyKeys) {
      try {
        const claims = jwt.verify(token, key, this.verifyOptions());
        return requireClaims(claims);
      } catch (error) {
        lastError = error;
        if (!(error instanceof jwt.JsonWebTokenError) || error.message !== 'invalid signature') throw error;
      }
    }
    throw lastError;
  }

  /** The options jsonwebtoken (through koa-jwt) verifies with: one algorithm, issuer and audience. */
  verifyOptions(): TokenVerifyOptions {
    return {
      algorithms: [this.keys.algorithm],
      issuer: this.settings.issuer,
      audience: this.settings.audience,
    };
  }

  /** Signs and verifies a token once, so a mismatched key pair fails at start-up, not at login. */
  private probe(): void {
    if (!this.canIssue) return;
    try {
      this.verify(this.issue('probe').access_token);
    } catch (error) {
      throw new ConfigurationError(`The JWT keys do not work together: ${(error as Error).message}.`);
    }
  }
}

/**
 * Refuses a token whose protected header has `crit`: RFC 7515 §4.1.11 says a recipient must reject
 * extensions it does not understand, and we understand none (an empty list is malformed too).
 * Reads only the header segment; the signature is checked elsewhere.
 */
export function requireNoCriticalHeader(token: string): void {
  const end = token.indexOf('.');
  if (end <= 0) return; // not a JWS at all: jsonwebtoken gives the precise error
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(token.slice(0, end), 'base64url').toString('utf8'));
  } catch {
    return;
  }
  if (typeof header === 'object' && header !== null && Object.hasOwn(header, 'crit')) {
    throw new TokenRuleError('The token names critical header extensions (crit), which are not supported.');
  }
}

/**
 * Checks the claims every access token must carry beyond what jsonwebtoken checks: `exp` and
 * `sub` present, and `iat`/`iat_ms`, when present, numbers no more than `IAT_LEEWAY_SECONDS` ahead.
 */
export function requireClaims(claims: unknown, nowMs = Date.now()): AccessTokenClaims {
  if (typeof claims !== 'object' || claims === null)
    throw new jwt.JsonWebTokenError('jwt payload is not an object');
  const { exp, sub, iat, iat_ms, user_table } = claims as {
    exp?: unknown;
    sub?: unknown;
    iat?: unknown;
    iat_ms?: unknown;
    user_table?: unknown;
  };
  if (user_table !== undefined && typeof user_table !== 'string')
    throw new TokenRuleError('The token has an invalid user_table claim.');
  if (typeof exp !== 'number') throw new jwt.JsonWebTokenError('jwt has no exp claim');
  if (typeof sub !== 'string' || sub.length === 0) throw new jwt.JsonWebTokenError('jwt has no sub claim');
  const latestMs = nowMs + IAT_LEEWAY_SECONDS * 1000;
  if (iat !== undefined) {
    if (typeof iat !== 'number' || !Number.isFinite(iat))
      throw new TokenRuleError('The token has an invalid iat claim.');
    if (iat * 1000 > latestMs) throw new TokenRuleError('The token was issued in the future (iat).');
  }
  if (iat_ms !== undefined) {
    if (typeof iat_ms !== 'number' || !Number.isSafeInteger(iat_ms) || iat_ms < 0)
      throw new TokenRuleError('The token has an invalid iat_ms claim.');
    if (iat_ms > latestMs) throw new TokenRuleError('The token was issued in the future (iat_ms).');
  }
  return claims as AccessTokenClaims;
}

/** When a token was issued, in milliseconds (`iat_ms`, else `iat`, else 0: before any revocation). */
export function issuedAtMs(claims: AccessTokenClaims): number {
  if (typeof claims.iat_ms === 'number') return claims.iat_ms;
  return typeof claims.iat === 'number' ? claims.iat * 1000 : 0;
}
