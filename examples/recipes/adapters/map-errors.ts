/**
 * The errors an adapter maps: the database's own error codes become the core's `ApiError`s, so
 * that a client sees 409, 422 or 503 and never a driver message or SQL.
 */
import { ApiError, type FieldError, type ModelDescription } from '../../../lib/index.js';

// SQLite extended result codes (https://sqlite.org/rescode.html).
const UNIQUE = 2067;
const PRIMARY_KEY = 1555;
const NOT_NULL = 1299;
const FOREIGN_KEY = 787;
const CHECK = 275;
const BUSY = 5;
const LOCKED = 6;
const CANT_OPEN = 14;

/**
 * The `ApiError` for an error of `node:sqlite` during a write of `written` fields to `model`; any
 * other error is returned unchanged (the core answers it with a logged 500).
 */
export function toApiError(
  error: unknown,
  model: ModelDescription,
  written: readonly string[] = [],
): unknown {
  if (error instanceof ApiError) return error;
  const { errcode, message } = error as { errcode?: unknown; message?: unknown };
  if (typeof errcode !== 'number') return error;
  // "UNIQUE constraint failed: people.name" names the column; a foreign key error names none.
  const column = /constraint failed: \w+\.(\w+)/.exec(String(message))?.[1];
  const blame = (text: string): FieldError[] =>
    column === undefined ? [] : [{ path: column, message: text }];
  switch (errcode) {
    case UNIQUE:
    case PRIMARY_KEY:
      return ApiError.conflict(
        `A ${model.name} with the same unique value already exists.`,
        blame('is already taken'),
      );
    case NOT_NULL:
      return ApiError.validation(blame('is required'));
    case CHECK:
      return ApiError.validation(blame('is not allowed'));
    case FOREIGN_KEY: {
      const relations = model.fields.filter(
        (field) => field.relation !== undefined && written.includes(field.name),
      );
      return ApiError.validation(
        relations.map((field) => ({ path: field.name, message: 'references a record that does not exist' })),
      );
    }
    case BUSY:
    case LOCKED:
    case CANT_OPEN:
      return ApiError.unavailable(error);
    default:
      return ApiError.internal(error);
  }
}
