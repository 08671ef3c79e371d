/** The sections of one backend in the report: throughput, statements, storm, event-loop delay, own-process scenarios, memory. */
import type { BackendView } from './backend-view.js';
import { backendTitle } from './backend-view.js';
import { pagesTable, soakTable, sweepTable } from './own-process-tables.js';
import {
  loopDelayTable,
  memoryTable,
  statementsTable,
  stormTable,
  throughputTable,
} from './scenario-tables.js';

/** A titled section with an explanation, or nothing when its table is empty. */
function section(title: string, explanation: string, table: string[]): string[] {
  return table.length === 0 ? [] : [`### ${title}`, '', explanation, '', ...table, ''];
}

/** Every section of one backend, under its `##` heading. */
export function backendSections(view: BackendView): string[] {
  return [
    `## ${backendTitle(view.backend)}`,
    '',
    '### Throughput and latency',
    '',
    ...throughputTable(view),
    '',
    ...section(
      'SQL statements per request',
      'Counted inside each contender by wrappers around its database driver, over ten requests sent one at a time after each measured run (see Method); `BEGIN` and `COMMIT` count.',
      statementsTable(view),
    ),
    ...section(
      'GET latency during a login storm',
      'A light GET load (100 req/s over 4 connections) is measured alone, then again while 16 connections hammer `POST /login`.',
      stormTable(view),
    ),
    '### Event-loop delay p99 (ms, `monitorEventLoopDelay` in each contender during the measured run)',
    '',
    ...loopDelayTable(view),
    '',
    ...section(
      'Route sweep',
      '`GET /posts/:id` (random ids) on a process serving 1, 50 or 200 models; the extra models (five routes each, tables of their own) are registered before posts.',
      sweepTable(view),
    ),
    ...section(
      'List pages of big tables (koa-model-api)',
      '`GET /posts?limit=20` on tables of the seeded users and 1k, 100k or 1M posts, 10 connections. The keyset page uses the cursor of the row before the deep offset page and is checked to return the same rows. “time × first page” is the first page’s throughput divided by the page’s.',
      pagesTable(view),
    ),
    ...section(
      'Soak',
      'An authenticated mix (GET own post, list 20 with `count=false`, create, update) at 70 % of the throughput a short unthrottled run of the same mix reached; RSS read from `/proc` and the JS heap from `process.memoryUsage()` every 5 s. Growth is measured from the end of the first minute (the settling time) to the end.',
      soakTable(view),
    ),
    ...section(
      'Memory',
      'A freshly started process after a short GET warm-up, then with idle keep-alive connections open (each made one request).',
      memoryTable(view),
    ),
  ];
}
