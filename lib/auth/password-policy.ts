/**
 * The password rule of the plugin: at least 8 characters and at most 72 bytes of UTF-8, because
 * bcrypt silently ignores everything after the 72nd byte.
 */
import type { JsonSchema } from '../schema/json-schema.js';

/** Fewest characters (Unicode code points) a password may have. */
export const PASSWORD_MIN_CHARACTERS = 8;
/** Most UTF-8 bytes a password may have (bcrypt's input limit). */
export const PASSWORD_MAX_BYTES = 72;

/** The JSON Schema of a `password` input field (the byte limit is checked by `passwordProblem`). */
export const PASSWORD_SCHEMA: JsonSchema = Object.freeze({
  type: 'string',
  minLength: PASSWORD_MIN_CHARACTERS,
  // More than 72 characters is always more than 72 bytes; the exact byte check follows.
  maxLength: PASSWORD_MAX_BYTES,
  writeOnly: true,
  description: `At least ${PASSWORD_MIN_CHARACTERS} characters and at most ${PASSWORD_MAX_BYTES} bytes of UTF-8.`,
});

/** Why a password is refused, or `undefined` when it is acceptable. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string') return 'must be a string';
  if ([...password].length < PASSWORD_MIN_CHARACTERS) {
    return `must have at least ${PASSWORD_MIN_CHARACTERS} characters`;
  }
  if (Buffer.byteLength(password, 'utf8') > PASSWORD_MAX_BYTES) {
    return `must be at most ${PASSWORD_MAX_BYTES} bytes of UTF-8`;
  }
  return undefined;
}
