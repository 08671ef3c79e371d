/** RFC 9457 problem bodies for the contenders written without a framework (hand-written Koa and the ceiling). */

/** A problem+json body. */
export interface Problem {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly code: string;
}

const TITLES: Readonly<Record<number, [title: string, code: string]>> = {
  400: ['Bad Request', 'bad_request'],
  401: ['Unauthorized', 'unauthorized'],
  403: ['Forbidden', 'forbidden'],
  404: ['Not Found', 'not_found'],
  415: ['Unsupported Media Type', 'unsupported_media_type'],
  422: ['Unprocessable Content', 'validation_failed'],
  500: ['Internal Server Error', 'internal_error'],
};

/** The media type of a problem body. */
export const PROBLEM_TYPE = 'application/problem+json';

/** Builds the problem body for a status with a human-readable detail. */
export function problem(status: number, detail: string): Problem {
  const [title, code] = TITLES[status] ?? ['Error', 'error'];
  return { type: 'about:blank', title, status, detail, code };
}
