/**
 * Models the adapter cannot serve as MikroORM serializes them are refused when they are
 * registered, with a ConfigurationError naming the model and the property, in both modes: a
 * custom type whose toJSON changes the value with no fromJSON, a property with a `serializer`, a
 * visible `eager` relation (toObject() embeds what the API serves as a key or leaves out); and,
 * from the ORM's configuration, relations under `serialization.forceObject` and a table name
 * no URL carries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Collection, EntitySchema } from '@mikro-orm/core';
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

/** Tables `pens`, `hounds`, `hutches` and `pups`: relations MikroORM loads with every row (`eager`). */
class Pen {
  id!: number;
  name!: string;
}
class Hound {
  id!: number;
  pen!: Pen;
}
class Hutch {
  id!: number;
  pups!: Collection<Pup>;
}
class Pup {
  id!: number;
  hutch!: Hutch;
}

/** A fresh set of the eager entities. */
function eagerEntities(): EntitySchema[] {
  return [
    new EntitySchema({
      class: Pen,
      properties: { id: { type: 'integer', primary: true }, name: { type: 'string' } },
    }),
    // toObject() embeds the pen: `{ id, name }` where the API serves its key.
    new EntitySchema({
      class: Hound,
      properties: {
        id: { type: 'integer', primary: true },
        pen: { kind: 'm:1', entity: () => Pen, eager: true },
      },
    }),
    // toObject() shows the pups as an array, where a record leaves its collections out.
    new EntitySchema({
      class: Hutch,
      properties: {
        id: { type: 'integer', primary: true },
        pups: { kind: '1:m', entity: () => Pup, mappedBy: 'hutch', eager: true },
      },
    }),
    // Hidden: toObject() never shows it, so neither does the API.
    new EntitySchema({
      class: Pup,
      properties: {
        id: { type: 'integer', primary: true },
        hutch: { kind: 'm:1', entity: () => Hutch, eager: true, hidden: true, nullable: true },
      },
    }),
  ] as EntitySchema[];
}

for (const mode of MODES) {
  describe(`MikroORM fidelity: eager relations (${mode} mode)`, () => {
    it('a visible eager to-one or collection is refused, naming the property and include=; a hidden one is served', async () => {
      const adapter = await MikroOrmAdapter.connect({
        url: 'sqlite::memory:',
        entities: eagerEntities(),
        schema: 'create',
        mode,
      });
      try {
        const app = new Application({ title: 'eager', adapter });
        for (const [model, property] of [
          [Hound, 'pen'],
          [Hutch, 'pups'],
        ] as const) {
          assert.throws(
            () => new CrudRouter({ model }).register_routes(app),
            (error: unknown) =>
              error instanceof ConfigurationError &&
              error.message.includes(`${model.name}.${property}: with \`eager: true\``) &&
              error.message.includes(`include=${property}`),
          );
        }
        new CrudRouter({ model: Pen }).register_routes(app);
        new CrudRouter({ model: Pup }).register_routes(app);
      } finally {
        await adapter.close();
      }
    });
  });
}
