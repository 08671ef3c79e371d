/**
 * The username rules: one normal form for storage, uniqueness, login and the throttle, and a
 * refusal (422) of names built to look like another. A name is taken to Unicode NFKC (full-width
 * letters, ligatures and compatibility spaces become their plain forms) and, by default, to a
 * case-folded lower case, and that form is what the database stores, so the ordinary unique index
 * of the column makes `Admin`, `ADMIN` and `ａｄｍｉｎ` collide with `admin` on SQLite, PostgreSQL
 * and MariaDB alike (whatever their collations). Refused: control and format characters (zero-width
 * spaces, joiners, bidi overrides), other invisible code points, whitespace around the name or in
 * runs, combining marks of no script of their own (send `é`, not `e` + U+0301), and letters of
 * more than one of the look-alike alphabets (Latin, Greek, Cyrillic, Armenian, Cherokee, Coptic).
 */
import { ApiError, ConfigurationError, type FieldError } from '../errors.js';

/** Whether usernames differing only in case are the same user (`insensitive`, the default) or not. */
export type UsernameCase = 'insensitive' | 'sensitive';

/** Any character of Unicode's Other categories: control (Cc), format (Cf), surrogate, private use, unassigned. */
const INVISIBLE_OR_CONTROL = /[\p{C}\p{Default_Ignorable_Code_Point}\p{Zl}\p{Zp}]/u;
/** Combining marks that belong to no script (U+0300 accents, overlays, variation selectors). */
const INHERITED_MARK = /\p{Script=Inherited}/u;
/** Whitespace the name must not start or end with. */
const EDGE_SPACE = /^\s|\s$/u;
/** Whitespace other than a single U+0020 between two other characters. */
const ODD_SPACE = /[^\S ]| {2}/u;

/** The alphabets whose letters pass for one another; a name may use letters of one of them only. */
const LOOK_ALIKE_SCRIPTS: readonly (readonly [string, RegExp])[] = [
  ['Latin', /\p{Script=Latin}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
  ['Coptic', /\p{Script=Coptic}/u],
];

/** The look-alike alphabets a name's letters come from. */
function lookAlikeScripts(name: string): Set<string> {
  const found = new Set<string>();
  for (const char of name) {
    for (const [script, pattern] of LOOK_ALIKE_SCRIPTS) {
      if (pattern.test(char)) {
        found.add(script);
        break;
      }
    }
  }
  return found;
}

/** Case folding as far as JavaScript has it: upper then lower folds ß/ẞ/SS and ς/σ/Σ together. */
function fold(name: string): string {
  // Repeated until stable (ẞ lowers to ß, which only the next round takes to ss); two rounds suffice.
  let folded = name;
  for (let round = 0; round < 4; round++) {
    const next = folded.toUpperCase().toLowerCase().normalize('NFKC');
    if (next === folded) break;
    folded = next;
  }
  return folded;
}

/** The username rules of one `AuthRouter`. */
export class UsernameRules {
  /** Whether case is folded before storage and comparison. */
  readonly case: UsernameCase;

  constructor(usernameCase: UsernameCase = 'insensitive') {
    this.case = usernameCase;
  }

  /** The stored and compared form of a name, or why it is refused (a sentence for a 422). */
  check(
    raw: string,
  ): { readonly ok: true; readonly name: string } | { readonly ok: false; readonly problem: string } {
    if (raw === '') return { ok: false, problem: 'must not be empty' };
    if (EDGE_SPACE.test(raw)) return { ok: false, problem: 'must not start or end with whitespace' };
    if (INVISIBLE_OR_CONTROL.test(raw)) {
      return { ok: false, problem: 'must not contain control, format or invisible characters' };
    }
    // Checked as sent: a mark NFKC composes away (admin + U+0301 = admiń) is still a stacked look-alike.
    if (INHERITED_MARK.test(raw)) {
      return { ok: false, problem: 'must not contain combining marks (send precomposed letters)' };
    }
    const compatible = raw.normalize('NFKC');
    const name = this.case === 'insensitive' ? fold(compatible) : compatible;
    // The same checks on the stored form: compatibility mappings and case folding can bring in what
    // the raw name did not show (U+00A8 becomes a space and a mark, İ a dotted i).
    if (EDGE_SPACE.test(name) || ODD_SPACE.test(name)) {
      return { ok: false, problem: 'must not hold whitespace other than single spaces between words' };
    }
    if (INVISIBLE_OR_CONTROL.test(name) || INHERITED_MARK.test(name)) {
      return { ok: false, problem: 'must not contain control, format, invisible or combining characters' };
    }
    const scripts = lookAlikeScripts(name);
    if (scripts.size > 1) {
      return { ok: false, problem: `must not mix letters of ${[...scripts].join(' and ')}` };
    }
    return { ok: true, name };
  }

  /** The stored form of a name, or 422 naming `path`. */
  normalise(raw: string, path: string): string {
    const result = this.check(raw);
    if (!result.ok) throw ApiError.validation([{ path, message: result.problem } satisfies FieldError]);
    return result.name;
  }

  /** The form a login or the throttle compares: the stored form, else (a name no user can have) NFKC. */
  lookupKey(raw: string): string {
    const result = this.check(raw);
    if (result.ok) return result.name;
    const compatible = raw.normalize('NFKC');
    return this.case === 'insensitive' ? fold(compatible) : compatible;
  }
}

/** The rules with the defaults (NFKC, case-insensitive). */
export const DEFAULT_USERNAME_RULES = new UsernameRules();

/** Checks the `username_case` option. */
export function usernameCaseFrom(value: unknown): UsernameCase {
  if (value === undefined) return 'insensitive';
  if (value === 'insensitive' || value === 'sensitive') return value;
  throw new ConfigurationError("AuthRouter: `username_case` must be 'insensitive' or 'sensitive'.");
}

/** The rules an `AuthRouter` carries as `usernames` (the `username_case` option), else the defaults. */
export function usernameRulesOf(runtime: object): UsernameRules {
  const rules = (runtime as { readonly usernames?: unknown }).usernames;
  return rules instanceof UsernameRules ? rules : DEFAULT_USERNAME_RULES;
}

/**
 * A stored name or address as text, without the spaces a `char(n)` column pads it with
 * (PostgreSQL hands them back); no name or address the rules accept ends with a space.
 */
export function withoutPadding(value: unknown): string {
  return String(value).replace(/ +$/, '');
}
