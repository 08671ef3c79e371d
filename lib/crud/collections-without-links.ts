/**
 * A model whose description lists collections, served over an adapter without `links()`: the core
 * cannot embed them, so `include=` of each is a 400 ("no includable relation") that says nothing
 * of the cause. Registration warns (`KMA_COLLECTIONS_WITHOUT_LINKS`) instead of refusing, so that
 * an adapter without relations stays usable: it skips the relation cases of the conformance suite.
 */
import type { ModelClass, ModelDescription, OrmAdapter } from '../types.js';

/** The models already warned about, per adapter: several routers (or apps) may serve one model. */
const warned = new WeakMap<OrmAdapter, Set<ModelClass>>();

/** Warns once per adapter and model when the model has collections and the adapter no `links()`. */
export function warnCollectionsWithoutLinks(adapter: OrmAdapter, model: ModelDescription): void {
  const collections = model.collections ?? [];
  if (collections.length === 0 || typeof adapter.links === 'function') return;
  const seen = warned.get(adapter) ?? new Set<ModelClass>();
  if (seen.has(model.model)) return;
  seen.add(model.model);
  warned.set(adapter, seen);
  const names = collections.map((collection) => collection.name).join(', ');
  process.emitWarning(
    `koa-model-api: ${model.name} has collections (${names}), but the adapter ${adapter.name} has no links(): include= cannot embed them and answers 400 for each. Implement links() (docs/adapters.md, "Relations"), or leave the collections out of describe().`,
    { code: 'KMA_COLLECTIONS_WITHOUT_LINKS' },
  );
}
