/**
 * What each case receives: clients of the two servers (default and `strict` routers), the models,
 * the adapter, and helpers that keep cases independent although they share one schema: every
 * value under a unique constraint and every list a case inspects carries a prefix of its own.
 */
import type { OrmAdapter, RawRecord } from '../lib/index.js';
import { expectRecord } from './assertions.js';
import type { HttpClient, JsonObject } from './http-client.js';
import type { ConformanceModels } from './types.js';

/** The context of one case. */
export interface CaseContext {
  /** Routers with default options: fields a client may not set are dropped silently. */
  readonly http: HttpClient;
  /** The same routes with `strict: true`: such fields give 422. */
  readonly strictHttp: HttpClient;
  readonly models: ConformanceModels;
  readonly adapter: OrmAdapter;
  /** A lower-case prefix unique to this case (letters and digits only, safe in `LIKE` patterns). */
  readonly prefix: string;
}

/** One case: a short description (the test title) and its body. */
export interface ConformanceCase {
  readonly description: string;
  run(ctx: CaseContext): Promise<void>;
}

/** Creates a gadget over HTTP with a name under the case prefix; returns the created record. */
export async function createGadget(
  ctx: CaseContext,
  label: string,
  fields: JsonObject = {},
): Promise<JsonObject> {
  return expectRecord(await ctx.http.post('/gadgets', { name: `${ctx.prefix}-${label}`, ...fields }), 201);
}

/** Inserts rows directly through the adapter (fast seeding for list cases). */
export async function seed(
  ctx: CaseContext,
  model: keyof ConformanceModels,
  rows: readonly RawRecord[],
): Promise<void> {
  const session = ctx.adapter.openSession();
  for (const row of rows) await ctx.adapter.create(session, ctx.models[model], row);
}

/** The `filter[name][$like]` that selects the rows of this case. */
export function ownRows(ctx: CaseContext): Record<string, string> {
  return { 'filter[name][$like]': `${ctx.prefix}-%` };
}

/** The names of listed rows with the case prefix removed, in response order. */
export function labels(ctx: CaseContext, rows: readonly JsonObject[]): string[] {
  return rows.map((row) => String(row.name).slice(ctx.prefix.length + 1));
}
