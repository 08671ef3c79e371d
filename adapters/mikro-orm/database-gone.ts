/**
 * Whether the database itself is gone (dropped, or not yet restored) while MariaDB/MySQL
 * connections opened before still serve: such a pooled connection keeps the name of its database
 * (`select database()` still gives it) and answers `select 1`, but every table is missing (1146),
 * where a new connection fails with 1049 (ER_BAD_DB_ERROR). A missing table is then no set-up
 * mistake but an unavailable database. PostgreSQL ends the sessions of a database it drops.
 */
import type { AnyMikroORM } from './describe.js';
import { dialectOf } from './dialect.js';
import { isConnectionError } from './errors.js';

// `database()` is null on a connection with no database chosen: nothing is gone then.
const SQL =
  'select database() as name, (select count(*) from information_schema.schemata where schema_name = database()) as found';

/** Whether the ORM's MariaDB/MySQL database no longer exists (false on other databases, or when it cannot tell). */
export async function databaseGone(orm: AnyMikroORM): Promise<boolean> {
  if (dialectOf(orm.em.getPlatform()) !== 'mysql') return false;
  try {
    const row = await orm.em
      .getConnection()
      .execute<{ name: string | null; found: number | string }>(SQL, [], 'get');
    return row?.name != null && Number(row.found) === 0;
  } catch (error) {
    // A new connection to a database that is gone fails to open (ER_BAD_DB_ERROR).
    return isConnectionError(error);
  }
}
