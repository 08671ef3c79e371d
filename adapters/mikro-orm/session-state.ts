/**
 * What the adapter remembers of one session (a forked `EntityManager`) between its calls: whether
 * its reads must see every committed write. A session that wrote reads from the primary afterwards,
 * so a request reads its own writes even when MikroORM is configured with read replicas; so does a
 * session opened for a request that may write, or for the auth plugin's own checks.
 */
import type { EntityManager } from '@mikro-orm/core';

const wrote = new WeakSet<object>();

/** Records that this session wrote (an insert, update or delete reached the database). */
export function markWritten(session: EntityManager): void {
  wrote.add(session);
}

/** Sends every read of this session to the primary, from the start (`openSession({ primary: true })`). */
export function readFromPrimary(session: EntityManager): void {
  wrote.add(session);
}

/** Whether this session wrote earlier in the request. */
export function hasWritten(session: EntityManager): boolean {
  return wrote.has(session);
}

/**
 * The connection a read of this session should use, as MikroORM would choose it: the primary
 * inside a transaction or after a write, otherwise MikroORM's own choice (a replica when
 * `preferReadReplicas` is on).
 */
export function readConnectionType(session: EntityManager): 'read' | 'write' | undefined {
  if (session.isInTransaction() || wrote.has(session)) return 'write';
  return undefined;
}
