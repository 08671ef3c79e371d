/** The tables of the scenarios that start processes of their own: route sweep, big-table pages and soak. */
import { sizePrefix } from '../scenarios/pages.js';
import type { BackendView } from './backend-view.js';
import { formatMiB, formatNumber, formatRatio, ratioOf, rowsLabel } from './format.js';
import { pageSizes, sweepCounts } from './metric-keys.js';
import { tableOrNothing } from './table.js';

/** GET by id per count of registered models, per contender. */
export function sweepTable(view: BackendView): string[] {
  const lines = [
    '| contender | models | req/s | p50 ms | p99 ms | × 1 model | event-loop delay p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of view.contenders) {
    const m = view.medians('route_sweep', c);
    for (const count of sweepCounts(m)) {
      const k = (stat: string) => m?.[`m${count}_${stat}`];
      lines.push(
        `| ${view.label(c)} | ${count} | ${formatNumber(k('rps'))} | ${formatNumber(k('p50'))} | ${formatNumber(k('p99'))} | ${formatRatio(ratioOf(k('rps'), m?.m1_rps))} | ${formatNumber(k('eld_p99'), 1)} |`,
      );
    }
  }
  return tableOrNothing(lines);
}

/** The pages measured on each big table, by their key in the record and their title. */
const PAGES: readonly [key: string, title: string][] = [
  ['first', 'first page, `count=false`'],
  ['counted', 'first page with `X-Total-Count`'],
  ['start', 'first page of a keyset walk (`after=`), `count=false`'],
  ['offset', 'deep offset page (90 %), `count=false`'],
  ['keyset', 'keyset page at the same depth, `count=false`'],
];

/** The framework's pages of each big table, with each page's time against the first page's. */
export function pagesTable(view: BackendView): string[] {
  const lines = [
    '| rows | page | req/s | mean ms | p99 ms | time × first page |',
    '|---:|---|---:|---:|---:|---:|',
  ];
  const m = view.medians('pages', 'framework');
  for (const rows of pageSizes(m)) {
    const p = sizePrefix(rows);
    for (const [key, title] of PAGES) {
      const rps = m?.[`${p}${key}_rps`];
      lines.push(
        `| ${rowsLabel(rows)} | ${title} | ${formatNumber(rps)} | ${formatNumber(m?.[`${p}${key}_mean`], 1)} | ${formatNumber(m?.[`${p}${key}_p99`])} | ${formatRatio(ratioOf(m?.[`${p}first_rps`], rps))} |`,
      );
    }
  }
  return tableOrNothing(lines);
}

/** RSS, JS heap and live heap over the soak, per contender. */
export function soakTable(view: BackendView): string[] {
  const lines = [
    '| contender | seconds | target req/s (70 %) | achieved req/s | p99 ms | RSS start MiB | RSS after settling MiB | RSS end MiB | RSS growth after settling | JS heap after settling MiB | JS heap end MiB | live heap after settling MiB | live heap end MiB | full GCs | event-loop delay p99 ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of view.contenders) {
    const m = view.medians('soak', c);
    if (!m) continue;
    const mib = (key: string) => formatMiB(m[key]);
    lines.push(
      `| ${view.label(c)} | ${formatNumber(m.seconds)} | ${formatNumber(m.target_rps)} | ${formatNumber(m.rps)} | ${formatNumber(m.p99)} | ${mib('rss_start')} | ${mib('rss_settled')} | ${mib('rss_end')} | ${formatNumber((m.growth ?? Number.NaN) * 100, 1)} % | ${mib('heap_settled')} | ${mib('heap_end')} | ${mib('live_heap_settled')} | ${mib('live_heap_end')} | ${formatNumber(m.major_gcs)} | ${formatNumber(m.eld_p99, 1)} |`,
    );
  }
  return tableOrNothing(lines);
}
