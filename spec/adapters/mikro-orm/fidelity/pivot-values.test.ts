/**
 * A many-to-many through a pivot entity with a value of its own (a member's role) is read-only:
 * setting it would make MikroORM delete the pivot rows and insert new ones, losing the role and
 * the rows' keys. `include=` still reads it, the pivot's own router writes it, a body naming it
 * leaves the rows as they were, and the write schemas leave it out. A pivot entity of the two join
 * columns only is written as any many-to-many. Every target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Player, pivotValueEntities, Seat, Squad } from '../../../fixtures/mikro-orm/pivot-values.js';
import { type Catalogue, describeFidelity, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: pivotValueEntities,
  routes: new Map<ModelClass, string>([
    [Player, '/players'],
    [Squad, '/squads'],
    [Seat, '/seats'],
  ]),
};

await describeFidelity(
  'MikroORM fidelity: a many-to-many through a pivot with values of its own',
  (env) => {
    it('keeps the pivot rows and their values when a body names the collection', async () => {
      const created = async (path: string, body: Json): Promise<Json> => {
        const answer = await env().send('POST', path, body);
        assert.equal(answer.status, 201, JSON.stringify(answer.body));
        return answer.body as Json;
      };
      const [ann, ben, cat] = [
        await created('/players', { name: 'ann' }),
        await created('/players', { name: 'ben' }),
        await created('/players', { name: 'cat' }),
      ];
      const squad = await created('/squads', { name: 'red', fans: [ann.id, ben.id] });
      await created('/seats', { squad: squad.id, player: ann.id });
      const captain = await created('/seats', { squad: squad.id, player: ben.id, role: 'captain' });
      const seats = async (): Promise<Json[]> => {
        const list = await env().send('GET', `/seats?filter[squad]=${squad.id}&sort=id`);
        assert.equal(list.status, 200, JSON.stringify(list.body));
        return list.body as Json[];
      };
      const before = await seats();
      for (const [method, body] of [
        ['PATCH', { members: [ben.id, ann.id, cat.id] }],
        ['PUT', { name: 'red', members: [ann.id] }],
      ] as const) {
        const answer = await env().send(method, `/squads/${squad.id}`, body);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.deepEqual(await seats(), before, `${method}: the seats, their keys and roles stay`);
      }
      assert.equal(before.find((seat) => seat.id === captain.id)?.role, 'captain');
      const included = await env().send('GET', `/squads/${squad.id}?include=members,fans`);
      assert.equal(included.status, 200, JSON.stringify(included.body));
      const names = (key: string): unknown[] =>
        ((included.body as Json)[key] as Json[]).map((player) => player.name).sort();
      assert.deepEqual(names('members'), ['ann', 'ben']);
      assert.deepEqual(names('fans'), ['ann', 'ben']);
      // The plain pivot is written as any many-to-many.
      const fans = await env().send('PATCH', `/squads/${squad.id}`, { fans: [cat.id] });
      assert.equal(fans.status, 200, JSON.stringify(fans.body));
      const after = await env().send('GET', `/squads/${squad.id}?include=fans`);
      assert.deepEqual(
        ((after.body as Json).fans as Json[]).map((player) => player.name),
        ['cat'],
      );
    });

    it('describes the collection as read-only, and leaves it out of the write schemas', async () => {
      const collections = env().adapter.describe(Squad).collections ?? [];
      assert.deepEqual(
        collections.map((collection) => [collection.name, collection.writable]),
        [
          ['members', false],
          ['fans', true],
        ],
      );
      const doc = (await env().send('GET', '/openapi.json')).body as Json;
      const schemas = (doc.components as Json).schemas as Record<string, Json>;
      for (const name of ['SquadCreate', 'SquadUpdate']) {
        const properties = Object.keys((schemas[name]?.properties ?? {}) as Json);
        assert.ok(!properties.includes('members'), `${name}: ${properties.join(',')}`);
        assert.ok(properties.includes('fans'), `${name}: ${properties.join(',')}`);
      }
    });
  },
  undefined,
  { catalogue: CATALOGUE },
);
