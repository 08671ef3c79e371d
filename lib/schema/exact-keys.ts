/**
 * A client-chosen key must be stored as sent: it is the record's identity, and a client can only
 * address the record by the key it gets back. A key with more digits after the point than its
 * column keeps (`FieldDescription.fractionDigits` of a timestamp or time, `digits.scale` of a
 * decimal) would be stored as another value, so a create refuses it. The schema's pattern and the
 * 422's message both come from here; other values are stored as the column keeps them, and answered so.
 */
import type { FieldDescription } from '../types.js';

/** The digits after the point a key of this field may have beyond zeros, or undefined when any. */
export function keptDigits(field: FieldDescription): number | undefined {
  if (!field.primary) return undefined;
  if (field.type === 'datetime' || field.type === 'time') return field.fractionDigits;
  if (field.type === 'decimal') return field.digits?.scale;
  return undefined;
}

/**
 * A fraction of at most `kept` digits, then zeros only (`.50` keeps one digit); `cap`, when known,
 * bounds the whole fraction (the digits the database reads at all).
 */
export function keptFraction(kept: number, cap?: number): string {
  const zeros = (least: number) =>
    cap === undefined ? `0{${least},}` : `0{${least},${Math.max(cap - kept, least)}}`;
  return kept === 0 ? `(\\.${zeros(1)})?` : `(\\.[0-9]{1,${kept}}${zeros(0)})?`;
}

/** The pattern of a datetime or time key (a format or `TIME_PATTERN` checks its shape). */
export function keyFractionPattern(kept: number): string {
  return `^[^.]*${keptFraction(kept)}([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)?$`;
}

/** What the column keeps, in words: `whole seconds`, `2 decimal places`. */
export function keptRule(field: FieldDescription, kept: number): string {
  if (field.type === 'decimal') return kept === 0 ? 'whole numbers' : `${kept} decimal ${places(kept)}`;
  return kept === 0 ? 'whole seconds' : `${kept} fractional ${kept === 1 ? 'digit' : 'digits'} of a second`;
}

function places(count: number): string {
  return count === 1 ? 'place' : 'places';
}

/** The message of a key with more digits than its column keeps. */
export function inexactKeyMessage(field: FieldDescription, kept: number): string {
  return `The key's column keeps ${keptRule(field, kept)}: it would store another key than the one given, so the record could not be addressed by it. Give at most ${kept === 0 ? 'no fraction' : `${kept} ${field.type === 'decimal' ? `decimal ${places(kept)}` : kept === 1 ? 'digit' : 'digits'} after the point`}.`;
}

/** Whether a key's text has non-zero digits past the first `kept` after the point. */
export function exceedsKept(value: string, kept: number): boolean {
  const fraction = /\.([0-9]+)/.exec(value)?.[1];
  return fraction !== undefined && /[1-9]/.test(fraction.slice(kept));
}
