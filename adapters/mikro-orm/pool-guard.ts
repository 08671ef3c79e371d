/**
 * Gives back to its pool a PostgreSQL connection that died while checked out and that nobody will
 * release. Kysely's controlled transactions (MikroORM's flushes and `em.transactional`) release a
 * connection only after a BEGIN, COMMIT or ROLLBACK that succeeded: a backend ended inside a
 * transaction (a failover, a PgBouncer KILL, `pg_terminate_backend`, `idle_session_timeout`) stays
 * checked out for ever, and once the pool's every connection is lost so, each request waits for the
 * connect timeout and answers 503 although the database is back. A connection whose statement timed
 * out on the client is ended first (timed-out-connections.ts), so it is rescued the same way.
 */
import { endOnQueryTimeout, type TimedClient } from './timed-out-connections.js';

/** The part of a `pg` client the guard watches. */
interface GuardedClient extends TimedClient {
  release?: (error?: Error) => void;
  once(event: 'end', listener: () => void): unknown;
}

/** The part of a `pg-pool` pool the guard listens to (its documented events). */
export interface GuardedPool {
  on(event: 'connect' | 'acquire', listener: (client: GuardedClient) => void): unknown;
  on(event: 'release', listener: (error: Error | undefined, client: GuardedClient) => void): unknown;
}

/**
 * How long a connection that ended may stay checked out before the guard releases it: whoever holds
 * it learns of the end with its own query's failure and releases it within a few ticks if it ever
 * will; only a holder that never will is still there after this.
 */
const GRACE_MS = 1_000;

const guarded = new WeakSet<object>();

/**
 * Watches a pool (once): a connection whose statement times out on the client is ended, and one that
 * ends while checked out is released after a grace period.
 */
export function guardPool(pool: GuardedPool): void {
  if (guarded.has(pool)) return;
  guarded.add(pool);
  const checkedOut = new Set<GuardedClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client));
  pool.on('connect', (client) => {
    endOnQueryTimeout(client);
    client.once('end', () => {
      if (!checkedOut.has(client)) return;
      setTimeout(() => {
        const release = client.release;
        if (!checkedOut.has(client) || release === undefined) return;
        // Released with an error, the pool removes the client; a late release by its holder must
        // then not throw (pg-pool refuses a second release).
        client.release = () => {};
        release(new Error('The connection ended while checked out, and its holder never released it.'));
      }, GRACE_MS).unref();
    });
  });
}
