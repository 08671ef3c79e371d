/**
 * Writes docs/benchmarks.md and docs/images/benchmarks.svg from a results file. The page is built in
 * report/: goals as data (goals.ts) and their table (goal-table.ts), the per-scenario tables, the
 * sections of each backend, and the method and machine sections.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderChart } from './chart.js';
import { renderMarkdown } from './report/markdown.js';
import type { ResultsFile } from './results.js';

export { renderMarkdown } from './report/markdown.js';

/** Writes docs/benchmarks.md and docs/images/benchmarks.svg under the repository root. */
export function writeDocs(root: string, results: ResultsFile, source: string): void {
  mkdirSync(join(root, 'docs', 'images'), { recursive: true });
  writeFileSync(join(root, 'docs', 'images', 'benchmarks.svg'), renderChart(results));
  writeFileSync(join(root, 'docs', 'benchmarks.md'), renderMarkdown(results, source, root));
}
