/**
 * An entity's own order (MikroORM's `orderBy`): a list without `sort` comes in `em.find`'s order,
 * a list with `sort` breaks its ties by that order as `em.find` does, and the primary key breaks
 * the ties MikroORM leaves to the database; keyset paging follows it, or is refused when it
 * cannot (a key through a relation, a nullable one) while offset paging still works. `include=`
 * gives a collection in the order MikroORM's populate gives it (the relation's `orderBy`, the
 * target's, `fixedOrder`), and leaves out a collection whose order it cannot give. Every target,
 * both modes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EntitySchema } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../../adapters/mikro-orm/index.js';
import { ConfigurationError } from '../../../../lib/errors.js';
import { FrameworkModel } from '../../../../lib/model/framework-model.js';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Athlete,
  defaultOrderEntities,
  Lineup,
  Medal,
  Sponsor,
  Squad,
  Venue,
} from '../../../fixtures/mikro-orm/default-order.js';
import { type Catalogue, describeFidelity, type FidelityEnv, idsOf, type Json } from './harness.js';

const CATALOGUE: Catalogue = {
  entities: defaultOrderEntities,
  routes: new Map<ModelClass, string>([
    [Squad, '/squads'],
    [Athlete, '/athletes'],
    [Lineup, '/lineups'],
    [Medal, '/medals'],
    [Sponsor, '/sponsors'],
    [Venue, '/venues'],
  ]),
};

/** The keys `em.find` returns with this orderBy (MikroORM appends the entity's own). */
async function mikroIds(env: FidelityEnv, model: ModelClass, orderBy?: object): Promise<unknown[]> {
  return env.mikroIds(model, {}, orderBy);
}

/** Creates a record through the API; its key. */
async function post(env: FidelityEnv, path: string, body: Json): Promise<number> {
  const answer = await env.send('POST', path, body);
  assert.equal(answer.status, 201, `POST ${path}: ${JSON.stringify(answer.body)}`);
  return (answer.body as Json).id as number;
}

/** Follows `Link: rel="next"` from `path`; every id in page order. */
async function walk(env: FidelityEnv, path: string): Promise<unknown[]> {
  const ids: unknown[] = [];
  let next: string | undefined = path;
  for (let pages = 0; next !== undefined && pages < 50; pages++) {
    const answer = await env.send('GET', next);
    assert.equal(answer.status, 200, `GET ${next}: ${JSON.stringify(answer.body)}`);
    ids.push(...idsOf(answer.body));
    const link = /<([^>]+)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
    next =
      link === undefined
        ? undefined
        : new URL(link, 'http://localhost').pathname + new URL(link, 'http://localhost').search;
  }
  return ids;
}

/** The squad each mode seeds, with its athletes, lineups, medals and sponsors. */
const squads = new Map<string, number>();

async function seed(env: FidelityEnv): Promise<void> {
  const tag = env.mode;
  const squad = await post(env, '/squads', { name: `b-${tag}` });
  const other = await post(env, '/squads', { name: `a-${tag}` });
  // A namesake: lineups of two squads tie on the squad's name.
  const namesake = await post(env, '/squads', { name: `b-${tag}` });
  squads.set(`${env.target}/${tag}`, squad);
  // Two athletes share a name (the key breaks that tie) and ranks repeat (the name breaks those).
  for (const [name, rank] of [
    ['zoe', 1],
    ['amy', 2],
    ['max', 1],
    ['bob', 2],
    ['amy', 3],
  ] as const)
    await post(env, '/athletes', { name: `${name}-${tag}`, rank, squad });
  for (const [nickname, owner] of [
    ['kite', squad],
    [null, squad],
    ['ace', squad],
    ['jet', other],
    [null, other],
    ['kite', namesake],
  ] as const)
    await post(env, '/lineups', { nickname, squad: owner });
  for (const [city, zip] of [
    ['oslo', '2'],
    ['bergen', null],
    ['oslo', '1'],
    ['alta', '9'],
  ] as const)
    await post(env, '/venues', { site: { city, zip } });
  const medals = [];
  for (const title of ['gold', 'silver', 'bronze']) medals.push(await post(env, '/medals', { title }));
  const sponsors = [];
  for (const title of ['acme', 'zenith', 'midway']) sponsors.push(await post(env, '/sponsors', { title }));
  const linked = await env.send('PATCH', `/squads/${squad}`, {
    medals: [medals[2], medals[0], medals[1]],
    sponsors,
  });
  assert.equal(linked.status, 200, JSON.stringify(linked.body));
}

await describeFidelity(
  'MikroORM fidelity: default order (entity and relation orderBy)',
  (env) => {
    it("lists without sort in the entity's orderBy, as em.find, ties by key", async () => {
      const listed = idsOf(await env().get('/athletes?limit=1000'));
      assert.deepEqual(listed, await mikroIds(env(), Athlete, [{ name: 'asc' }, { id: 'asc' }]));
      // em.find with no orderBy of its own gives the same names in the same order.
      const names = (await env().em().find(Athlete, {})).map((athlete) => athlete.name);
      const answered = (await env().get<Json[]>('/athletes?limit=1000')).map((athlete) => athlete.name);
      assert.deepEqual(answered, names);
    });

    it("breaks the ties of sort keys by the entity's orderBy, then by key, as em.find", async () => {
      for (const [sort, orderBy] of [
        ['rank', [{ rank: 'asc' }, { name: 'asc' }, { id: 'asc' }]],
        ['-rank', [{ rank: 'desc' }, { name: 'asc' }, { id: 'asc' }]],
        ['-name', [{ name: 'desc' }, { id: 'asc' }]],
      ] as const) {
        const listed = idsOf(await env().get(`/athletes?sort=${sort}&limit=1000`));
        assert.deepEqual(listed, await mikroIds(env(), Athlete, orderBy), sort);
        const [first] = orderBy;
        // em.find with the sort key alone orders by the same values (its ties are the database's).
        const values = (athlete: { name: unknown; rank: unknown }) =>
          sort.endsWith('rank') ? [athlete.rank, athlete.name] : [athlete.name];
        const found = (
          await env()
            .em()
            .find(Athlete, {}, { orderBy: first as never })
        ).map(values);
        const answered = (await env().get<Json[]>(`/athletes?sort=${sort}&limit=1000`)).map((athlete) =>
          values(athlete as { name: unknown; rank: unknown }),
        );
        assert.deepEqual(answered, found, `${sort}: em.find without the key`);
      }
    });

    it('pages by keyset in that order, with and without sort', async () => {
      assert.deepEqual(
        await walk(env(), '/athletes?limit=2&after='),
        idsOf(await env().get('/athletes?limit=1000')),
      );
      assert.deepEqual(
        await walk(env(), '/athletes?sort=-rank&limit=2&after='),
        idsOf(await env().get('/athletes?sort=-rank&limit=1000')),
      );
    });

    it('orders through a relation and places NULLs as the orderBy says; keyset refused, offset pages', async () => {
      const expected = await mikroIds(env(), Lineup, [
        { squad: { name: 'desc' } },
        { nickname: 'asc nulls last' },
        { id: 'asc' },
      ]);
      const listed = idsOf(await env().get('/lineups?limit=1000'));
      assert.deepEqual(listed, expected);
      const nicknames = (
        await env()
          .em()
          .find(Lineup, {}, { populate: ['squad'] })
      ).map((lineup) => [lineup.squad.name, lineup.nickname]);
      const answered = await env().get<Json[]>('/lineups?limit=1000&include=squad');
      assert.deepEqual(
        answered.map((lineup) => [(lineup.squad as Json).name, lineup.nickname]),
        nicknames,
      );
      assert.deepEqual(idsOf(await env().get('/lineups?limit=2&offset=2')), expected.slice(2, 4));
      const keyset = await env().send('GET', '/lineups?after=');
      assert.equal(keyset.status, 400, JSON.stringify(keyset.body));
      assert.match(String((keyset.body as Json).detail), /default order of Lineup .* sorts by "squad\.name"/);
      // A later key under a property named before is left out, as em.find leaves it out for this entity.
      assert.deepEqual(
        idsOf(await env().get('/lineups?sort=-squad.name,nickname,-squad&limit=1000')),
        await mikroIds(env(), Lineup, [{ squad: { name: 'desc' } }, { nickname: 'asc' }, { id: 'asc' }]),
      );
      // A sort key naming the relation leaves the default's entry for it out, as em.find does.
      const bySquad = idsOf(await env().get('/lineups?sort=-squad&limit=1000'));
      assert.deepEqual(
        bySquad,
        await mikroIds(env(), Lineup, [{ squad: 'desc' }, { nickname: 'asc nulls last' }, { id: 'asc' }]),
      );
    });

    it('orders by the fields of an embedded value as em.find; keyset refused', async () => {
      const expected = await mikroIds(env(), Venue, [{ site: { city: 'desc', zip: 'asc' } }, { id: 'asc' }]);
      assert.deepEqual(idsOf(await env().get('/venues?limit=1000')), expected);
      const cities = (await env().em().find(Venue, {})).map((venue) => venue.site.city);
      const answered = await env().get<Json[]>('/venues?limit=1000');
      assert.deepEqual(
        answered.map((venue) => (venue.site as Json).city),
        cities,
      );
      const keyset = await env().send('GET', '/venues?after=');
      assert.equal(keyset.status, 400, JSON.stringify(keyset.body));
      assert.match(String((keyset.body as Json).detail), /sorts by "site\.city"/);
    });

    it("includes a collection in populate's order: its orderBy, the target's, fixedOrder", async () => {
      const id = squads.get(`${env().target}/${env().mode}`);
      const squad = await env()
        .em()
        .findOneOrFail(Squad, id as number, {
          populate: ['athletes', 'medals', 'sponsors'],
        });
      const answer = await env().get(`/squads/${id}?include=athletes,medals,sponsors`);
      for (const name of ['athletes', 'medals', 'sponsors'] as const) {
        const populated = squad[name].getItems().map((item) => item.id);
        assert.deepEqual(idsOf(answer[name]), populated, name);
      }
      const listed = await env().get<Json[]>(`/squads?filter[id]=${id}&include=medals`);
      assert.deepEqual(
        idsOf(listed[0]?.medals),
        squad.medals.getItems().map((medal) => medal.id),
      );
    });

    it("leaves out a collection whose target's order goes through a relation", async () => {
      const answer = await env().send('GET', '/squads?include=lineups');
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
    });
  },
  seed,
  { catalogue: CATALOGUE },
);

describe('MikroORM fidelity: an entity orderBy lists cannot follow', () => {
  it('is refused at registration, naming the entity and the key', async () => {
    class Roster extends FrameworkModel {}
    class Member extends FrameworkModel {}
    const cases: [string, object][] = [
      ['members', { members: 'asc' }],
      ['captain.captain', { captain: { captain: { title: 'asc' } } }],
      ['title', { title: 'upward' }],
    ];
    for (const [path, orderBy] of cases) {
      const adapter = await MikroOrmAdapter.connect({
        url: 'sqlite::memory:',
        entities: [
          new EntitySchema({
            class: Roster,
            orderBy: orderBy as never,
            properties: {
              id: { type: 'integer', primary: true },
              title: { type: 'string' },
              captain: { kind: 'm:1', entity: () => Roster, nullable: true },
              members: { kind: '1:m', entity: () => Member, mappedBy: 'roster' },
            },
          }),
          new EntitySchema({
            class: Member,
            properties: {
              id: { type: 'integer', primary: true },
              roster: { kind: 'm:1', entity: () => Roster },
            },
          }),
        ],
      });
      try {
        assert.throws(
          () => adapter.describe(Roster),
          (error: unknown) =>
            error instanceof ConfigurationError &&
            error.message.startsWith(`Roster: its orderBy sorts by "${path}"`),
          path,
        );
      } finally {
        await adapter.close();
      }
    }
  });
});
