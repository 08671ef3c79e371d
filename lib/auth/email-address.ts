/**
 * What the auth plugin accepts as a user's email address: one plain address (`local@domain`), never
 * a display name, a list or a group. The account routes mail reset and verification links to the
 * stored text, and mail libraries read `"Boss" <a@x>` or `a@x, b@y` as other recipients: one user
 * could have another's address marked verified, or the app's mail sent to many (security review,
 * session 16). Quoted local parts and address literals are refused with them; they are rare enough.
 */

/** Longest address SMTP carries (RFC 5321: a 256-octet path less its angle brackets). */
export const EMAIL_MAX_LENGTH = 254;

// No space, control character (C0, C1), invisible or format character (soft hyphen, zero-width,
// bidi controls and isolates, variation selectors, tags),
// comma, angle bracket, quote, parenthesis, semicolon, colon, square bracket or backslash
// anywhere; exactly one @ with text on both sides.
const REFUSED =
  '\\s@<>(),;:"\\[\\]\\\\\\u0000-\\u001f\\u007f-\\u009f\\u200b-\\u200f\\u2028-\\u202e\\u00ad\\u034f\\u061c\\u180e\\u2060-\\u206f\\ufe00-\\ufe0f\\ufeff';
const PLAIN_ADDRESS = `^[^${REFUSED}]+@[^${REFUSED}]+$`;

/** The pattern of a plain address, as the OpenAPI document states it. */
export const EMAIL_ADDRESS_PATTERN = PLAIN_ADDRESS;

// The tag characters (U+E0000–U+E007F) too, which a pattern without the `u` flag (the OpenAPI
// document's, as linters read it) cannot name.
const plain = new RegExp(`^[^${REFUSED}\\u{e0000}-\\u{e007f}]+@[^${REFUSED}\\u{e0000}-\\u{e007f}]+$`, 'u');

/** Why a value is no plain email address, or undefined when it is one (non-strings are the validator's). */
export function emailAddressProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (Buffer.byteLength(value) > EMAIL_MAX_LENGTH) return `must be at most ${EMAIL_MAX_LENGTH} bytes`;
  if (!plain.test(value))
    return 'must be one plain email address (local@domain): no display name, list, quotes or spaces';
  return undefined;
}
