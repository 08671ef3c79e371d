/** Minimal request/response helpers for the ceiling contender on bare node:http. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROBLEM_TYPE, problem } from '../shared/problem.js';

/** An error answered with its status as a problem body. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

const MAX_BODY = 1024 * 1024;

/** Writes a JSON (or problem) body with an explicit length. */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  const payload = JSON.stringify(value);
  res.writeHead(status, {
    'content-type': status >= 400 ? PROBLEM_TYPE : 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
  res.end(payload);
}

/** Answers a thrown error: known problems with their status, anything else 500. */
export function sendError(res: ServerResponse, error: unknown): void {
  const status = error instanceof HttpProblem ? error.status : 500;
  if (status === 500) console.error(error);
  const detail = status === 500 ? 'Internal server error' : (error as Error).message;
  sendJson(res, status, problem(status, detail), status === 401 ? { 'www-authenticate': 'Bearer' } : {});
}

/** Reads and parses a JSON object body (415 for another media type, 400 for bad JSON, 413 when too large). */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
    throw new HttpProblem(415, 'Expected application/json');
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new HttpProblem(413, 'Body too large');
    chunks.push(chunk as Buffer);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpProblem(400, 'Malformed JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpProblem(422, 'A JSON object is required');
  }
  return value as Record<string, unknown>;
}
