/**
 * Answers requests Node's HTTP parser refuses before any middleware sees them (a malformed request
 * line, conflicting `Content-Length`, headers over the size limit, a slow client) with the same
 * problem details as every other error, instead of Node's bare status line.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, type ErrorCode } from '../errors.js';

/** What Node's `clientError` event reports. */
type ClientError = Error & { code?: string };

/** The catalogue's error for a parser failure. */
function problemOf(error: ClientError): ApiError {
  const [code, detail]: [ErrorCode, string] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? ['header_fields_too_large', 'The request headers are larger than the server reads.']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ['request_timeout', 'The request did not arrive in time.']
        : error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
          ? ['payload_too_large', 'The chunk extensions of the body are larger than the server reads.']
          : ['bad_request', 'The request is not valid HTTP/1.1 (request line, headers or framing).'];
  return new ApiError(code, detail);
}

/** The `clientError` listener of the application's server. */
export function answerClientError(error: ClientError, socket: Duplex): void {
  // As Node's own answer: nothing is written to a peer that is gone, or over a response whose
  // headers are already on their way; the connection is closed either way.
  const inFlight = (socket as { _httpMessage?: { _headerSent?: boolean } })._httpMessage;
  if (error.code !== 'ECONNRESET' && socket.writable && inFlight?._headerSent !== true) {
    const problem = problemOf(error);
    const body = JSON.stringify(problem.toProblem());
    socket.write(
      `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? 'Bad Request'}\r\n` +
        'Content-Type: application/problem+json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'X-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}
