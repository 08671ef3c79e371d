/**
 * Test helpers that watch the MikroORM adapter's own PostgreSQL statements: which of them ran as
 * named (server-side prepared) statements, what the server connections hold, and the
 * `KMA_NAMED_STATEMENTS_OFF` warning. The statement runner sends its SQL with `pool.query` on
 * MikroORM's `pg` pool; MikroORM itself (kysely) checks clients out with `pool.connect()`, so
 * wrapping `pool.query` sees the runner's statements and nothing else.
 */
import type { Pool, PoolClient, QueryConfig } from 'pg';
import type { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';

/** The warning the adapter emits once when it turns named statements off. */
export const NAMED_STATEMENTS_OFF = 'KMA_NAMED_STATEMENTS_OFF';

/** The `pg` pool under the adapter's primary connection. */
export async function nativePool(adapter: MikroOrmAdapter): Promise<Pool> {
  const connection = adapter.orm.em.getConnection() as unknown as { getNativeClient(): Promise<unknown> };
  return (await connection.getNativeClient()) as Pool;
}

/** The runner's statements seen since `countStatements` started. */
export interface StatementCounts {
  named: number;
  unnamed: number;
}

/** Counts the runner's statements on `pool` until `restore()`. */
export function countStatements(pool: Pool): { counts: StatementCounts; restore(): void } {
  const counts: StatementCounts = { named: 0, unnamed: 0 };
  const query = pool.query;
  pool.query = function counted(this: Pool, ...args: unknown[]) {
    const config = args[0] as QueryConfig | string;
    if (typeof config === 'object' && config !== null) {
      if (typeof config.name === 'string') counts.named += 1;
      else counts.unnamed += 1;
    }
    return (query as (...args: unknown[]) => unknown).apply(this, args);
  } as typeof pool.query;
  return {
    counts,
    restore() {
      pool.query = query;
    },
  };
}

/** Collects `KMA_NAMED_STATEMENTS_OFF` warnings until `stop()`. */
export function watchWarnings(): { warnings: Error[]; stop(): Promise<Error[]> } {
  const warnings: Error[] = [];
  const onWarning = (warning: Error & { code?: string }) => {
    if (warning.code === NAMED_STATEMENTS_OFF) warnings.push(warning);
  };
  process.on('warning', onWarning);
  return {
    warnings,
    async stop() {
      // process.emitWarning delivers on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      process.off('warning', onWarning);
      return warnings;
    },
  };
}

/**
 * Runs `work` on every connection of the pool at once (each checked out, so each is a different
 * one). pg-pool hands out the idle client released last: releasing in reverse keeps that order, so
 * the next one-at-a-time query runs on the same connection as the one before.
 */
async function onEveryConnection<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T[]> {
  const clients = await Promise.all(
    Array.from({ length: Math.max(pool.totalCount, 1) }, () => pool.connect()),
  );
  try {
    return await Promise.all(clients.map(work));
  } finally {
    for (const client of clients.reverse()) client.release();
  }
}

/** A clean start: no prepared statement on any connection, on the server or in `pg`. */
export async function forgetPrepared(pool: Pool): Promise<void> {
  await forgetOnServer(pool);
  await forgetOnClient(pool);
}

/**
 * Drops every prepared statement on the pool's server connections while `pg` still believes them
 * parsed, as a transaction-mode pooler does when it hands the client another server connection:
 * the next named use skips Parse and fails at Bind with `26000 … does not exist`.
 */
export async function forgetOnServer(pool: Pool): Promise<void> {
  await onEveryConnection(pool, (client) => client.query('DEALLOCATE ALL'));
}

/**
 * Makes `pg` forget the statements it parsed while the server connections keep them, as when a
 * transaction-mode pooler hands the client a server connection another client prepared them on:
 * the next named use sends Parse again and fails with `42P05 … already exists`. (`pg` keeps what it
 * parsed in the client connection's `parsedStatements`.)
 */
export async function forgetOnClient(pool: Pool): Promise<void> {
  await onEveryConnection(pool, async (client) => {
    const connection = (client as unknown as { connection: { parsedStatements?: Record<string, string> } })
      .connection;
    if (connection.parsedStatements === undefined) throw new Error('pg no longer has parsedStatements');
    connection.parsedStatements = {};
  });
}

/** The adapter's named statements (`kma_…`) the pool's server connections hold. */
export async function preparedOnServer(pool: Pool): Promise<string[]> {
  const names = await onEveryConnection(pool, async (client) => {
    const result = await client.query<{ name: string }>(
      "select name from pg_prepared_statements where name like 'kma\\_%'",
    );
    return result.rows.map((row) => row.name);
  });
  return [...new Set(names.flat())];
}
