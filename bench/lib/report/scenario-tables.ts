/**
 * The tables of the scenarios run on the shared profile processes: throughput and latency,
 * event-loop delay, SQL statements per request, the login storm and memory.
 */
import { CHARTED, type ChartedScenario } from '../chart.js';
import type { ContenderName } from '../contenders.js';
import type { BackendView } from './backend-view.js';
import { formatMiB, formatNumber, formatRatio, ratioOf } from './format.js';
import { numericHeader, tableOrNothing } from './table.js';

/** The throughput scenarios a per-scenario table has columns for: every one, or those measured when marked so. */
function columnsOf(view: BackendView): readonly ChartedScenario[] {
  return CHARTED.filter(
    (scenario) =>
      scenario.onlyWhenMeasured !== true || view.contenders.some((c) => view.medians(scenario.name, c)),
  );
}

/** Requests per second, latency and the ratios to the other contenders, per scenario and contender. */
export function throughputTable(view: BackendView): string[] {
  const lines = [
    '| scenario | contender | req/s | p50 ms | p99 ms | × hand-written | × ceiling | × Feathers |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const scenario of CHARTED) {
    const rpsOf = (c: ContenderName) => view.medians(scenario.name, c)?.rps;
    const handwritten = rpsOf('handwritten');
    const ceiling = rpsOf('ceiling');
    const feathers = rpsOf('feathers');
    for (const c of view.contenders) {
      const m = view.medians(scenario.name, c);
      if (!m) continue;
      const flag = (m.non2xx ?? 0) + (m.errors ?? 0) > 0 ? ' ⚠' : '';
      lines.push(
        `| ${scenario.title} | ${view.label(c)} | ${formatNumber(m.rps)}${flag} | ${formatNumber(m.p50)} | ${formatNumber(m.p99)} | ${formatRatio(ratioOf(m.rps, handwritten))} | ${formatRatio(ratioOf(m.rps, ceiling))} | ${formatRatio(ratioOf(m.rps, feathers))} |`,
      );
    }
  }
  return lines;
}

/** Each contender's event-loop delay p99 in each throughput scenario. */
export function loopDelayTable(view: BackendView): string[] {
  const scenarios = columnsOf(view);
  const lines = numericHeader(
    'contender',
    scenarios.map((s) => s.name),
  );
  for (const c of view.contenders) {
    const delays = scenarios.map((s) => formatNumber(view.medians(s.name, c)?.eld_p99, 1));
    lines.push(`| ${view.label(c)} | ${delays.join(' | ')} |`);
  }
  return lines;
}

/** A statement count: whole numbers as such, else one decimal. */
const statementCount = (n: number | undefined): string =>
  n === undefined || !Number.isFinite(n) ? '–' : Number.isInteger(n) ? String(n) : n.toFixed(1);

/** SQL statements per request of each throughput scenario, as each contender's driver counted them; nothing for a run without the count. */
export function statementsTable(view: BackendView): string[] {
  const scenarios = columnsOf(view).filter((s) =>
    view.contenders.some((c) => view.medians(s.name, c)?.statements !== undefined),
  );
  if (scenarios.length === 0) return [];
  const lines = numericHeader(
    'contender',
    scenarios.map((s) => s.name),
  );
  for (const c of view.contenders) {
    const counts = scenarios.map((s) => statementCount(view.medians(s.name, c)?.statements));
    lines.push(`| ${view.label(c)} | ${counts.join(' | ')} |`);
  }
  return lines;
}

/** GET latency alone and during the login storm, per contender. */
export function stormTable(view: BackendView): string[] {
  const lines = [
    '| contender | GET p99 idle ms | GET p99 during storm ms | storm / idle | logins/s during storm | event-loop delay p99 ms |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const c of view.contenders) {
    const m = view.medians('login_storm', c);
    if (m) {
      lines.push(
        `| ${view.label(c)} | ${formatNumber(m.idle_p99)} | ${formatNumber(m.storm_p99)} | ${formatRatio(ratioOf(m.storm_p99, m.idle_p99))} | ${formatNumber(m.login_rps, 1)} | ${formatNumber(m.eld_p99, 1)} |`,
      );
    }
  }
  return tableOrNothing(lines);
}

/** Idle RSS and RSS with idle connections, per contender. */
export function memoryTable(view: BackendView): string[] {
  const handwritten = view.medians('memory', 'handwritten');
  const lines = [
    '| contender | idle RSS MiB | RSS with idle connections MiB | connections | idle × hand-written |',
    '|---|---:|---:|---:|---:|',
  ];
  for (const c of view.contenders) {
    const m = view.medians('memory', c);
    if (m) {
      lines.push(
        `| ${view.label(c)} | ${formatMiB(m.idle_rss)} | ${formatMiB(m.connected_rss)} | ${formatNumber(m.connections)} | ${formatRatio(ratioOf(m.idle_rss, handwritten?.idle_rss))} |`,
      );
    }
  }
  return tableOrNothing(lines);
}
