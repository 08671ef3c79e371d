/**
 * Records by key, found as the database found them: exactly first, then, for a key the database
 * compares loosely (a MySQL/MariaDB or SQLite collation: `FieldDescription.comparison`), under that
 * comparison. A loose match counts only when one record alone answers it. The folding below is
 * kept no coarser than the collations' (where unsure, finer): a key it fails to fold as the
 * database does is left unmatched, never paired with another record.
 */
import type { FieldType, TextComparison } from '../types.js';
import { recordKey } from './record-key.js';

/** A precomposed Latin or Greek letter's decomposition (NFD): its base and accents. */
const ACCENTED = /^((?=\p{L})[\p{Script=Latin}\p{Script=Greek}])[\u0300-\u036f]+$/u;

/**
 * Letters whose JavaScript lower case MySQL/MariaDB's `general_ci` or `unicode_ci` holds apart from
 * them (every letter checked on MariaDB 10.11; the blocks are taken whole): kept as they are.
 * İ, Latin Extended-B/C/D, Coptic, archaic Greek and Cyrillic, Georgian, Cherokee, letterlike
 * signs, and every letter beyond the BMP (Osage, Vithkuqi… apart under `unicode_520_ci`).
 */
const UNFOLDED =
  /[\u0130\u0220-\u024f\u0370-\u037f\u03cf-\u03ff\u048a\u04c0\u04c5\u04c9\u04cd\u04f6\u04fa-\u052f\u10a0-\u10ff\u13a0-\u13ff\u1c80-\u1cbf\u1e9e\u1efa-\u1eff\u2100-\u218f\u2c00-\u2cff\ua640-\ua6ff\ua720-\ua7ff\u{10000}-\u{10ffff}]/u;

/** Lower case where the collations agree with JavaScript; other letters as they are. */
function foldCase(text: string): string {
  let out = '';
  for (const char of text) out += UNFOLDED.test(char) ? char : char.toLowerCase();
  return out;
}

/**
 * Each precomposed Latin or Greek letter as its base letter; everything else as it is. Elsewhere a
 * mark may make a letter the collations weigh (Cyrillic й, Devanagari क़, ≠), and a string is not
 * normalized as a whole: `general_ci` weighs code points, not canonical equivalents.
 */
function stripAccents(text: string): string {
  let out = '';
  for (const char of text) {
    // A letter NFC does not keep (ά with oxia, the Ångström sign) is one general_ci holds apart.
    const base = char.normalize('NFC') === char ? ACCENTED.exec(char.normalize('NFD'))?.[1] : undefined;
    out += base ?? char;
  }
  return out;
}

/** Marks a loose key that several records answer. */
const AMBIGUOUS = Symbol('ambiguous');

/** A key as the comparison sees it: equal for keys the database holds equal. */
export function comparableKey(value: unknown, comparison: TextComparison): string {
  let text = recordKey(value);
  if (comparison.ignoresTrailingSpaces === true) text = text.replace(/ +$/, '');
  // Before case folding: `ẞ` folds to `ß`, which a collation need not hold equal to `s` or `ss`.
  if (comparison.sharpS !== undefined) text = text.replaceAll('ß', comparison.sharpS);
  // Before case folding: İ is I with a dot above, which JavaScript would lower to i and a dot.
  if (comparison.ignoresAccents === true) text = stripAccents(text);
  // JavaScript folds more than A–Z (`É`, `Σ`); SQLite's NOCASE folds those letters only.
  if (comparison.ignoresCase === 'ascii') text = text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  else if (comparison.ignoresCase === true) text = foldCase(text);
  return text;
}

/** Values by record key; `comparison` is the key field's, when the database compares loosely. */
export class KeyIndex<T> {
  readonly #comparison: TextComparison | undefined;
  readonly #type: FieldType | undefined;
  readonly #exact = new Map<string, T>();
  readonly #loose = new Map<string, T | typeof AMBIGUOUS>();

  /** `type`: the key's kind, where it decides equality (`uuid` keys in either case are one key). */
  constructor(comparison: TextComparison | undefined, type?: FieldType) {
    this.#comparison = comparison;
    this.#type = type;
  }

  /** Adds the value of one key. */
  set(key: unknown, value: T): void {
    const exact = recordKey(key, this.#type);
    if (this.#exact.has(exact)) return;
    this.#exact.set(exact, value);
    if (this.#comparison === undefined || typeof key !== 'string') return;
    const loose = comparableKey(key, this.#comparison);
    this.#loose.set(loose, this.#loose.has(loose) ? AMBIGUOUS : value);
  }

  /** The value of the key, or of the one key the database holds equal to it. */
  get(key: unknown): T | undefined {
    const found = this.#exact.get(recordKey(key, this.#type));
    if (found !== undefined || this.#comparison === undefined || typeof key !== 'string') return found;
    const loose = this.#loose.get(comparableKey(key, this.#comparison));
    return loose === AMBIGUOUS ? undefined : loose;
  }
}
