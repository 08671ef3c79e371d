/**
 * The differential suite's harness: per database target, one database shared by both execution
 * modes; per mode, a `MikroOrmAdapter` over the fidelity catalogue behind a real `Application`
 * on a loopback port. The reference is MikroORM itself, asked through a fresh `EntityManager` of
 * the same ORM: `wrap(entity).toObject()` for records, `em.find` for filters and sorts.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import {
  BigIntType,
  type EntityManager,
  type EntityMetadata,
  type EntitySchema,
  type EventSubscriber,
  ReferenceKind,
  wrap,
} from '@mikro-orm/core';
import { MikroOrmAdapter, type MikroOrmConnectOptions } from '../../../../adapters/mikro-orm/index.js';
import { Application, CrudRouter, type Logger } from '../../../../lib/index.js';
import type { ModelClass } from '../../../../lib/types.js';
import {
  Bulletin,
  Carrier,
  fidelityEntities,
  fidelitySubscribers,
  Memo,
  Shipment,
  Truck,
  Van,
  Vehicle,
} from '../../../fixtures/mikro-orm/fidelity.js';
import {
  createTestDatabase,
  type DatabaseTarget,
  databaseTargets,
  requireTarget,
  type TestDatabase,
} from '../../../support/databases.js';
import { serve, type TestServer } from '../../../support/http.js';

/** The two execution modes of the adapter. */
export const MODES = ['fast', 'plain'] as const;
/** One execution mode. */
export type Mode = (typeof MODES)[number];

/** A JSON object as the API or MikroORM's serializer gives it. */
export type Json = Record<string, unknown>;

/** Where each catalogue model is served: STI subclasses share a table, so each gets a prefix. */
export const ROUTES: ReadonlyMap<ModelClass, string> = new Map<ModelClass, string>([
  [Memo, '/memos'],
  [Carrier, '/carriers'],
  [Shipment, '/shipments'],
  [Vehicle, '/vehicles'],
  [Truck, '/trucks/vehicles'],
  [Van, '/vans/vehicles'],
  [Bulletin, '/bulletins'],
]);

/** The path of a model's collection. */
export function routeOf(model: ModelClass): string {
  const route = ROUTES.get(model);
  assert.ok(route !== undefined, `${model.name} has no route in the fidelity app`);
  return route;
}

/** The entities an application serves, where, and the subscribers its MikroORM needs. */
export interface Catalogue {
  readonly entities: readonly (ModelClass | EntitySchema)[];
  readonly routes: ReadonlyMap<ModelClass, string>;
  readonly subscribers?: () => EventSubscriber[];
  /** Other MikroORM options of the application's ORM (`forceUndefined`, `assign`, `serialization`…). */
  readonly options?: Omit<MikroOrmConnectOptions, 'url' | 'entities'>;
  /** The applications' logger (the console's by default): a test that asserts what is logged. */
  readonly logger?: Logger;
}

/** The fidelity catalogue (spec/fixtures/mikro-orm/fidelity.ts) on its routes. */
export const FIDELITY_CATALOGUE: Catalogue = {
  entities: fidelityEntities,
  routes: ROUTES,
  subscribers: fidelitySubscribers,
};

/** An HTTP answer with its body parsed. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** One adapter (one mode) over one target's database, served over HTTP. */
export class FidelityEnv {
  constructor(
    readonly target: DatabaseTarget,
    readonly mode: Mode,
    readonly adapter: MikroOrmAdapter,
    readonly server: TestServer,
    readonly routes: ReadonlyMap<ModelClass, string> = ROUTES,
  ) {}

  /** The path of a model's collection in this application. */
  routeOf(model: ModelClass): string {
    const route = this.routes.get(model);
    assert.ok(route !== undefined, `${model.name} has no route in this application`);
    return route;
  }

  /** A fresh EntityManager of the adapter's ORM: MikroORM's own view of the database. */
  em(): EntityManager {
    return this.adapter.orm.em.fork();
  }

  /** Sends a request; the body is parsed as JSON when there is one. */
  async send(method: string, path: string, json?: unknown): Promise<Answer> {
    const response = await this.server.request(path, {
      method,
      ...(json === undefined ? {} : { json }),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON: keep the text, the assertion shows it.
    }
    return { status: response.status, headers: response.headers, body };
  }

  /** GET that must answer 200; the parsed body. */
  async get<T = Json>(path: string): Promise<T> {
    const answer = await this.send('GET', path);
    assert.equal(answer.status, 200, `GET ${path}: ${JSON.stringify(answer.body)}`);
    return answer.body as T;
  }

  /** MikroORM's JSON of the row with this key (lazy fields left out), or undefined when `findOne` finds none. */
  async mikroJson(
    model: ModelClass,
    id: unknown,
    options: { filters?: boolean } = {},
  ): Promise<Json | undefined> {
    const entity = await this.em().findOne(model as never, id as never, {
      ...(options.filters === false ? { filters: false } : {}),
    });
    return entity === null ? undefined : this.exactJson(model, entity as object);
  }

  /**
   * MikroORM's JSON of an entity with the documented differences of the API (docs/models.md):
   * on SQLite a bigint beyond 2^53, which MikroORM's driver reads rounded, is the exact stored value;
   * a transient value
   * (`persist: false`) a loaded entity does not have, which MikroORM leaves out, is null (the API
   * sends every field).
   */
  async exactJson(model: ModelClass, entity: object): Promise<Json> {
    const json = this.json(model, entity);
    const meta = this.meta(model);
    for (const prop of meta.props) {
      const name = prop.serializedName ?? prop.name;
      // A scalar only: MikroORM's own `persist: false` collections (the inverse side it adds to a
      // unidirectional many-to-many) are no part of a record.
      const transient =
        prop.persist === false &&
        prop.kind === ReferenceKind.SCALAR &&
        prop.embedded === undefined &&
        prop.hidden !== true;
      if (transient && json[name] === undefined) json[name] = null;
    }
    if (!this.target.startsWith('sqlite')) return json;
    for (const prop of meta.props) {
      const name = prop.serializedName ?? prop.name;
      const value = json[name];
      if (!(prop.customType instanceof BigIntType) || typeof value !== 'string') continue;
      if (
        BigInt(value) <= BigInt(Number.MAX_SAFE_INTEGER) &&
        BigInt(value) >= -BigInt(Number.MAX_SAFE_INTEGER)
      )
        continue;
      const rows = (await this.em()
        .getConnection()
        .execute(
          `select cast("${prop.fieldNames[0]}" as text) as v from "${meta.tableName}" where "${meta.primaryKeys[0]}" = ?`,
          [json[meta.primaryKeys[0] as string]],
          'all',
        )) as { v: string }[];
      json[name] = rows[0]?.v ?? value;
    }
    return json;
  }

  /** MikroORM's serialization of an entity through JSON, without the fields the API sends only on request. */
  json(model: ModelClass, entity: object): Json {
    const json = JSON.parse(JSON.stringify(wrap(entity).toObject())) as Json;
    for (const name of lazyJsonNames(this.meta(model))) delete json[name];
    return json;
  }

  /** The keys `em.find` returns for a query, in its order. */
  async mikroIds(model: ModelClass, where: object, orderBy?: object): Promise<unknown[]> {
    const rows = (await this.em().find(model as never, where as never, {
      ...(orderBy === undefined ? {} : { orderBy: orderBy as never }),
    })) as { id: unknown }[];
    return rows.map((row) => row.id);
  }

  /** The ORM's metadata of a model. */
  meta(model: ModelClass): EntityMetadata {
    return this.adapter.orm.getMetadata().get(model as never) as EntityMetadata;
  }
}

/** The JSON names of a model's lazy properties. */
export function lazyJsonNames(meta: EntityMetadata): string[] {
  return meta.props.filter((prop) => prop.lazy === true).map((prop) => prop.serializedName ?? prop.name);
}

/** The targets of the differential suite: SQLite in memory, PostgreSQL and MariaDB (narrowed by KMA_DATABASES). */
export function fidelityTargets(): DatabaseTarget[] {
  return databaseTargets().filter((target) => target !== 'sqlite-file');
}

/** Builds the application of one mode: every catalogue model on its route. */
async function startEnv(
  target: DatabaseTarget,
  mode: Mode,
  db: TestDatabase,
  create: boolean,
  catalogue: Catalogue,
): Promise<FidelityEnv> {
  const adapter = await MikroOrmAdapter.connect({
    ...catalogue.options,
    url: db.url,
    entities: [...catalogue.entities],
    subscribers: catalogue.subscribers?.() ?? [],
    schema: create ? 'create' : 'none',
    mode,
  });
  try {
    const app = new Application({
      title: `fidelity ${target} ${mode}`,
      adapter,
      ...(catalogue.logger === undefined ? {} : { logger: catalogue.logger }),
    });
    for (const [model, route] of catalogue.routes) {
      const prefix = route.split('/').slice(0, -1).join('/');
      new CrudRouter(prefix === '' ? { model } : { model, prefix }).register_routes(app);
    }
    // A plain server over app.callback(): closing it leaves the adapter to this harness.
    return new FidelityEnv(target, mode, adapter, await serve(app.callback()), catalogue.routes);
  } catch (error) {
    // A model refused at registration: its pool would keep the test process alive until the timeout.
    await adapter.close();
    throw error;
  }
}

/**
 * Registers `body` once per target and mode, as `<title> on <target> (<mode>)`. Both modes of a
 * target share one database (SQLite in memory: one each); `seed` runs once per mode before the tests;
 * `targets` keeps only the first N targets, `only` the targets it names; `catalogue` replaces the
 * fidelity catalogue.
 */
export async function describeFidelity(
  title: string,
  body: (env: () => FidelityEnv) => void,
  seed?: (env: FidelityEnv) => Promise<void>,
  options: {
    readonly targets?: number;
    readonly catalogue?: Catalogue;
    /** Only these targets (a catalogue a database cannot create, e.g. `mediumint` on PostgreSQL). */
    readonly only?: readonly DatabaseTarget[];
  } = {},
): Promise<void> {
  const targets = fidelityTargets().filter((target) => options.only?.includes(target) ?? true);
  // A check that does not depend on the database may run on the first target only.
  for (const target of targets.slice(0, options.targets)) {
    const option = await requireTarget(target);
    describe(`${title} on ${target}`, option, () => {
      let db: TestDatabase | undefined;
      const envs = new Map<Mode, FidelityEnv>();
      before(async () => {
        db = await createTestDatabase(target);
      });
      after(async () => {
        for (const env of envs.values()) {
          await env.server.close();
          await env.adapter.close();
        }
        await db?.drop();
      });
      for (const mode of MODES) {
        describe(`${mode} mode`, () => {
          before(async () => {
            assert.ok(db !== undefined);
            const shared = target !== 'sqlite-memory';
            const env = await startEnv(
              target,
              mode,
              db,
              !shared || envs.size === 0,
              options.catalogue ?? FIDELITY_CATALOGUE,
            );
            envs.set(mode, env);
            await seed?.(env);
          });
          body(() => {
            const env = envs.get(mode);
            assert.ok(env !== undefined, 'the environment did not start');
            return env;
          });
        });
      }
    });
  }
}

/** POSTs and PATCHes through the API; each answer must equal MikroORM's serialization of the stored row. */
export async function assertAnswersAreStored(
  env: FidelityEnv,
  model: ModelClass,
  post: Json,
  patch: Json,
): Promise<void> {
  const route = env.routeOf(model);
  const created = await env.send('POST', route, post);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = (created.body as Json).id;
  assertSameJson(created.body, await env.mikroJson(model, id), `POST ${route}`);
  const patched = await env.send('PATCH', `${route}/${String(id)}`, patch);
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assertSameJson(patched.body, await env.mikroJson(model, id), `PATCH ${route}/${String(id)}`);
}

/** Asserts that two JSON objects are equal whatever the order of their keys. */
export function assertSameJson(actual: unknown, expected: unknown, message?: string): void {
  assert.deepStrictEqual(sortKeys(actual), sortKeys(expected), message);
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Json)[key])]),
  );
}

/** The `id` of every item of a list answer, in order. */
export function idsOf(items: unknown): unknown[] {
  assert.ok(Array.isArray(items), `expected a JSON array, got ${JSON.stringify(items)}`);
  return items.map((item) => (item as Json).id);
}

/** A column name quoted for the target's SQL. */
function quoted(env: FidelityEnv, name: string): string {
  return env.target === 'mariadb' ? `\`${name}\`` : `"${name}"`;
}

/** Columns of one row as the database holds them. */
export async function storedColumns(
  env: FidelityEnv,
  table: string,
  id: unknown,
  columns: readonly string[],
): Promise<Json> {
  const rows = (await env
    .em()
    .getConnection()
    .execute(
      `select ${columns.map((column) => quoted(env, column)).join(', ')} from ${table} where id = ?`,
      [id],
      'all',
    )) as Json[];
  assert.equal(rows.length, 1, `${table} ${String(id)} is missing`);
  return { ...rows[0] };
}
