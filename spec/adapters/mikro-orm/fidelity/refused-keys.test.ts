/**
 * Models refused at registration because a value the API would serve could not round-trip: a
 * float or double primary key (the database may store another number than the one given, so the
 * record could not be addressed by its key), and a `version: true` property whose type MikroORM
 * could not tell (`number & Opt` reflects as Object: MikroORM keeps the counter in a varchar, which
 * PostgreSQL cannot increment and the others serve as "2"). Each is a ConfigurationError naming
 * `Model.property` and the remedy; the same counter with `type: 'integer'` is served and counts.
 * Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ConfigurationError } from '../../../../lib/errors.js';
import { Application, CrudRouter } from '../../../../lib/index.js';
import type { ModelClass } from '../../../../lib/types.js';
import { refusedKeyModels, TypedVersion } from '../../../fixtures/mikro-orm/exact-keys.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [TypedVersion, ...refusedKeyModels.map(({ model }) => model)],
  routes: new Map<ModelClass, string>([[TypedVersion, '/typed_versions']]),
};

/** The remedy each refusal names. */
const REMEDY: Readonly<Record<string, RegExp>> = {
  v: /Use an integer, a decimal/,
  version: /type: 'integer'.*type: 'datetime'/,
};

await describeFidelity(
  'MikroORM fidelity: float keys and untyped version properties are refused at registration',
  (env) => {
    for (const { model, property } of refusedKeyModels) {
      it(`${model.name}.${property} is refused with a ConfigurationError naming it and the remedy`, () => {
        const refusal = (error: unknown) => {
          assert.ok(error instanceof ConfigurationError, `not a ConfigurationError: ${String(error)}`);
          assert.match(error.message, new RegExp(`\\b${model.name}\\.${property}\\b`));
          assert.match(error.message, REMEDY[property] ?? /./);
          return true;
        };
        assert.throws(() => env().adapter.describe(model), refusal);
        const app = new Application({ title: 'refusals', adapter: env().adapter });
        assert.throws(() => new CrudRouter({ model }).register_routes(app), refusal);
      });
    }

    it('a version declared `type: integer` is served as a number and counts every update', async () => {
      const created = await env().send('POST', '/typed_versions', { name: 'one' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { id, version } = created.body as Json;
      assert.equal(version, 1);
      for (const method of ['PATCH', 'PUT']) {
        const changed = await env().send(method, `/typed_versions/${String(id)}`, { name: method });
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
      }
      assert.equal((await env().get(`/typed_versions/${String(id)}`)).version, 3);
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
