/**
 * The column collations `connect()`, `createSchema()` and `updateSchema()` read (key-comparison.ts).
 * A failure leaves keys paired as declared and is one start-up warning, not an error: the adapter
 * is built all the same, requests answer 503 and readiness reports an outage until the database
 * answers (docs/deployment.md). Often that failure is the only sign at start that the database is
 * unreachable, so the warning leads with that cause when it is one.
 */

import type { AnyMikroORM } from './describe.js';
import { isConnectionError } from './errors.js';
import { readCollations } from './key-comparison.js';

/** The fields of a socket or driver error that say where it failed. */
interface SocketError {
  readonly code?: unknown;
  readonly address?: unknown;
  readonly port?: unknown;
  readonly hostname?: unknown;
  readonly message?: unknown;
  readonly cause?: unknown;
  readonly errors?: unknown;
}

/** `ECONNREFUSED 127.0.0.1:5439`, `ENOTFOUND db.internal`: the first coded error in the chain. */
function whereItFailed(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const { code, address, port, hostname, cause, errors } = error as SocketError;
  if (typeof code === 'string') {
    const host = typeof address === 'string' ? address : typeof hostname === 'string' ? hostname : undefined;
    const place = host === undefined ? '' : typeof port === 'number' ? ` ${host}:${port}` : ` ${host}`;
    return `${code}${place}`;
  }
  // A dual-stack connect fails with an AggregateError of the real socket errors.
  const inner = Array.isArray(errors) ? errors[0] : cause;
  return whereItFailed(inner, depth + 1);
}

/** The warning for a failed read of the collations: the unreachable database first, when that is why. */
export function unreadCollationsWarning(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const consequence = 'include= pairs text keys exactly unless a MySQL/MariaDB key declares its collation';
  if (!isConnectionError(error))
    return `koa-model-api: the column collations could not be read (${message}); ${consequence}.`;
  const where = whereItFailed(error);
  return `koa-model-api: could not reach the database${where === undefined ? '' : ` (${where})`}: ${message}. The adapter starts anyway: requests answer 503 and /health/ready reports the outage until the database answers. Its column collations were not read: ${consequence}.`;
}

/** Reads the column collations; a failure leaves keys paired as declared, with one warning. */
export async function readCollationsOrWarn(orm: AnyMikroORM): Promise<void> {
  await readCollations(orm).catch((error: unknown) => {
    process.emitWarning(unreadCollationsWarning(error), { code: 'KMA_COLLATIONS_UNREAD' });
  });
}
