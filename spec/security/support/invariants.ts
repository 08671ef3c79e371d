/**
 * The invariants checked after every case: no 5xx, no password hash in any body (neither a
 * bcrypt/argon2 hash nor a `hashed_password` member), and the set of administrators unchanged
 * unless the case meant to change it. Each check is counted, for the summary line.
 */
import assert from 'node:assert/strict';
import { describeResponse, type HttpResponse } from './client.js';

/** A bcrypt hash (`$2a$`, `$2b$`, `$2y$`, `$2x$` + cost) or an argon2 PHC string. */
export const PASSWORD_HASH = /\$2[abxy]\$\d{2}\$[./A-Za-z0-9]{20,}|\$argon2(?:id|i|d)\$/;

/** Counts of what was checked. */
export class InvariantLedger {
  checks = 0;
  cases = 0;

  /** One invariant held. */
  count(): void {
    this.checks += 1;
  }
}

/** Whether a JSON value has a member called `name` at any depth. */
export function hasMember(value: unknown, name: string, depth = 0): boolean {
  if (depth > 64 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => hasMember(item, name, depth + 1));
  return Object.keys(value).some(
    (key) => key === name || hasMember((value as Record<string, unknown>)[key], name, depth + 1),
  );
}

/** No 5xx, no password hash in the body, no `hashed_password` member anywhere in a JSON body. */
export function checkResponse(response: HttpResponse, ledger: InvariantLedger): void {
  assert.ok(response.status < 500, `invariant no-5xx: ${describeResponse(response)}`);
  ledger.count();
  assert.doesNotMatch(response.text, PASSWORD_HASH, `invariant no-hash: ${describeResponse(response)}`);
  ledger.count();
  assert.equal(
    hasMember(response.json, 'hashed_password'),
    false,
    `invariant no-hashed_password: ${describeResponse(response)}`,
  );
  ledger.count();
}

/** The admins are exactly the expected ones. */
export function checkAdmins(
  actual: ReadonlySet<number>,
  expected: ReadonlySet<number>,
  ledger: InvariantLedger,
): void {
  assert.deepEqual(
    [...actual].sort(),
    [...expected].sort(),
    'invariant admins: the set of administrators changed',
  );
  ledger.count();
}
