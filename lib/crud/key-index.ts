/**
 * Records by key, found as the database found them: exactly first, then, for a key the database
 * compares loosely (a MySQL/MariaDB or SQLite collation: `FieldDescription.comparison`), under that
 * comparison. A loose match counts only when one record alone answers it, so that a comparison
 * coarser than the database's can leave a key unmatched but never pair it with another record.
 */
import type { FieldType, TextComparison } from '../types.js';
import { recordKey } from './record-key.js';

/** A Latin or Greek letter and the accents it decomposes into (NFD), which collations ignore alike. */
const ACCENTED = /([\p{Script=Latin}\p{Script=Greek}])[\u0300-\u036f]+/gu;

/** Marks a loose key that several records answer. */
const AMBIGUOUS = Symbol('ambiguous');

/** A key as the comparison sees it: equal for keys the database holds equal. */
export function comparableKey(value: unknown, comparison: TextComparison): string {
  let text = recordKey(value);
  if (comparison.ignoresTrailingSpaces === true) text = text.replace(/ +$/, '');
  // Before case folding: `ẞ` folds to `ß`, which a collation need not hold equal to `s` or `ss`.
  if (comparison.sharpS !== undefined) text = text.replaceAll('ß', comparison.sharpS);
  // JavaScript folds more than A–Z (`É`, `Σ`); SQLite's NOCASE folds those letters only.
  if (comparison.ignoresCase === 'ascii') text = text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  else if (comparison.ignoresCase === true) text = text.toLowerCase();
  // Only accents of Latin and Greek letters: elsewhere a mark may make a letter the collation
  // weighs (Cyrillic й, a Devanagari vowel sign, ≠), and folding it could pair the wrong record.
  if (comparison.ignoresAccents === true) text = text.normalize('NFD').replace(ACCENTED, '$1');
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
