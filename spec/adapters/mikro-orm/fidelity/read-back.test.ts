/**
 * The plain path answers a write with MikroORM's entity after flush, as a MikroORM application
 * does, wherever that entity holds what a fresh read gives, and reads the row back everywhere else
 * (adapters/mikro-orm/read-back.ts). For `Tally` (no reason) the answers equal a fresh read through
 * another EntityManager; for each reason, MikroORM itself shows the difference (its entity after
 * flush against a fresh read) and the API's answers still equal the fresh read. Every target, both
 * modes (in fast mode the fast path serves the models it is proved for: they must answer alike).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { type EntityManager, type EventSubscriber, type FlushEventArgs, wrap } from '@mikro-orm/core';
import { buildPlan, type Dialect } from '../../../../adapters/mikro-orm/plan.js';
import { listenerReason } from '../../../../adapters/mikro-orm/read-back.js';
import { defaultTableName } from '../../../../lib/model/table-name.js';
import { TIME_PATTERN } from '../../../../lib/schema/model-schemas.js';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Carrier,
  Clocked,
  Coded,
  Defaulted,
  Echoed,
  Formulated,
  Gauged,
  Hooked,
  Lent,
  Listed,
  Located,
  Measured,
  Noted,
  Priced,
  readBackEntities,
  Shouted,
  Sized,
  Tally,
  Timed,
  Tokened,
  Triggered,
} from '../../../fixtures/mikro-orm/fidelity.js';
import {
  assertAnswersAreStored,
  assertSameJson,
  type Catalogue,
  describeFidelity,
  type FidelityEnv,
  type Json,
} from './harness.js';

// Each model on its table's name, as CrudRouter serves it by default.
const CATALOGUE: Catalogue = {
  entities: readBackEntities,
  routes: new Map<ModelClass, string>(
    readBackEntities.map((model) => [model, `/${defaultTableName(model.name)}`] as const),
  ),
};

/** One reason the plain path reads back, shown on one model. */
interface ReasonCase {
  readonly model: ModelClass;
  /** The property whose value shows the difference. */
  readonly property: string;
  /** What the reason says; by default it names the property (`Model.property`). */
  readonly reason?: RegExp;
  /** Where it is a reason (all three dialects when absent); elsewhere the round trip is exact. */
  readonly dialects?: readonly Dialect[];
  /** The bodies of a POST and then a PATCH of the created record. */
  readonly post: Json;
  readonly patch: Json;
  /** The same values as MikroORM data, when their JSON form is not it. */
  readonly create?: Record<string, unknown>;
  readonly change?: Record<string, unknown>;
}

const UUID = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11';

/** The cases; a decimal is written in the form the dialect changes. */
function reasonCases(dialect: Dialect): ReasonCase[] {
  const [price, otherPrice] = dialect === 'sqlite' ? ['3.40', '0.50'] : ['3.4', '0.5'];
  return [
    { model: Formulated, property: 'twice', post: { n: 2 }, patch: { n: 5 } },
    { model: Priced, property: 'price', post: { price }, patch: { price: otherPrice } },
    {
      model: Clocked,
      property: 'at',
      dialects: ['postgresql', 'mysql'],
      post: { at: '2026-01-02T03:04:05.678Z' },
      patch: { at: '2027-01-02T03:04:05.999Z' },
      create: { at: new Date('2026-01-02T03:04:05.678Z') },
      change: { at: new Date('2027-01-02T03:04:05.999Z') },
    },
    {
      model: Timed,
      property: 'at',
      dialects: ['postgresql', 'mysql'],
      post: { at: '07:30:15.1234', whole: '07:30' },
      patch: { at: '08:00:00', whole: '08:00:00.75' },
    },
    {
      model: Measured,
      property: 'reading',
      dialects: ['postgresql', 'mysql'],
      post: { reading: 1.23456789 },
      patch: { reading: 9.87654321 },
    },
    {
      model: Gauged,
      property: 'meta',
      // jsonb orders an object's keys (shorter first); MikroORM's MySqlDriver reads an integer past 2^53
      // as a string (its MariaDbDriver, the mariadb target's, parses the text: a double, as flushed).
      dialects: ['postgresql'],
      post: { meta: { small: 7, n: 1e20 } },
      patch: { meta: [2 ** 53 + 2, 1.5] },
    },
    {
      model: Coded,
      property: 'code',
      dialects: ['postgresql', 'mysql'],
      post: { code: 'ab ' },
      patch: { code: 'x ' },
    },
    {
      model: Tokened,
      property: 'token',
      dialects: ['postgresql'],
      post: { token: UUID },
      patch: { token: UUID.replace('A0', 'B1') },
    },
    { model: Shouted, property: 'word', post: { word: 'quiet' }, patch: { word: 'still' } },
    // PostgreSQL reads 'NULL' as null; SQLite and MariaDB drop a trailing '' after an item with a
    // comma: MikroORM shows it, the API refuses such values (array-values.test.ts) and stores the others.
    {
      model: Listed,
      property: 'items',
      post: { items: ['a,b', '', 'c'] },
      patch: { items: ['x', 'c,d'] },
      create: { items: ['NULL', 'a,b', ''] },
      change: { items: ['x', 'NULL', 'c,d', ''] },
    },
    {
      model: Located,
      property: 'place',
      post: { place: { city: 'Oslo' } },
      patch: { place: { city: 'Bergen' } },
    },
    { model: Noted, property: 'origin', post: { label: 'one' }, patch: { label: 'two' } },
    { model: Sized, property: 'size', post: { body: 'hello' }, patch: { body: 'hello again' } },
    { model: Defaulted, property: 'n', post: { label: 'one' }, patch: { n: 8 } },
    { model: Echoed, property: 'shout', post: { label: 'one' }, patch: { label: 'two' } },
    {
      model: Triggered,
      property: 'shout',
      reason: /\bTriggered has database triggers\b/,
      post: { label: 'one' },
      patch: { label: 'two' },
    },
  ];
}

/** The statements of the triggers that set `shout` to the upper-cased label on insert and update. */
function triggerStatements(dialect: Dialect, table: string): string[] {
  switch (dialect) {
    case 'postgresql':
      return [
        `create or replace function ${table}_shout() returns trigger as $$ begin new.shout := upper(new.label); return new; end; $$ language plpgsql`,
        `drop trigger if exists ${table}_shout on ${table}`,
        `create trigger ${table}_shout before insert or update on ${table} for each row execute function ${table}_shout()`,
      ];
    case 'mysql':
      return ['insert', 'update'].map(
        (event) =>
          `create or replace trigger ${table}_${event} before ${event} on ${table} for each row set new.shout = upper(new.label)`,
      );
    default:
      // SQLite cannot change NEW: the row is updated after the write (recursive triggers are off).
      return [
        `create trigger if not exists ${table}_insert after insert on ${table} begin update ${table} set shout = upper(new.label) where id = new.id; end`,
        `create trigger if not exists ${table}_update after update of label on ${table} begin update ${table} set shout = upper(new.label) where id = new.id; end`,
      ];
  }
}

/** Creates the triggers of `Echoed` and `Triggered` (both modes share a server database). */
async function seedTriggers(env: FidelityEnv): Promise<void> {
  const dialect = buildPlan(env.adapter.orm, Echoed).dialect;
  const connection = env.em().getConnection();
  for (const model of [Echoed, Triggered])
    for (const sql of triggerStatements(dialect, env.meta(model).tableName)) await connection.execute(sql);
}

/** The JSON value of a property in MikroORM's serialization (null when it has none). */
function valueIn(env: FidelityEnv, model: ModelClass, json: Json | undefined, property: string): unknown {
  const prop = env.meta(model).properties[property as never] as { serializedName?: string } | undefined;
  return json?.[prop?.serializedName ?? property] ?? null;
}

/**
 * Whether MikroORM's own entity after a flush shows another value of the property than a fresh
 * read of its row, after `em.create` or after an update through a loaded entity.
 */
async function flushDiffers(env: FidelityEnv, test: ReasonCase): Promise<string | undefined> {
  const model = test.model;
  const em = env.em();
  const entity = em.create(model as never, (test.create ?? test.post) as never) as object;
  await em.flush();
  const id = wrap(entity, true).getPrimaryKey();
  const created = env.json(model, entity);
  const fresh = await env.mikroJson(model, id);
  if (
    JSON.stringify(valueIn(env, model, created, test.property)) !==
    JSON.stringify(valueIn(env, model, fresh, test.property))
  )
    return 'create';
  const other = env.em();
  const loaded = (await other.findOneOrFail(model as never, id as never)) as object;
  other.assign(loaded as never, (test.change ?? test.patch) as never);
  await other.flush();
  const changed = env.json(model, loaded);
  const again = await env.mikroJson(model, id);
  if (
    JSON.stringify(valueIn(env, model, changed, test.property)) !==
    JSON.stringify(valueIn(env, model, again, test.property))
  )
    return 'update';
  return undefined;
}

/** A subscriber that rewrites a tally's label after every flush, behind MikroORM's back. */
class Rewriter implements EventSubscriber {
  async afterFlush(args: FlushEventArgs): Promise<void> {
    await args.em.nativeUpdate(Tally, { label: 'to rewrite' }, { label: 'rewritten' });
  }
}

const TALLY = {
  label: 'Counted',
  pages: 3,
  flag: true,
  ratio: 0.1 + 0.2,
  big: '9007199254740993',
  day: '2026-02-28',
  at: '2026-01-02T03:04:05.678Z',
  data: { b: 1, a: [1, { d: 'x', c: null }], s: 'text' },
  note: 'a note',
  secret: 'hidden',
  ref: 'R-1',
};

await describeFidelity(
  'MikroORM fidelity: the read after a write',
  (env) => {
    it('Tally: the entity after flush is what a fresh read gives, so the plain path reads nothing back', async () => {
      const plan = buildPlan(env().adapter.orm, Tally);
      // Except on PostgreSQL, for its JSON (Gauged below shows why), and with MikroORM's MySqlDriver.
      if (plan.dialect === 'postgresql') assert.match(plan.readBack ?? '', /\bTally\.data\b/);
      else assert.equal(plan.readBack, undefined);
      const em = env().em();
      const carrier = em.create(Carrier, { name: `Carrier ${env().mode}` });
      await em.flush();
      // Every value set, then the defaults (database defaults, generated value, version) alone.
      await assertAnswersAreStored(
        env(),
        Tally,
        { ...TALLY, carrier: carrier.id },
        {
          pages: 4,
          big: '9007199254740995',
          data: ['x', 2],
          at: '2027-03-04T05:06:07.089Z',
          carrier: null,
        },
      );
      await assertAnswersAreStored(env(), Tally, { label: 'Bare' }, { note: 'later' });
    });

    it('a bigint past 2^53 an update leaves alone is answered exact (SQLite reads it rounded)', async () => {
      const route = env().routeOf(Tally);
      const created = await env().send('POST', route, { label: 'Big', big: '9007199254740993' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((created.body as Json).big, '9007199254740993');
      const id = (created.body as Json).id;
      const patched = await env().send('PATCH', `${route}/${String(id)}`, { pages: 9 });
      assert.equal((patched.body as Json).big, '9007199254740993');
      assertSameJson(patched.body, await env().mikroJson(Tally, id));
    });

    it('a subscriber that writes after the flush makes the write read back (per session)', async () => {
      const adapter = env().adapter;
      const session: EntityManager = adapter.orm.em.fork({ cloneEventManager: true });
      session.getEventManager().registerSubscriber(new Rewriter());
      assert.match(listenerReason(session, env().meta(Tally), 'create') ?? '', /afterFlush/);
      assert.equal(listenerReason(adapter.openSession(), env().meta(Tally), 'create'), undefined);
      const created = await adapter.create(session, Tally, { label: 'to rewrite' });
      assert.equal(created.label, 'rewritten');
      const stored = await env().mikroJson(Tally, created.id);
      assert.equal(stored?.label, 'rewritten');
    });

    it('Lent: many-to-ones with `ref: true` and `mapToPk: true` are written and answered as keys', async () => {
      const em = env().em();
      const [first, second] = [
        em.create(Carrier, { name: 'Lender' }),
        em.create(Carrier, { name: 'Borrower' }),
      ];
      await em.flush();
      await assertAnswersAreStored(
        env(),
        Lent,
        { title: 'lent', lender: first.id, borrower: second.id },
        { lender: second.id, borrower: null },
      );
      const created = await env().send('POST', env().routeOf(Lent), {
        title: 'both',
        lender: first.id,
        borrower: first.id,
      });
      const stored = await env().mikroJson(Lent, (created.body as Json).id);
      assert.deepEqual([stored?.lender, stored?.borrower], [first.id, first.id]);
    });

    it('Timed: a time is stored as MikroORM stores the same text, and every answer shows it as MikroORM reads it', async () => {
      const route = env().routeOf(Timed);
      // `HH:MM` is the one form the API rewrites (to `HH:MM:00`, what PostgreSQL and MariaDB store for it).
      const asMikroOrmGetsIt = (value: string) => (value.length === 5 ? `${value}:00` : value);
      for (const value of ['10:30:15.123', '10:30:15', '10:30', '23:59:59.5', '00:00:00.1239']) {
        const created = await env().send('POST', route, { at: value, whole: value });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const id = (created.body as Json).id;
        const em = env().em();
        const own = em.create(Timed, { at: asMikroOrmGetsIt(value), whole: asMikroOrmGetsIt(value) });
        await em.flush();
        const stored = await env().mikroJson(Timed, id);
        const reference = await env().mikroJson(Timed, own.id);
        assert.deepEqual([stored?.at, stored?.whole], [reference?.at, reference?.whole], value);
        assertSameJson(created.body, stored, `POST ${value}`);
        const read = (await env().send('GET', `${route}/${String(id)}`)).body as Json;
        assertSameJson(read, stored, `GET ${value}`);
        // What a client reads it can send back (PostgreSQL rounds 23:59:59.5 to 24:00:00).
        for (const time of [read.at, read.whole]) assert.match(String(time), new RegExp(TIME_PATTERN));
        const back = await env().send('PUT', `${route}/${String(id)}`, { at: read.at, whole: read.whole });
        assert.equal(back.status, 200, JSON.stringify(back.body));
        const filtered = await env().send(
          'GET',
          `${route}?filter[whole]=${String(read.whole)}&filter[id]=${String(id)}`,
        );
        assert.equal(filtered.status, 200, JSON.stringify(filtered.body));
      }
    });

    it('Hooked: after-create and after-update hooks change the entity after the write, so the write reads back', async () => {
      const meta = env().meta(Hooked);
      assert.equal(buildPlan(env().adapter.orm, Hooked).readBack, undefined);
      const session = env().adapter.openSession();
      assert.match(listenerReason(session, meta, 'create') ?? '', /afterCreate/);
      assert.match(listenerReason(session, meta, 'update') ?? '', /afterUpdate/);
      const differs = await flushDiffers(env(), {
        model: Hooked,
        property: 'label',
        post: { label: 'one' },
        patch: { label: 'two' },
      });
      assert.equal(differs, 'create', 'MikroORM holds the hook’s change after flush');
      await assertAnswersAreStored(env(), Hooked, { label: 'one' }, { label: 'two' });
    });

    it('Gauged: a JSON integer past 2^53 is answered as a fresh read gives it, by the write and by GET', async () => {
      const route = env().routeOf(Gauged);
      // MikroORM's MySqlDriver (a mysql:// URL) lets mysql2 parse JSON; its MariaDbDriver (mariadb://) parses the text itself.
      const platform = env().adapter.orm.em.getPlatform();
      const string =
        buildPlan(env().adapter.orm, Gauged).dialect === 'mysql' && platform.convertsJsonAutomatically();
      for (const meta of [{ n: 1e20 }, [2 ** 53 + 2]]) {
        const created = await env().send('POST', route, { meta });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        const id = (created.body as Json).id;
        const stored = await env().mikroJson(Gauged, id);
        // mysql2's `supportBigNumbers` (set by MikroORM's MySqlDriver) reads such an integer as its digits.
        const big = Object.values(stored?.meta as object)[0];
        assert.equal(typeof big, string ? 'string' : 'number');
        assertSameJson(created.body, stored, `POST ${JSON.stringify(meta)}`);
        assertSameJson((await env().send('GET', `${route}/${String(id)}`)).body, stored);
      }
    });

    // The same models and properties on every dialect; the values may differ (reasonCases).
    reasonCases('sqlite').forEach(({ model, property }, index) => {
      const name = `${model.name}.${property}`;
      it(`${name}: read back where MikroORM's entity after flush differs from a fresh read`, async () => {
        const plan = buildPlan(env().adapter.orm, model);
        const test = reasonCases(plan.dialect)[index] as ReasonCase;
        if (test.dialects === undefined || test.dialects.includes(plan.dialect)) {
          assert.match(plan.readBack ?? '', test.reason ?? new RegExp(`\\b${name}\\b`));
          assert.ok(
            (await flushDiffers(env(), test)) !== undefined,
            `MikroORM's entity after flush shows ${name} as a fresh read does: no reason to read back`,
          );
        } else {
          assert.equal(plan.readBack, undefined, `${name} reads back exact on ${plan.dialect}`);
        }
        await assertAnswersAreStored(env(), model, test.post, test.patch);
      });
    });
  },
  seedTriggers,
  { catalogue: CATALOGUE },
);
