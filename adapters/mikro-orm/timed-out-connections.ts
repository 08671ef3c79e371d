/**
 * Ends a PostgreSQL connection as soon as one of its statements times out on the client (`pg`'s
 * `query_timeout`, set by connect.ts for a server that stopped answering). Its state is unknown
 * then: the server may still run the statement, a transaction may be open and hold locks. `pg`
 * keeps such a connection open and says nothing, and Kysely releases a transaction's connection
 * only after a BEGIN, COMMIT or ROLLBACK that succeeded: once the server answered again, the
 * connection sat `idle in transaction` for ever, checked out, its locks held. Ended, its socket
 * closes (the server aborts the transaction when it reads the close), a ROLLBACK queued behind it
 * fails at once instead of waiting out its own timeout, and the pool drops it on release, or the
 * pool guard (pool-guard.ts) releases it when its holder never will. Cursors are left alone: `pg`
 * times out a cursor even long after it finished, so there the error says nothing of the connection.
 */

/** `pg`'s message for a statement that outlived `query_timeout` (pg/lib/client.js). */
const READ_TIMEOUT = 'Query read timeout';

/** The part of a `pg` client this watches. */
export interface TimedClient {
  query: (...args: unknown[]) => unknown;
  end(): Promise<void>;
}

const watched = new WeakSet<object>();

/**
 * Makes a `pg` client end itself when one of its statements times out on the client (sent for a
 * promise, as Kysely does, or with a callback, as `pool.query` does); once per client.
 */
export function endOnQueryTimeout(client: TimedClient): void {
  if (watched.has(client)) return;
  watched.add(client);
  const noticed = (error: unknown): void => {
    // With a statement still on the wire, `end()` destroys the socket rather than wait for the server.
    if (error instanceof Error && error.message === READ_TIMEOUT) client.end().catch(() => {});
  };
  // The client's own `query` if it has one, else its class's, looked up at each call: whatever
  // wraps `Client.prototype.query` later, or unwraps it (an APM agent, the bench's statement
  // counter), still takes effect on connections made before.
  const own = Object.hasOwn(client, 'query') ? client.query : undefined;
  const proto = Object.getPrototypeOf(client) as TimedClient;
  client.query = function (this: unknown, ...args: unknown[]): unknown {
    const query = own ?? proto.query;
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, result: unknown) => {
        noticed(error);
        return (callback as (error: unknown, result: unknown) => unknown)(error, result);
      };
      return query.apply(this, args);
    }
    // A submittable (a cursor, a Query object) is returned as it is: pg gives it back, no promise.
    if (typeof (args[0] as { submit?: unknown } | null)?.submit === 'function')
      return query.apply(this, args);
    // The promise pg would make, made here around a callback of ours: the timeout is noticed on
    // the way, at no more cost than pg's own promise (no second handler, no extra tick).
    return new Promise((resolve, reject) => {
      args.push((error: unknown, result: unknown) => {
        noticed(error);
        if (error) reject(error);
        else resolve(result);
      });
      query.apply(this, args);
    });
  };
}
