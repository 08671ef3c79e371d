/**
 * List pages of big tables (1k, 100k, 1M posts): the first page with and without the total count,
 * the first page of a keyset walk (`after=`), a deep offset page (90 % in) and the keyset page at
 * the same depth. Framework only: keyset paging
 * is its feature, and the goal compares its own pages with each other.
 */
import { isDeepStrictEqual } from 'node:util';
import { cursorAfterPost } from '../cursor.js';
import { measure, prefixed } from '../measure.js';
import type { Metrics, OwnScenario } from '../scenario-types.js';

const PAGE = 20;
// Deep pages are database-bound: as many connections as the contenders' pool.
const PAGE_CONNECTIONS = 10;

/** The pages measured on a table of `rows` posts (ids 1..rows). */
export function pagePaths(rows: number): Record<'first' | 'counted' | 'start' | 'offset' | 'keyset', string> {
  const depth = Math.max(0, Math.min(rows - PAGE, Math.floor(rows * 0.9)));
  return {
    first: `/posts?limit=${PAGE}&count=false`,
    counted: `/posts?limit=${PAGE}`,
    // The first page of a keyset walk: it also makes a cursor for its next link.
    start: `/posts?limit=${PAGE}&count=false&after=`,
    offset: `/posts?limit=${PAGE}&offset=${depth}&count=false`,
    keyset: `/posts?limit=${PAGE}&count=false&after=${depth === 0 ? '' : cursorAfterPost(depth)}`,
  };
}

async function getJson(url: string): Promise<{ status: number; body: unknown; total: string | null }> {
  const response = await fetch(url);
  return {
    status: response.status,
    body: await response.json(),
    total: response.headers.get('x-total-count'),
  };
}

/** The keyset page must be the offset page it replaces, and the count must count every row. */
async function checkPages(baseUrl: string, rows: number, paths: ReturnType<typeof pagePaths>): Promise<void> {
  const [offset, keyset, counted] = await Promise.all([
    getJson(baseUrl + paths.offset),
    getJson(baseUrl + paths.keyset),
    getJson(baseUrl + paths.counted),
  ]);
  if (offset.status !== 200 || !Array.isArray(offset.body) || offset.body.length !== PAGE)
    throw new Error(
      `pages ${rows}: the offset page answered ${offset.status} with ${JSON.stringify(offset.body).slice(0, 200)}`,
    );
  if (!isDeepStrictEqual(offset.body, keyset.body))
    throw new Error(`pages ${rows}: the keyset page differs from the offset page at the same depth`);
  if (counted.total !== String(rows))
    throw new Error(`pages ${rows}: X-Total-Count ${counted.total}, not ${rows}`);
}

/** Metric key prefix of a table size: `n1000_`, `n1000000_`. */
export const sizePrefix = (rows: number): string => `n${rows}_`;

export const pages: OwnScenario = {
  name: 'pages',
  title: 'GET /posts pages of 1k, 100k and 1M rows: first, deep offset, keyset',
  profile: 'own',
  contenders: ['framework'],
  async run(ctx) {
    const metrics: Metrics = {};
    for (const rows of ctx.settings.pageSizes) {
      const url = await ctx.db.bigTable(rows);
      const proc = await ctx.launch({ profile: 'open', databaseUrl: url });
      try {
        const paths = pagePaths(rows);
        await checkPages(proc.baseUrl, rows, paths);
        for (const [page, path] of Object.entries(paths)) {
          const result = await measure(proc, ctx.timing, { method: 'GET', path }, PAGE_CONNECTIONS);
          Object.assign(metrics, prefixed(`${sizePrefix(rows)}${page}_`, result));
        }
      } finally {
        await proc.stop();
      }
    }
    return metrics;
  },
};
