/**
 * Models the adapter cannot serve as MikroORM serializes them are refused when they are
 * registered, with a ConfigurationError naming the model and the property, in both modes: a
 * custom type whose toJSON changes the value with no fromJSON, and a property with a `serializer`;
 * and, from the ORM's configuration, relations under `serialization.forceObject` and a table name
 * no URL carries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import { ConfigurationError } from '../../../../lib/errors.js';
import { Application, CrudRouter } from '../../../../lib/index.js';
import {
  Carrier,
  DayOnDate,
  fidelityEntities,
  LossyJson,
  Memo,
  refusedModels,
  Serialized,
  Shipment,
} from '../../../fixtures/mikro-orm/fidelity.js';
import { MODES } from './harness.js';

for (const mode of MODES) {
  describe(`MikroORM fidelity: models refused at registration (${mode} mode)`, () => {
    let adapter: MikroOrmAdapter;
    before(async () => {
      adapter = await MikroOrmAdapter.connect({
        url: 'sqlite::memory:',
        entities: [LossyJson, Serialized, DayOnDate, Memo],
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

/** A model whose table no URL carries as it is. */
class Spaced {
  id!: number;
}

describe('MikroORM fidelity: refusals that come from the ORM configuration', () => {
  it('serialization.forceObject: a model with a visible relation is refused, naming it; one without is served', async () => {
    const adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: [...fidelityEntities],
      serialization: { forceObject: true },
    });
    try {
      const app = new Application({ title: 'forceObject', adapter });
      assert.throws(
        () => new CrudRouter({ model: Shipment }).register_routes(app),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          /\bShipment\.carrier\b/.test(error.message) &&
          /forceObject/.test(error.message),
      );
      new CrudRouter({ model: Carrier }).register_routes(app);
    } finally {
      await adapter.close();
    }
  });

  it('a table name that is no URL path segment is refused at registration, naming the model and the table', async () => {
    const schema = new EntitySchema({
      class: Spaced,
      tableName: 'Mixed Case',
      properties: { id: { type: 'integer', primary: true } },
    });
    const adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: [schema],
      schema: 'create',
    });
    try {
      const app = new Application({ title: 'spaced', adapter });
      assert.throws(
        () => new CrudRouter({ model: Spaced }).register_routes(app),
        (error: unknown) =>
          error instanceof ConfigurationError &&
          /\bSpaced\b/.test(error.message) &&
          /"Mixed Case"/.test(error.message),
      );
    } finally {
      await adapter.close();
    }
  });
});
