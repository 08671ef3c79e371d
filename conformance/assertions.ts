/** Assertions shared by the cases; every failure message names the request and shows the body. */
import assert from 'node:assert/strict';
import type { HttpResult, JsonObject } from './http-client.js';

function describeResult(result: HttpResult): string {
  return `${result.request} → ${result.status} ${result.text.slice(0, 500)}`;
}

/** Asserts the status code. */
export function expectStatus(result: HttpResult, status: number): void {
  assert.equal(result.status, status, `expected ${status}: ${describeResult(result)}`);
}

/** Asserts a successful JSON response and returns its body. */
export function expectJson(result: HttpResult, status: number): unknown {
  expectStatus(result, status);
  const type = result.headers.get('content-type') ?? '';
  assert.match(type, /^application\/json\b/, `content type of ${result.request}: ${type}`);
  return result.json;
}

/** Asserts a JSON object response and returns it. */
export function expectRecord(result: HttpResult, status: number): JsonObject {
  const body = expectJson(result, status);
  assert.ok(
    body !== null && typeof body === 'object' && !Array.isArray(body),
    `object body: ${describeResult(result)}`,
  );
  return body as JsonObject;
}

/** Asserts a JSON array response and returns its rows. */
export function expectRows(result: HttpResult, status = 200): JsonObject[] {
  const body = expectJson(result, status);
  assert.ok(Array.isArray(body), `array body: ${describeResult(result)}`);
  return body as JsonObject[];
}

/**
 * Asserts an RFC 9457 problem details response: `application/problem+json`, members `type`,
 * `title`, `status` (equal to the HTTP status), `detail`, `code` (one of `codes` when given),
 * optional `errors` as `[{ path, message }]`, and nothing that looks like a stack trace.
 */
export function expectProblem(result: HttpResult, status: number, codes?: readonly string[]): JsonObject {
  expectStatus(result, status);
  const type = result.headers.get('content-type') ?? '';
  assert.match(type, /^application\/problem\+json\b/, `problem content type of ${describeResult(result)}`);
  const body = result.json as JsonObject | undefined;
  assert.ok(
    body !== undefined && body !== null && typeof body === 'object',
    `problem body: ${describeResult(result)}`,
  );
  for (const member of ['type', 'title', 'detail', 'code']) {
    assert.equal(typeof body[member], 'string', `problem member ${member}: ${describeResult(result)}`);
  }
  assert.equal(body.status, status, `problem status: ${describeResult(result)}`);
  if (codes !== undefined)
    assert.ok(
      codes.includes(body.code as string),
      `problem code in ${codes.join('|')}: ${describeResult(result)}`,
    );
  if (body.errors !== undefined) {
    assert.ok(Array.isArray(body.errors), `errors is an array: ${describeResult(result)}`);
    for (const entry of body.errors as JsonObject[]) {
      assert.equal(typeof entry.path, 'string', `errors[].path: ${describeResult(result)}`);
      assert.equal(typeof entry.message, 'string', `errors[].message: ${describeResult(result)}`);
    }
  }
  // Stack frames or driver messages (SQLite, MySQL, PostgreSQL) must never reach a client.
  assert.doesNotMatch(
    result.text,
    /\bat .+:\d+:\d+\)|node_modules|SQLITE_[A-Z]|ER_[A-Z]{3}|violates (unique|foreign|not-null)/,
    `no internals: ${describeResult(result)}`,
  );
  return body;
}

/** The `path` of every `errors` entry of a problem body. */
export function errorPaths(problem: JsonObject): string[] {
  return Array.isArray(problem.errors)
    ? (problem.errors as JsonObject[]).map((entry) => String(entry.path))
    : [];
}

/** Asserts a 422 whose `errors` name exactly these fields, each exactly once. */
export function expectInvalidFields(result: HttpResult, fields: readonly string[]): void {
  const problem = expectProblem(result, 422, ['validation_failed']);
  assert.deepEqual(
    errorPaths(problem).sort(),
    [...fields].sort(),
    `one error per invalid field: ${describeResult(result)}`,
  );
}

/** The links of a `Link` header by relation (`next`, `prev`…). */
export function parseLinks(header: string | null): Record<string, string> {
  const links: Record<string, string> = {};
  if (header === null) return links;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /<([^>]*)>\s*;(.*)/.exec(part.trim());
    if (match === null) continue;
    const rel = /rel="?([^";]+)"?/.exec(match[2] as string)?.[1];
    if (rel !== undefined) for (const name of rel.trim().split(/\s+/)) links[name] = match[1] as string;
  }
  return links;
}
