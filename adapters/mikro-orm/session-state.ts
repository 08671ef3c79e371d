/**
 * What the adapter remembers of one session (a forked `EntityManager`) between its calls: whether
 * the request wrote through it. A session that wrote reads from the primary afterwards, so a
 * request reads its own writes even when MikroORM is configured with read replicas.
 */
import type { EntityManager } from '@mikro-orm/core';

const wrote = new WeakSet<object>();

/** Records that this session wrote (an insert, update or delete reached the database). */
export function markWritten(session: EntityManager): void {
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
