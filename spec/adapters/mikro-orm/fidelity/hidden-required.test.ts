/**
 * Hidden required fields: a hidden field (MikroORM's `hidden`) that is not nullable and has no
 * default can only be filled by the server. A create that leaves it empty is a 422
 * `server_value_missing` that names no hidden field (the server log does), the same in both modes;
 * a `beforeCreate` hook that fills it makes creates work; registering a router warns
 * (`KMA_HIDDEN_REQUIRED`) when nothing could fill it (no ORM hook or subscriber, no write hooks).
 * Every target, both modes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EntitySchema, type EventArgs } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import { Application, CrudRouter } from '../../../../lib/index.js';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';
import type { ModelClass } from '../../../../lib/types.js';
import { assertSameJson, type Catalogue, describeFidelity, type Json } from './harness.js';

/** Table `guilds`. */
class Guild extends FrameworkModel {
  declare id: number;
  declare name: string;
}

/** Table `keepers`: a hidden guild and pin nothing fills. */
class Keeper extends FrameworkModel {
  declare id: number;
  declare name: string;
  declare guild: Guild;
  declare pin: string;
}

/** Table `wardens`: a hidden pin its `beforeCreate` hook fills. */
class Warden extends FrameworkModel {
  declare id: number;
  declare name: string;
  declare pin: string;
}

/** The entities, built afresh for each ORM. */
function entities(): EntitySchema[] {
  return [
    new EntitySchema({
      class: Guild,
      properties: { id: { type: 'integer', primary: true }, name: { type: 'string' } },
    }),
    new EntitySchema({
      class: Keeper,
      properties: {
        id: { type: 'integer', primary: true },
        name: { type: 'string' },
        guild: { kind: 'm:1', entity: () => Guild, hidden: true },
        pin: { type: 'string', hidden: true },
      },
    }),
    new EntitySchema({
      class: Warden,
      hooks: {
        beforeCreate: [
          (args: EventArgs<Warden>) => {
            args.entity.pin = '0000';
          },
        ],
      },
      properties: {
        id: { type: 'integer', primary: true },
        name: { type: 'string' },
        pin: { type: 'string', hidden: true },
      },
    }),
  ] as EntitySchema[];
}

const logged: unknown[] = [];

const CATALOGUE: Catalogue = {
  entities: entities(),
  routes: new Map<ModelClass, string>([
    [Guild, '/guilds'],
    [Keeper, '/keepers'],
    [Warden, '/wardens'],
  ]),
  logger: { info() {}, warn() {}, error: (_message, error) => logged.push(error) },
};

await describeFidelity(
  'MikroORM fidelity: hidden required fields',
  (env) => {
    it('a create without them is a 422 server_value_missing naming no hidden field; the log names it', async () => {
      const e = env();
      const guild = await e.send('POST', '/guilds', { name: 'G' });
      assert.equal(guild.status, 201, JSON.stringify(guild.body));
      logged.length = 0;
      const answer = await e.send('POST', '/keepers', {
        name: 'k',
        guild: (guild.body as Json).id,
        pin: '1',
      });
      assert.equal(answer.status, 422, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, {
        type: 'https://koa-model-api.dev/errors#server_value_missing',
        title: 'Server value missing',
        status: 422,
        detail: 'The record cannot be stored: a value the server must provide is missing.',
        code: 'server_value_missing',
      });
      // MikroORM's unit of work stops at the first (metadata order): the fast path names it too.
      assert.equal(logged.length, 1);
      assert.match(String((logged[0] as Error).message), /^Keeper: a write has no value for guild, /);
      assert.deepEqual(await e.mikroIds(Keeper, {}), []);
    });

    it('a create works when a beforeCreate hook fills them, and the record shows none', async () => {
      const e = env();
      const answer = await e.send('POST', '/wardens', { name: 'w', pin: 'client' });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      const id = (answer.body as Json).id;
      assertSameJson(answer.body, await e.mikroJson(Warden, id));
      assert.equal((answer.body as Json).pin, undefined);
      const stored = await e.em().findOneOrFail(Warden, id as number);
      assert.equal(stored.pin, '0000');
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);

describe('registration of a model with hidden required fields', () => {
  it('warns KMA_HIDDEN_REQUIRED for a model nothing fills them on, naming model and fields', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code === 'KMA_HIDDEN_REQUIRED') warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    const adapter = await MikroOrmAdapter.connect({ url: 'sqlite::memory:', entities: entities() });
    try {
      const app = new Application({ title: 'hidden', adapter });
      for (const model of [Guild, Keeper, Warden]) new CrudRouter({ model }).register_routes(app);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(warnings.length, 1, warnings.join('\n'));
      assert.match(warnings[0] as string, /Keeper has hidden fields .*\(guild, pin:/);
      assert.match(warnings[0] as string, /every create through the API fails with 422 server_value_missing/);
    } finally {
      process.off('warning', onWarning);
      await adapter.close();
    }
  });
});
