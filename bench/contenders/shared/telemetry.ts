/**
 * What a contender reports to the runner over the IPC channel: readiness, event-loop delay
 * (monitorEventLoopDelay), memory, CPU time and SQL statements. Kept out of the HTTP routes; the
 * statement count wraps the driver's calls only while the runner counts, alike in every contender.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { countStatements, setCounting, statementCount } from './statement-counter.js';

/** Event-loop delay percentiles in milliseconds since the last reset. */
export interface LoopDelay {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** A message from the runner to a contender. */
export type RunnerMessage = {
  readonly type: 'stats' | 'reset' | 'count-on' | 'count-off';
  readonly seq: number;
};

/** A message from a contender to the runner. */
export type ContenderMessage =
  | { readonly type: 'ready'; readonly pid: number }
  | {
      readonly type: 'stats';
      readonly seq: number;
      readonly rss: number;
      readonly heapUsed: number;
      /** Memory of C++ objects bound to JS ones (buffers, native handles). */
      readonly external: number;
      /** Full (mark-compact) garbage collections since the process started. */
      readonly majorGcs: number;
      /** JS heap in use just after the last full collection: the live heap, without the garbage heapUsed also counts. */
      readonly liveHeap: number;
      /** CPU time of the whole process (user + system, every thread) since it started, in microseconds. */
      readonly cpuMicros: number;
      /** SQL statements the process has run since it started, counted at its database driver. */
      readonly statements: number;
      readonly eld: LoopDelay;
    }
  | { readonly type: 'reset'; readonly seq: number };

/**
 * Starts the event-loop monitor and the statement count (of the driver `DATABASE_URL` names) and
 * answers the runner's `stats`/`reset` requests; exits when the runner goes away.
 */
export function startTelemetry(): { ready(): void } {
  countStatements(process.env.DATABASE_URL ?? '');
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  // Full collections, and the heap they leave: RSS follows the old generation's saw-tooth (it grows
  // to a limit V8 raises from collection to collection, and freed pages stay resident), while a leak
  // shows as a growing heap after each full collection.
  let majorGcs = 0;
  let liveHeap = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR)
        continue;
      majorGcs++;
      liveHeap = process.memoryUsage().heapUsed;
    }
  }).observe({ entryTypes: ['gc'] });
  const send = (message: ContenderMessage): void => {
    process.send?.(message);
  };
  process.on('message', (raw: RunnerMessage) => {
    if (raw.type === 'reset') {
      histogram.reset();
      send({ type: 'reset', seq: raw.seq });
      return;
    }
    if (raw.type === 'count-on' || raw.type === 'count-off') {
      setCounting(raw.type === 'count-on');
      send({ type: 'reset', seq: raw.seq });
      return;
    }
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    const ms = (ns: number): number => Math.round(ns / 1e4) / 100;
    send({
      type: 'stats',
      seq: raw.seq,
      rss: memory.rss,
      heapUsed: memory.heapUsed,
      external: memory.external,
      majorGcs,
      liveHeap,
      cpuMicros: cpu.user + cpu.system,
      statements: statementCount(),
      eld: {
        p50: ms(histogram.percentile(50)),
        p99: ms(histogram.percentile(99)),
        max: ms(histogram.max),
        mean: ms(histogram.mean),
      },
    });
  });
  // An orphaned contender would keep its port and core busy: follow the runner out.
  process.on('disconnect', () => process.exit(0));
  // Exit through process.exit on signals so that --cpu-prof and similar flags write their output.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
  return { ready: () => send({ type: 'ready', pid: process.pid }) };
}
