/**
 * Which written references point at no row, asked of the database when its foreign-key error does
 * not say which key failed (SQLite: `FOREIGN KEY constraint failed`). With several references
 * written (one the server set, as an owner from the token), the error alone would blame them all.
 * Runs in the error path only, through the failed write's session and transaction.
 */
import type { EntityManager, EntityMetadata, EntityProperty } from '@mikro-orm/core';

/** The single key column a reference points at in its target's table, or undefined when it spans several. */
function referencedColumn(prop: EntityProperty): string | undefined {
  const target = prop.targetMeta;
  const key =
    target?.primaryKeys.length === 1 ? target.properties[target.primaryKeys[0] as never] : undefined;
  const columns = (key as EntityProperty | undefined)?.fieldNames ?? [];
  return columns.length === 1 ? columns[0] : undefined;
}

/** The database form of a key, as its column holds it (a custom type converts it). */
function databaseKey(session: EntityManager, prop: EntityProperty, key: unknown): unknown {
  const target = prop.targetMeta;
  const keyProp = target?.properties[target.primaryKeys[0] as never] as EntityProperty | undefined;
  const custom = keyProp?.customType;
  return custom === undefined ? key : custom.convertToDatabaseValue(key, session.getPlatform());
}

/** Whether every one of these keys names a row of the reference's target table. */
async function allExist(
  session: EntityManager,
  prop: EntityProperty,
  keys: readonly unknown[],
): Promise<boolean> {
  const column = referencedColumn(prop);
  const table = prop.targetMeta?.tableName;
  // A key of several columns is not looked up: the caller then names no field.
  if (column === undefined || table === undefined) throw new Error('A key of several columns.');
  const distinct = [...new Set(keys.map((key) => databaseKey(session, prop, key)))];
  const platform = session.getPlatform();
  const schema = prop.targetMeta?.schema;
  const qualified = schema === undefined || schema === '*' ? table : `${schema}.${table}`;
  const sql =
    `select count(*) as found from ${platform.quoteIdentifier(qualified)} ` +
    `where ${platform.quoteIdentifier(column)} in (${distinct.map(() => '?').join(', ')})`;
  const row: { found?: unknown } | undefined = await session
    .getConnection()
    .execute(sql, distinct, 'get', session.getTransactionContext());
  return Number(row?.found) === distinct.length;
}

/**
 * The written references among the candidates (to-one relations or many-to-many arrays) with a
 * key that names no row; undefined when one of them cannot be looked up (a composite key, a
 * failed query), so that the caller names no field rather than a wrong one.
 */
export async function danglingReferences(
  session: EntityManager,
  meta: EntityMetadata,
  values: Readonly<Record<string, unknown>>,
  candidates: readonly string[],
): Promise<string[] | undefined> {
  const dangling: string[] = [];
  try {
    for (const name of candidates) {
      const value = values[name];
      const prop = meta.properties[name as never] as EntityProperty | undefined;
      if (prop === undefined || value === null || value === undefined) continue;
      const keys = Array.isArray(value) ? value : [value];
      if (keys.length > 0 && !(await allExist(session, prop, keys))) dangling.push(name);
    }
  } catch {
    return undefined;
  }
  return dangling;
}
