/**
 * Properties behind a get/set pair (MikroORM's `accessor` option) are served as MikroORM serves
 * them: under the accessor's name (`toObject()`'s key, MikroORM's `serializedName`), written as
 * `em.create` and `em.assign` take them (a backing field is set directly, `accessor: true` goes
 * through the setter), and filtered and sorted as `em.find` finds them by the property. Every
 * target, both modes.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { ModelClass } from '../../../../lib/types.js';
import { Member, Subscriber, Venue } from '../../../fixtures/mikro-orm/accessors.js';
import {
  assertSameJson,
  type Catalogue,
  describeFidelity,
  type FidelityEnv,
  idsOf,
  type Json,
  storedColumns,
} from './harness.js';

const CATALOGUE: Catalogue = {
  entities: [Subscriber, Member, Venue],
  routes: new Map<ModelClass, string>([
    [Subscriber, '/subscribers'],
    [Member, '/members'],
    [Venue, '/venues'],
  ]),
};

/** POST that must answer 201; the new record. */
async function created(env: FidelityEnv, path: string, body: Json): Promise<Json> {
  const answer = await env.send('POST', path, body);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body as Json;
}

/** Subscribers to filter and sort: a referrer, and emails and nicknames in no particular order. */
async function seed(env: FidelityEnv): Promise<void> {
  const root = await created(env, '/subscribers', { name: 'root', email: 'm@example.org', nickname: 'zed' });
  for (const [name, email, nickname] of [
    ['b', 'b@example.org', 'amy'],
    ['c', null, 'kit'],
    ['d', 'x@example.org', null],
  ] as const) {
    await created(env, '/subscribers', { name, email, nickname, referrer: root.id });
  }
  for (const [name, email] of [
    ['p', 'Q@Example.org'],
    ['q', ' a@example.org'],
    ['r', null],
  ] as const) {
    await created(env, '/members', { name, email });
  }
  for (const [a, b, c] of [
    ['Oslo', 'Bergen', 'Tromsø'],
    ['Bergen', null, 'Oslo'],
    [null, 'Oslo', null],
  ] as const) {
    await created(env, '/venues', {
      address: { city: a, zip: '0001' },
      home: { city: b, zip: '0002' },
      spot: { city: c, zip: '0003' },
    });
  }
}

/** The JSON a JSON column holds (PostgreSQL's driver parses it, the others hand over text). */
function parsed(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

await describeFidelity(
  'MikroORM fidelity: properties behind accessors',
  (env) => {
    it('stores what POST sends under the accessor names and answers as toObject() does', async () => {
      const referrer = await created(env(), '/subscribers', { name: 'referrer' });
      const body = await created(env(), '/subscribers', {
        name: 'ada',
        email: 'ada@example.org',
        nickname: 'countess',
        referrer: referrer.id,
      });
      const columns = ['name', 'email', 'nickname', 'referrer_id'];
      assert.deepEqual(await storedColumns(env(), 'subscribers', body.id, columns), {
        name: 'ada',
        email: 'ada@example.org',
        nickname: 'countess',
        referrer_id: referrer.id,
      });
      const expected = await env().mikroJson(Subscriber, body.id);
      assertSameJson(expected, {
        id: body.id,
        name: 'ada',
        email: 'ada@example.org',
        nickname: 'countess',
        referrer: referrer.id,
      });
      assertSameJson(body, expected);
      assertSameJson(await env().get(`/subscribers/${String(body.id)}`), expected);
      assertSameJson(await env().get(`/subscribers?filter[id]=${String(body.id)}`), [expected]);
    });

    it('refuses a required value behind an accessor that is missing or null with a 422 naming it', async () => {
      for (const body of [{ email: 'none@example.org' }, { name: null }]) {
        const answer = await env().send('POST', '/subscribers', body);
        assert.equal(answer.status, 422, JSON.stringify(answer.body));
        const errors = (answer.body as { errors?: { path: string }[] }).errors ?? [];
        assert.deepEqual(
          errors.map((error) => error.path),
          ['name'],
        );
      }
      const row = await created(env(), '/subscribers', { name: 'kept' });
      const patch = await env().send('PATCH', `/subscribers/${String(row.id)}`, { name: null });
      assert.equal(patch.status, 422, JSON.stringify(patch.body));
      assertSameJson(await env().mikroJson(Subscriber, row.id), row);
    });

    it('writes PUT and PATCH through to the backing fields, and reads them back', async () => {
      const other = await created(env(), '/subscribers', { name: 'other' });
      const body = await created(env(), '/subscribers', { name: 'grace', email: 'g@example.org' });
      const path = `/subscribers/${String(body.id)}`;
      const put = await env().send('PUT', path, {
        ...body,
        email: 'grace@example.org',
        nickname: 'amazing',
        referrer: other.id,
      });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assertSameJson(put.body, await env().mikroJson(Subscriber, body.id));
      assert.deepEqual(
        await storedColumns(env(), 'subscribers', body.id, ['email', 'nickname', 'referrer_id']),
        {
          email: 'grace@example.org',
          nickname: 'amazing',
          referrer_id: other.id,
        },
      );
      const patch = await env().send('PATCH', path, { email: null, nickname: 'grace' });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      assertSameJson(patch.body, await env().mikroJson(Subscriber, body.id));
      assert.deepEqual(
        await storedColumns(env(), 'subscribers', body.id, ['email', 'nickname', 'referrer_id']),
        {
          email: null,
          nickname: 'grace',
          referrer_id: other.id,
        },
      );
    });

    it('filters and sorts by the accessor names as em.find does by the properties', async () => {
      const cases: readonly (readonly [string, object, object?])[] = [
        ['filter[email]=b@example.org', { _email: 'b@example.org' }],
        ['filter[email][$like]=%25example.org', { _email: { $like: '%example.org' } }],
        ['filter[email][$exists]=false', { _email: null }],
        ['filter[nickname][$in]=amy,zed', { _nickname: { $in: ['amy', 'zed'] } }],
        ['filter[name][$in]=b,c', { _name: { $in: ['b', 'c'] } }],
        ['filter[referrer][$exists]=true', { _referrer: { $ne: null } }],
        ['sort=email,id', {}, { _email: 'asc', id: 'asc' }],
        ['sort=-nickname,id', {}, { _nickname: 'desc', id: 'asc' }],
        ['sort=referrer,-id', {}, { _referrer: 'asc', id: 'desc' }],
      ];
      for (const [query, where, orderBy] of cases) {
        const items = await env().get<unknown[]>(`/subscribers?${query}`);
        const expected = await env().mikroIds(Subscriber, where, orderBy ?? { id: 'asc' });
        // The seed went through POST: every filter finds some of it, or its values were lost.
        assert.ok(expected.length > 0, `${query} finds nothing`);
        if (orderBy === undefined) assert.deepEqual(idsOf(items).sort(), [...expected].sort(), query);
        else assert.deepEqual(idsOf(items), expected, query);
      }
    });

    it('takes the accessor names in fields=, include=, a filter through the relation and keyset pages', async () => {
      const rows = await env().get<Json[]>('/subscribers?fields=id,email&sort=id');
      const all = await env().get<Json[]>('/subscribers?sort=id');
      assert.deepEqual(
        rows,
        all.map((row) =>
          row.email === null ? { id: row.id, email: null } : { id: row.id, email: row.email },
        ),
      );
      const referred = await env().get<Json[]>(
        '/subscribers?filter[referrer][$exists]=true&include=referrer&sort=id',
      );
      assert.ok(referred.length > 0);
      for (const row of referred) {
        const referrer = row.referrer as Json;
        assertSameJson(referrer, await env().mikroJson(Subscriber, referrer.id));
      }
      const byName = await env().get<unknown[]>('/subscribers?filter[referrer.email]=m@example.org&sort=id');
      const expected = await env().mikroIds(
        Subscriber,
        { _referrer: { _email: 'm@example.org' } },
        { id: 'asc' },
      );
      assert.ok(expected.length > 0);
      assert.deepEqual(idsOf(byName), expected);
      const walked: unknown[] = [];
      let path: string | undefined = '/subscribers?sort=-name,id&limit=2&after=';
      for (let pages = 0; path !== undefined && pages < 50; pages++) {
        const answer = await env().send('GET', path);
        assert.equal(answer.status, 200, `GET ${path}: ${JSON.stringify(answer.body)}`);
        walked.push(...idsOf(answer.body));
        const next = /<([^>]+)>; rel="next"/.exec(answer.headers.get('link') ?? '')?.[1];
        const url = next === undefined ? undefined : new URL(next, 'http://localhost');
        path = url === undefined ? undefined : `${url.pathname}${url.search}`;
      }
      assert.deepEqual(walked, await env().mikroIds(Subscriber, {}, { _name: 'desc', id: 'asc' }));
    });

    it('writes and includes an owning many-to-many behind an accessor by its accessor name', async () => {
      const members = await env().get<Json[]>('/members?sort=id&limit=3');
      const keys = members.map((member) => member.id);
      assert.equal(keys.length, 3);
      const body = await created(env(), '/subscribers', { name: 'host', circle: keys.slice(0, 2) });
      const path = `/subscribers/${String(body.id)}`;
      /** The keys of the circle as the API includes it and as MikroORM populates it. */
      const circles = async (): Promise<[unknown[], unknown[]]> => {
        const included = await env().get(`${path}?include=circle`);
        const entity = await env()
          .em()
          .findOneOrFail(Subscriber, body.id as number, { populate: ['_circle'] as never });
        return [idsOf(included.circle), entity.circle.getItems().map((member) => member.id)];
      };
      const [first, stored] = await circles();
      assert.deepEqual([...first].sort(), [...keys.slice(0, 2)].sort());
      assert.deepEqual([...stored].sort(), [...first].sort());
      const patch = await env().send('PATCH', path, { circle: keys.slice(1) });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      const [second, restored] = await circles();
      assert.deepEqual([...second].sort(), [...keys.slice(1)].sort());
      assert.deepEqual([...restored].sort(), [...second].sort());
    });

    it('refuses the backing fields’ names in filter, sort and fields, as toObject() has no such key', async () => {
      for (const query of [
        'filter[_email]=x',
        'sort=_nickname',
        'fields=id,_email',
        'filter[_referrer]=1',
        'include=_circle',
      ]) {
        const answer = await env().send('GET', `/subscribers?${query}`);
        assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      }
    });

    it('goes through the setter and the getter of an `accessor: true` property, as MikroORM does', async () => {
      const body = await created(env(), '/members', { name: 'ada', email: '  Ada@Example.ORG ' });
      assert.equal(body.email, 'ada@example.org');
      assertSameJson(body, await env().mikroJson(Member, body.id));
      assert.deepEqual(await storedColumns(env(), 'members', body.id, ['email']), {
        email: 'ada@example.org',
      });
      const path = `/members/${String(body.id)}`;
      const patch = await env().send('PATCH', path, { email: 'LOVELACE@example.org' });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      assertSameJson(patch.body, await env().mikroJson(Member, body.id));
      assert.deepEqual(await storedColumns(env(), 'members', body.id, ['email']), {
        email: 'lovelace@example.org',
      });
      const put = await env().send('PUT', path, { name: 'ada', email: null });
      assert.equal(put.status, 200, JSON.stringify(put.body));
      assertSameJson(put.body, await env().mikroJson(Member, body.id));
      assert.deepEqual(await storedColumns(env(), 'members', body.id, ['email']), { email: null });
      for (const [query, where, orderBy] of [
        ['filter[email]=q@example.org', { email: 'q@example.org' }, { id: 'asc' }],
        ['filter[email][$like]=a%25', { email: { $like: 'a%' } }, { id: 'asc' }],
        ['sort=-email,id', {}, { email: 'desc', id: 'asc' }],
      ] as const) {
        const items = await env().get<unknown[]>(`/members?${query}`);
        assert.deepEqual(idsOf(items), await env().mikroIds(Member, where, orderBy), query);
      }
    });

    it('writes and serves embedded values behind accessors, and accessors inside embeddables', async () => {
      const body = await created(env(), '/venues', {
        address: { city: 'Lyon', zip: '69001' },
        home: { city: 'Nice', zip: '06000' },
        spot: { city: 'Metz', zip: '57000' },
      });
      const columns = ['address_city', 'address_zip', 'home_city', 'home_zip', 'spot'];
      const stored = await storedColumns(env(), 'venues', body.id, columns);
      assert.deepEqual(
        { ...stored, spot: parsed(stored.spot) },
        {
          address_city: 'Lyon',
          address_zip: '69001',
          home_city: 'Nice',
          home_zip: '06000',
          spot: { city: 'Metz', zip: '57000' },
        },
      );
      const expected = await env().mikroJson(Venue, body.id);
      assertSameJson(expected, {
        id: body.id,
        address: { city: 'Lyon', zip: '69001' },
        home: { city: 'Nice', zip: '06000' },
        spot: { city: 'Metz', zip: '57000' },
      });
      assertSameJson(body, expected);
      assertSameJson(await env().get(`/venues/${String(body.id)}`), expected);
      const path = `/venues/${String(body.id)}`;
      const patch = await env().send('PATCH', path, {
        address: { city: 'Paris' },
        home: { city: 'Dijon', zip: null },
        spot: { city: 'Caen', zip: '14000' },
      });
      assert.equal(patch.status, 200, JSON.stringify(patch.body));
      assertSameJson(patch.body, await env().mikroJson(Venue, body.id));
      const changed = await storedColumns(env(), 'venues', body.id, columns);
      assert.deepEqual(
        { ...changed, spot: parsed(changed.spot) },
        {
          address_city: 'Paris',
          address_zip: '69001',
          home_city: 'Dijon',
          home_zip: null,
          spot: { city: 'Caen', zip: '14000' },
        },
      );
      for (const [query, where, orderBy] of [
        ['filter[address.city]=Oslo', { address: { _city: 'Oslo' } }, { id: 'asc' }],
        [
          'filter[home.city][$in]=Oslo,Bergen',
          { _home: { _city: { $in: ['Oslo', 'Bergen'] } } },
          { id: 'asc' },
        ],
        ['filter[spot.city]=Oslo', { _spot: { _city: 'Oslo' } }, { id: 'asc' }],
        ['filter[home.zip]=0002', { _home: { zip: '0002' } }, { id: 'asc' }],
      ] as const) {
        const items = await env().get<unknown[]>(`/venues?${query}`);
        const ids = await env().mikroIds(Venue, where, orderBy);
        assert.ok(ids.length > 0, `${query} finds nothing`);
        assert.deepEqual(idsOf(items), ids, query);
      }
    });

    it('names them by their accessors in the OpenAPI record and write schemas', async () => {
      const { schemas } = (await env().get('/openapi.json')).components as {
        schemas: Record<string, { properties?: Record<string, unknown> }>;
      };
      for (const [name, wanted] of [
        // The many-to-many is listed for include=, under its accessor's name too.
        ['Subscriber', ['circle', 'email', 'id', 'name', 'nickname', 'referrer']],
        ['SubscriberCreate', ['circle', 'email', 'name', 'nickname', 'referrer']],
        ['SubscriberUpdate', ['circle', 'email', 'name', 'nickname', 'referrer']],
        ['Member', ['email', 'id', 'name']],
        ['MemberCreate', ['email', 'name']],
        ['MemberUpdate', ['email', 'name']],
        ['Venue', ['address', 'home', 'id', 'spot']],
        ['VenueCreate', ['address', 'home', 'spot']],
      ] as const) {
        assert.deepEqual(Object.keys(schemas[name]?.properties ?? {}).sort(), wanted, name);
      }
      assert.ok(!JSON.stringify(schemas.Venue).includes('_city'), JSON.stringify(schemas.Venue));
      // A required value behind an accessor is required under the accessor's name.
      assert.deepEqual((schemas.SubscriberCreate as { required?: string[] }).required, ['name']);
    });
  },
  seed,
  { catalogue: CATALOGUE },
);
