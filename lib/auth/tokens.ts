/**
 * Access tokens: signs `{ sub, iat, exp, iss, aud }` with the configured key and algorithm, and
 * holds the verification settings the auth dependency hands to koa-jwt.
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
  /** Issuer the token was signed for. */
  readonly iss?: string;
  /** Audience the token was signed for. */
  readonly aud?: string | string[];
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
  issue(subject: string): IssuedToken {
    const key = this.keys.signingKey;
    if (key === undefined)
      throw new ConfigurationError('This AuthRouter has no private key and cannot issue tokens.');
    const token = jwt.sign({}, key, {
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
  verifyOptions(): jwt.VerifyOptions & { complete?: false } {
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

/** Checks the claims every access token must carry beyond what jsonwebtoken checks (`exp`, `sub`). */
export function requireClaims(claims: unknown): AccessTokenClaims {
  if (typeof claims !== 'object' || claims === null)
    throw new jwt.JsonWebTokenError('jwt payload is not an object');
  const { exp, sub } = claims as { exp?: unknown; sub?: unknown };
  if (typeof exp !== 'number') throw new jwt.JsonWebTokenError('jwt has no exp claim');
  if (typeof sub !== 'string' || sub.length === 0) throw new jwt.JsonWebTokenError('jwt has no sub claim');
  return claims as AccessTokenClaims;
}
