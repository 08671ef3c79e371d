/**
 * One PostgreSQL statement for a page and its total: the count query becomes a column of the
 * page query (`select <columns>, (<count>) as "kma_total" from …`). PostgreSQL runs an
 * uncorrelated subquery once per statement, whatever the rows, and the subquery's own `e0` alias
 * hides the outer one, so the count's SQL goes in as the query builder wrote it.
 */

/** The column that carries the total; removed from every row before it is mapped. */
export const TOTAL_COLUMN = 'kma_total';

/** Composed SQL by page SQL and count SQL (both come from templates, so the strings repeat). */
export type CombinedCache = Map<string, Map<string, string | null>>;

const MAX_CACHED = 500;

/** Where the select list of `select <columns> from …` ends, when the columns are plain quoted names. */
function endOfColumns(sql: string): number | undefined {
  if (!sql.startsWith('select ')) return undefined;
  const at = sql.indexOf(' from ');
  if (at < 0) return undefined;
  const columns = sql.slice('select '.length, at);
  // Only "alias"."column" names, so that neither a placeholder nor a quoted " from " hides in them.
  return /^"[^"?]+"\."[^"?]+"(, ?"[^"?]+"\."[^"?]+")*$/.test(columns) ? at : undefined;
}

function compose(page: string, count: string): string | null {
  const at = endOfColumns(page);
  if (at === undefined || !count.startsWith('select count(')) return null;
  return `${page.slice(0, at)}, (${count}) as "${TOTAL_COLUMN}"${page.slice(at)}`;
}

/** The page SQL with the total as its last column (count parameters first), or undefined. */
export function withTotalColumn(page: string, count: string, cache: CombinedCache): string | undefined {
  let byCount = cache.get(page);
  if (byCount === undefined) {
    if (cache.size >= MAX_CACHED) cache.clear();
    byCount = new Map();
    cache.set(page, byCount);
  }
  let sql = byCount.get(count);
  if (sql === undefined) {
    sql = compose(page, count);
    byCount.set(count, sql);
  }
  return sql ?? undefined;
}
