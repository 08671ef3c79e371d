/**
 * The `$like` / `$ilike` pattern language, one definition for every adapter: `%` matches any run
 * of characters, `_` exactly one character, and a backslash makes the next character literal
 * (`\%`, `\_`, `\\`). Adapters read a pattern as tokens and render it in their database's own
 * syntax, so that no database's escape rules (SQLite's GLOB has none, MySQL's backslash depends
 * on `sql_mode`) leak into the API. Also the cost measures the router's caps are checked against.
 */

/** One piece of a pattern: literal text, `%` (any run) or `_` (one character). */
export type LikeToken =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'any' }
  | { readonly kind: 'one' };

/** What a pattern costs to run, as the router's caps count it. */
export interface LikeCost {
  /** Characters (code points) of the pattern as sent, escapes included. */
  readonly length: number;
  /** Unescaped `%` and `_`. */
  readonly wildcards: number;
  /** The pattern ends in a backslash that escapes nothing. */
  readonly danglingEscape: boolean;
}

/** Measures a pattern for the caps. */
export function likeCost(pattern: string): LikeCost {
  const chars = [...pattern];
  let wildcards = 0;
  let danglingEscape = false;
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i];
    if (char === '\\') {
      if (i + 1 === chars.length) danglingEscape = true;
      i++;
    } else if (char === '%' || char === '_') wildcards++;
  }
  return { length: chars.length, wildcards, danglingEscape };
}

/**
 * The tokens of a pattern. Adjacent `%` collapse into one (they match the same). A backslash at
 * the very end escapes nothing and stands for itself (the query parser refuses such a pattern;
 * an adapter called directly still gets an answer).
 */
export function parseLikePattern(pattern: string): LikeToken[] {
  const tokens: LikeToken[] = [];
  let text = '';
  const flush = (): void => {
    if (text !== '') tokens.push({ kind: 'text', text });
    text = '';
  };
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i] as string;
    if (char === '\\') {
      text += i + 1 < chars.length ? (chars[++i] as string) : char;
    } else if (char === '%') {
      flush();
      if (tokens[tokens.length - 1]?.kind !== 'any') tokens.push({ kind: 'any' });
    } else if (char === '_') {
      flush();
      tokens.push({ kind: 'one' });
    } else text += char;
  }
  flush();
  return tokens;
}

/**
 * The tokens as an SQL `LIKE` pattern whose escape character is `escapeChar` (one character, not
 * `%` or `_`): literal `%`, `_` and `escapeChar` itself are escaped, nothing else.
 */
export function toSqlLike(tokens: readonly LikeToken[], escapeChar: string): string {
  const special = new Set(['%', '_', escapeChar]);
  let out = '';
  for (const token of tokens) {
    if (token.kind === 'any') out += '%';
    else if (token.kind === 'one') out += '_';
    else for (const char of token.text) out += special.has(char) ? `${escapeChar}${char}` : char;
  }
  return out;
}
