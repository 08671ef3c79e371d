/** How the report writes numbers: counts, ratios, percentages, sizes and table sizes. */

/** Bytes in a mebibyte. */
export const MIB = 2 ** 20;

/** A number with a fixed count of decimals and thousands separators, or `–` when there is none. */
export function formatNumber(n: number | undefined, digits = 0): string {
  return n === undefined || !Number.isFinite(n)
    ? '–'
    : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** `a / b`, or undefined when either is missing or not finite, or `b` is 0. */
export function ratioOf(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0
    ? undefined
    : a / b;
}

/** A ratio as `1.23×`, or `–`. */
export function formatRatio(r: number | undefined): string {
  return r === undefined ? '–' : `${r.toFixed(2)}×`;
}

/** A fraction as `12.3 %`. */
export function formatPercent(fraction: number): string {
  return `${(fraction * 100).toFixed(1)} %`;
}

/** Bytes as MiB with one decimal, or `–`. */
export function formatMiB(bytes: number | undefined): string {
  return formatNumber((bytes ?? Number.NaN) / MIB, 1);
}

/** A row count as the report names table sizes: `1k`, `100k`, `1M`, else the number. */
export function rowsLabel(rows: number): string {
  return rows >= 1e6 && rows % 1e6 === 0
    ? `${rows / 1e6}M`
    : rows >= 1e3 && rows % 1e3 === 0
      ? `${rows / 1e3}k`
      : formatNumber(rows);
}
