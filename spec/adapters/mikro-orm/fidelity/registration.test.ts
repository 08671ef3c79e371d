/**
 * Models the adapter cannot serve as MikroORM serializes them are refused when they are
 * registered, with a ConfigurationError naming the model and the property, in both modes: a
 * custom type whose toJSON changes the value with no fromJSON, and a property with a `serializer`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import { ConfigurationError } from '../../../../lib/errors.js';
import { Application, CrudRouter } from '../../../../lib/index.js';
import { LossyJson, Memo, refusedModels, Serialized } from '../../../fixtures/mikro-orm/fidelity.js';
import { MODES } from './harness.js';

for (const mode of MODES) {
  describe(`MikroORM fidelity: models refused at registration (${mode} mode)`, () => {
    let adapter: MikroOrmAdapter;
    before(async () => {
      adapter = await MikroOrmAdapter.connect({
        url: 'sqlite::memory:',
        entities: [LossyJson, Serialized, Memo],
        schema: 'create',
        mode,
      });
    });
    after(() => adapter.close());

    for (const { model, property } of refusedModels) {
      const refusal = (error: unknown) => {
        assert.ok(error instanceof ConfigurationError, `not a ConfigurationError: ${String(error)}`);
        assert.match(error.message, new RegExp(`\\b${model.name}\\b`));
        assert.match(error.message, new RegExp(`\\b${property}\\b`));
        return true;
      };

      it(`adapter.describe(${model.name}) throws a ConfigurationError naming ${model.name}.${property}`, () => {
        assert.throws(() => adapter.describe(model), refusal);
      });

      it(`registering a CrudRouter for ${model.name} throws before serving anything`, () => {
        const app = new Application({ title: 'refusals', adapter });
        assert.throws(() => new CrudRouter({ model }).register_routes(app), refusal);
      });
    }

    it('the same ORM still serves its other models', () => {
      const app = new Application({ title: 'refusals', adapter });
      new CrudRouter({ model: Memo }).register_routes(app);
      const reason = adapter.plainReason(Memo);
      if (mode === 'fast') assert.equal(reason, undefined);
      else assert.ok(reason !== undefined && reason.length > 0);
    });
  });
}
