/**
 * Registering a router for a model with collections over an adapter without `links()` warns once
 * (`KMA_COLLECTIONS_WITHOUT_LINKS`), naming the model, its collections and `links()`: the
 * collections were dropped silently, and `include=` then read "includable: none".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Application } from '../../../lib/application.js';
import { CrudRouter } from '../../../lib/crud/crud-router.js';
import {
  Author,
  Book,
  createConformanceAdapterWithoutLinks,
  createConformanceMemoryAdapter,
  Gadget,
} from '../../adapters/memory/conformance-models.js';

/** The KMA_COLLECTIONS_WITHOUT_LINKS warnings `register` emits. */
async function warningsOf(register: () => void): Promise<string[]> {
  const warnings: string[] = [];
  const onWarning = (warning: Error & { code?: string }) => {
    if (warning.code === 'KMA_COLLECTIONS_WITHOUT_LINKS') warnings.push(warning.message);
  };
  process.on('warning', onWarning);
  try {
    register();
    // process.emitWarning delivers on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
    return warnings;
  } finally {
    process.off('warning', onWarning);
  }
}

describe('a model with collections over an adapter without links()', () => {
  it('warns once per model, naming it, its collections and links()', async () => {
    const adapter = createConformanceAdapterWithoutLinks();
    const warnings = await warningsOf(() => {
      for (const strict of [false, true]) {
        const app = new Application({ title: 'no links', adapter });
        for (const model of [Gadget, Author, Book]) new CrudRouter({ model, strict }).register_routes(app);
      }
    });
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.match(
      warnings[0] as string,
      /^koa-model-api: Author has collections \(books\), but the adapter memory has no links\(\)/,
    );
    assert.match(warnings[1] as string, /^koa-model-api: Book has collections \(tags\)/);
  });

  it('does not warn when the adapter has links()', async () => {
    const adapter = createConformanceMemoryAdapter();
    const warnings = await warningsOf(() => {
      const app = new Application({ title: 'links', adapter });
      for (const model of [Author, Book]) new CrudRouter({ model }).register_routes(app);
    });
    assert.deepEqual(warnings, []);
  });
});
