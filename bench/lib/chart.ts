/** Renders the throughput chart as a self-contained SVG (no external service, no fonts to fetch). */
import type { ContenderName } from './contenders.js';
import type { Backend } from './database.js';
import { medians, type ResultsFile } from './results.js';
import type { ScenarioName } from './scenarios.js';

/** A throughput scenario of the chart and of the report's per-scenario tables. */
export interface ChartedScenario {
  readonly name: ScenarioName;
  readonly title: string;
  /** A column of the per-scenario tables only when the results hold it (files written before it existed do not). */
  readonly onlyWhenMeasured?: boolean;
}

/** The throughput scenarios drawn, in order. */
export const CHARTED: readonly ChartedScenario[] = [
  { name: 'get_by_id', title: 'GET by id' },
  { name: 'list_20', title: 'list 20 (with X-Total-Count)' },
  { name: 'list_20_nocount', title: 'list 20, count=false' },
  { name: 'list_20_include', title: 'list 20 with include=owner,tags', onlyWhenMeasured: true },
  { name: 'auth_get', title: 'authenticated GET + policy' },
  { name: 'create', title: 'create' },
  { name: 'update', title: 'update' },
  { name: 'delete', title: 'delete' },
  { name: 'login', title: 'login (bcrypt cost 10)' },
];

const COLORS: Readonly<Record<ContenderName, string>> = {
  framework: '#d9480f',
  'framework-plain': '#f08c00',
  handwritten: '#1971c2',
  feathers: '#2f9e44',
  ceiling: '#868e96',
};

const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const formatRps = (n: number): string => (n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1));

/** One horizontal bar group per scenario and backend; bar length is relative to the fastest contender of the group. */
export function renderChart(results: ResultsFile): string {
  const backends = [...new Set(results.records.map((r) => r.backend))] as Backend[];
  const contenders = [...new Set(results.records.map((r) => r.contender))] as ContenderName[];
  const width = 960;
  const labelWidth = 290;
  const barMax = 560;
  const barHeight = 14;
  const parts: string[] = [];
  let y = 34;
  parts.push(
    `<text x="16" y="22" class="title">Requests per second (median of ${results.options.repeats}; longer is better)</text>`,
  );
  for (const backend of backends) {
    parts.push(
      `<text x="16" y="${y + 16}" class="backend">${escapeXml(backend === 'sqlite' ? 'SQLite' : 'PostgreSQL')}</text>`,
    );
    y += 26;
    for (const scenario of CHARTED) {
      const rows = contenders
        .map((c) => ({ c, rps: medians(results.records, backend, scenario.name, c)?.rps }))
        .filter(
          (row): row is { c: ContenderName; rps: number } =>
            row.rps !== undefined && Number.isFinite(row.rps),
        );
      if (rows.length === 0) continue;
      const max = Math.max(...rows.map((r) => r.rps), 1e-9);
      parts.push(`<text x="16" y="${y + 12}" class="scenario">${escapeXml(scenario.title)}</text>`);
      y += 18;
      for (const row of rows) {
        const length = Math.max(1, (row.rps / max) * barMax);
        const label = results.labels[backend]?.[row.c] ?? row.c;
        parts.push(
          `<text x="${labelWidth - 8}" y="${y + 11}" class="label" text-anchor="end">${escapeXml(label)}</text>`,
          `<rect x="${labelWidth}" y="${y}" width="${length.toFixed(1)}" height="${barHeight}" fill="${COLORS[row.c]}"/>`,
          `<text x="${(labelWidth + length + 6).toFixed(1)}" y="${y + 11}" class="value">${formatRps(row.rps)}</text>`,
        );
        y += barHeight + 3;
      }
      y += 8;
    }
    y += 10;
  }
  const height = y + 10;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="koa-model-api benchmark throughput">`,
    '<style>text{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;fill:#212529}.title{font-size:15px;font-weight:600}.backend{font-size:14px;font-weight:600}.scenario{font-size:12px;font-weight:600;fill:#495057}.label{font-size:11px}.value{font-size:11px;fill:#495057}</style>',
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}
