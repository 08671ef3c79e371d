/**
 * The problem codes of the account routes (password reset, email verification). They belong in
 * the catalogue of lib/errors.ts; until they are there, `accountError` builds an `ApiError` that
 * renders them with the status and title listed here, so clients already see the final bodies.
 */
import {
  ApiError,
  ERROR_CATALOGUE,
  type ErrorCode,
  PROBLEM_TYPE_BASE,
  type ProblemDetails,
} from '../../errors.js';

/** The account routes' codes, with their HTTP status and title. */
export const ACCOUNT_ERRORS = Object.freeze({
  /** 400: a password reset token that is unknown, already used, or expired. */
  invalid_reset_token: { status: 400, title: 'Invalid or expired reset token' },
  /** 400: an email verification token that is unknown, already used, or expired. */
  invalid_verification_token: { status: 400, title: 'Invalid or expired verification token' },
  /** 403: login refused because the user's email address is not verified (`require_verified_email`). */
  email_not_verified: { status: 403, title: 'Email address not verified' },
} as const);

/** A code of the account routes. */
export type AccountErrorCode = keyof typeof ACCOUNT_ERRORS;

/** An `ApiError` whose code is not (yet) in the catalogue. */
class AccountApiError extends ApiError {
  constructor(code: AccountErrorCode, detail: string) {
    // The catalogue code of the same status carries the status; the real code replaces it below.
    super(code === 'email_not_verified' ? 'forbidden' : 'bad_request', detail);
    Object.defineProperty(this, 'code', { value: code, enumerable: true });
  }

  override toProblem(): ProblemDetails {
    const code = this.code as unknown as AccountErrorCode;
    return {
      type: PROBLEM_TYPE_BASE + code,
      title: ACCOUNT_ERRORS[code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
    };
  }
}

/** The error of an account code: a plain `ApiError` once the catalogue lists the code. */
export function accountError(code: AccountErrorCode, detail: string): ApiError {
  if (Object.hasOwn(ERROR_CATALOGUE, code)) return new ApiError(code as unknown as ErrorCode, detail);
  return new AccountApiError(code, detail);
}

/** Copies an error with extra headers (the `no-store` of the account routes), keeping its code. */
export function withHeaders(error: ApiError, headers: Readonly<Record<string, string>>): ApiError {
  const copy = Object.create(Object.getPrototypeOf(error) as object) as ApiError;
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(error));
  Object.defineProperty(copy, 'headers', { value: { ...error.headers, ...headers }, enumerable: true });
  return copy;
}
