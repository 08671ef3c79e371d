/**
 * The plans of the routers that serve one application's models (or, for routers used as plain
 * Koa middleware, one adapter's), by model class: how a relation finds the router whose rules
 * apply to its target.
 */
import type { ModelClass, OrmAdapter } from '../types.js';
import type { CrudPlan, PlanLookup } from './crud-plan.js';

/** A lookup of plans by model; the first plan registered for a model serves it. */
export class PlanDirectory implements PlanLookup {
  readonly #plans = new Map<ModelClass, CrudPlan>();
  #version = 0;

  /** Registers a plan; a model already served keeps its first plan. */
  add(plan: CrudPlan): void {
    if (this.#plans.has(plan.options.model)) return;
    this.#plans.set(plan.options.model, plan);
    this.#version++;
  }

  /** The plan serving a model, or `undefined`. */
  planOf(model: ModelClass): CrudPlan | undefined {
    return this.#plans.get(model);
  }

  /** Grows each time a plan is added. */
  get version(): number {
    return this.#version;
  }
}

const byAdapter = new WeakMap<OrmAdapter, PlanDirectory>();

/** The directory of routers used as plain Koa middleware over one adapter. */
export function adapterDirectory(adapter: OrmAdapter): PlanDirectory {
  let directory = byAdapter.get(adapter);
  if (directory === undefined) {
    directory = new PlanDirectory();
    byAdapter.set(adapter, directory);
  }
  return directory;
}
