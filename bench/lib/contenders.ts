/** The contenders of the bench: which script each runs, and what it is called in the report. */
import { ADAPTER_MODE_VARIABLE } from '../contenders/shared/env.js';
import type { Backend } from './database.js';

/** A contender of the bench. */
export interface ContenderSpec {
  /** Stable key in results and on the command line. */
  readonly name: ContenderName;
  /** The compiled script, relative to the bench's own folder. */
  readonly script: string;
  /** Environment the script runs with besides the runner's own (one script can serve two contenders). */
  readonly env?: Readonly<Record<string, string>>;
  /** How the report calls it on a backend. */
  label(backend: Backend): string;
}

/** The contender keys. */
export type ContenderName = 'framework' | 'framework-plain' | 'handwritten' | 'feathers' | 'ceiling';

/** Every contender, in report order. */
export const CONTENDERS: readonly ContenderSpec[] = [
  { name: 'framework', script: 'contenders/framework.js', label: () => 'koa-model-api' },
  {
    // The same application with the adapter's own SQL path off: what MikroORM's public API alone gives.
    name: 'framework-plain',
    script: 'contenders/framework.js',
    env: { [ADAPTER_MODE_VARIABLE]: 'plain' },
    label: () => "koa-model-api, plain mode (MikroORM's public API only)",
  },
  { name: 'handwritten', script: 'contenders/handwritten.js', label: () => 'hand-written Koa + MikroORM' },
  { name: 'feathers', script: 'contenders/feathers.js', label: () => 'Feathers 5 (koa + knex)' },
  {
    name: 'ceiling',
    script: 'contenders/ceiling.js',
    label: (backend) =>
      backend === 'sqlite' ? 'ceiling: node:http + better-sqlite3' : 'ceiling: node:http + pg',
  },
];

/** Looks a contender up by key. */
export function contender(name: string): ContenderSpec | undefined {
  return CONTENDERS.find((spec) => spec.name === name);
}
