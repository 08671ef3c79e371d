/**
 * Tokens whose signature, algorithm, issuer and audience were already checked, by exact text.
 * Those checks depend only on the token and the router's fixed keys, so their result can be
 * reused; what depends on the clock (`exp`, `nbf`) is checked again on every use, and the user is
 * still loaded on every request. Verification through koa-jwt was the largest cost of an
 * authenticated GET after the two lookups (bench/NOTES.md, "Figures behind
 * code comments": verified tokens).
 */
import type { AccessTokenClaims } from './tokens.js';

/** Most tokens remembered; the oldest is forgotten first. (Memory per token: bench/NOTES.md, "Figures behind code comments".) */
export const MAX_VERIFIED_TOKENS = 10_000;

interface Entry {
  readonly claims: AccessTokenClaims;
  /** Seconds since the epoch before which the token is not valid yet (`nbf`), or 0. */
  readonly notBefore: number;
}

/** A bounded memory of verified tokens. */
export class VerifiedTokens {
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;

  constructor(max = MAX_VERIFIED_TOKENS) {
    this.#max = max;
  }

  /**
   * The claims of a remembered token that is valid now; undefined when it is unknown, expired or
   * not valid yet (the caller verifies it in full then, which gives the precise error).
   */
  get(token: string, nowSeconds: number): AccessTokenClaims | undefined {
    const entry = this.#entries.get(token);
    if (entry === undefined) return undefined;
    // The same comparisons as jsonwebtoken: expired when now >= exp, early when nbf > now.
    if (nowSeconds >= entry.claims.exp || entry.notBefore > nowSeconds) {
      this.#entries.delete(token);
      return undefined;
    }
    return entry.claims;
  }

  /** Remembers a token that passed full verification. */
  remember(token: string, claims: AccessTokenClaims): void {
    if (this.#entries.size >= this.#max && !this.#entries.has(token)) {
      const oldest = this.#entries.keys().next();
      if (oldest.done !== true) this.#entries.delete(oldest.value);
    }
    const nbf = (claims as { nbf?: unknown }).nbf;
    this.#entries.set(token, { claims, notBefore: typeof nbf === 'number' ? nbf : 0 });
  }

  /** How many tokens are remembered. */
  get size(): number {
    return this.#entries.size;
  }
}
