/**
 * Filters registered at run time with `em.addFilter()`. MikroORM applies them to every read of
 * the entities they name, as it does `@Filter`s and the ORM's `filters` option, but they are in
 * no metadata: an entity manager keeps them privately. The fast path's own SQL would not apply
 * them, so every model a default one reaches is served plainly, found two ways:
 * - `addFilter` itself is wrapped (on the class of the ORM's entity manager, once), so a filter
 *   added later, on the global manager or on any fork, is recorded for its ORM;
 * - filters added before the adapter existed are found by asking the ORM which conditions its
 *   filters add to a read of each entity (`applyFilters`, on a fork of the global manager).
 * Until that question is answered every model is taken as filtered: plain, never wrong. A filter
 * added on one request's fork counts for the whole ORM from then on (a speed cost, not a
 * difference in what is served).
 */
import { type EntityMetadata, type FilterDef, QueryHelper } from '@mikro-orm/core';
import type { AnyMikroORM } from './describe.js';

/** A filter as `addFilter` takes it: what `QueryHelper.isFilterActive` reads. */
interface FilterShape {
  name: string;
  entity?: unknown;
  default?: boolean;
  cond?: unknown;
}

type AddFilter = (this: { config: object }, options: FilterShape) => unknown;

/** What an ORM's runtime filters reach. */
export class RuntimeFilters {
  // By name and entities, as MikroORM keys them by name: a filter added on every request's fork
  // is one entry, and no condition (nor what a closure holds) is kept.
  readonly #filters = new Map<string, FilterShape>();
  readonly #reached = new Map<EntityMetadata, boolean>();
  #settled = false;
  /** Counts changes, so that what was derived from the filters can be worked out again. */
  epoch = 0;
  /** Resolves once the filters registered before the adapter existed are known. */
  readonly settled: Promise<void>;

  constructor(orm: AnyMikroORM) {
    this.settled = this.#probe(orm).finally(() => {
      this.#settled = true;
      this.#changed();
    });
  }

  /** Whether a runtime filter MikroORM turns on by default applies to reads of this entity. */
  reaches(meta: EntityMetadata): boolean {
    if (!this.#settled) return true;
    if (this.#filters.size === 0) return false;
    let reached = this.#reached.get(meta);
    if (reached === undefined) {
      reached = [...this.#filters.values()].some((filter) =>
        QueryHelper.isFilterActive(meta, filter.name, filter as FilterDef, {}),
      );
      this.#reached.set(meta, reached);
    }
    return reached;
  }

  /** Records a filter as MikroORM's `addFilter` keeps it: on by default unless `default: false`. */
  record(options: FilterShape): void {
    const entity = options.entity === undefined ? undefined : [options.entity].flat();
    const filter: FilterShape = {
      name: options.name,
      default: options.default ?? true,
      ...(entity === undefined ? {} : { entity }),
    };
    const names = (entity ?? []).map((e) => (typeof e === 'function' ? e.name : String(e)));
    const key = `${filter.name}\u0000${names.join('\u0000')}`;
    if (this.#filters.get(key)?.default === filter.default) return;
    this.#filters.set(key, filter);
    this.#changed();
  }

  #changed(): void {
    this.#reached.clear();
    this.epoch++;
  }

  /**
   * Asks MikroORM which conditions its filters add to a read of each entity. `applyFilters` is
   * marked internal: without it, every entity is taken as reached, with one warning.
   */
  async #probe(orm: AnyMikroORM): Promise<void> {
    const em = orm.em.fork() as unknown as {
      applyFilters?: (entity: unknown, where: object, options: object, type: string) => Promise<unknown>;
    };
    if (typeof em.applyFilters !== 'function') {
      process.emitWarning(
        'koa-model-api: this MikroORM lacks EntityManager.applyFilters, which tells the adapter whether filters added with em.addFilter() apply; every model is served through MikroORM itself instead (correct, slower).',
        { code: 'KMA_FAST_PATH_OFF' },
      );
      this.record({ name: '(unknown filters)' });
      return;
    }
    for (const meta of new Set(orm.getMetadata().getAll().values())) {
      if (meta.embeddable || meta.virtual || meta.class === undefined) continue;
      let applies: boolean;
      try {
        // MikroORM hands the very `where` back when no filter is on, and a new one (or none) when
        // one is, even a filter whose condition is empty here, outside any request.
        const where = {};
        applies = (await em.applyFilters(meta.class, where, {}, 'read')) !== where;
      } catch {
        // A filter that needs arguments the global manager does not hold is still a filter.
        applies = true;
      }
      if (applies) this.record({ name: `(filters of ${meta.className})`, entity: [meta.class] });
    }
  }
}

const registries = new WeakMap<object, RuntimeFilters>();
const wrapped = new WeakSet<object>();

/**
 * The runtime filters of an ORM (created on first use), with `addFilter` wrapped on the class of
 * its entity manager so that later ones are recorded.
 */
export function runtimeFiltersOf(orm: AnyMikroORM): RuntimeFilters {
  const config = orm.em.config as unknown as object;
  let registry = registries.get(config);
  if (registry === undefined) {
    hookAddFilter(orm.em);
    registry = new RuntimeFilters(orm);
    registries.set(config, registry);
  }
  return registry;
}

/** Wraps `addFilter` where the entity manager's class chain defines it, once per class. */
function hookAddFilter(em: object): void {
  let owner: object | null = Object.getPrototypeOf(em);
  while (owner !== null && !Object.hasOwn(owner, 'addFilter')) owner = Object.getPrototypeOf(owner);
  if (owner === null || wrapped.has(owner)) return;
  const original = (owner as { addFilter?: AddFilter }).addFilter;
  if (typeof original !== 'function') return;
  wrapped.add(owner);
  Object.defineProperty(owner, 'addFilter', {
    configurable: true,
    writable: true,
    value: function addFilter(this: { config: object }, options: FilterShape): unknown {
      const result = original.call(this, options);
      registries.get(this.config)?.record(options);
      return result;
    },
  });
}
