/**
 * An adapter without `links()` (no to-many relations served) opts out of the relation cases by
 * skipping `collectionCases`, as docs/adapters.md says; every other case must pass. The memory
 * adapter with `links` hidden stands in for such an adapter.
 */
import { collectionCases, runConformanceSuite } from '../../../conformance/index.js';
import { conformanceModels, createConformanceAdapterWithoutLinks } from './conformance-models.js';

runConformanceSuite({
  name: 'memory without links()',
  async setup() {
    const adapter = createConformanceAdapterWithoutLinks();
    return { adapter, models: conformanceModels, teardown: () => adapter.close() };
  },
  skip: Object.fromEntries(
    collectionCases.map((name) => [name, 'no links(): the adapter serves no to-many relations']),
  ),
});
