/** Markdown table helpers shared by the report's tables. */

/** Header and alignment rows of a table whose columns after the first hold numbers. */
export function numericHeader(first: string, columns: readonly string[]): string[] {
  return [`| ${first} | ${columns.join(' | ')} |`, `|---|${columns.map(() => '---:').join('|')}|`];
}

/** A table (header, alignment row, rows), or nothing when it has no row. */
export function tableOrNothing(lines: string[]): string[] {
  return lines.length > 2 ? lines : [];
}
