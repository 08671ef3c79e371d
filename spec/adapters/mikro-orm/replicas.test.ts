/**
 * MikroORM's `replicas` + `preferReadReplicas` against a real streaming replica the test builds
 * (a private primary and a `pg_basebackup` standby, both removed at the end). With the standby's
 * replay paused, a row written on the primary only tells where each read went: reads outside a
 * transaction go to the replica, as MikroORM sends them; a session that wrote reads its own writes
 * from the primary; reads inside a transaction use the primary; a request that may write (any
 * method but GET and HEAD) reads from the primary throughout, and so do the auth plugin's checks of
 * refresh tokens and revocations. Both execution modes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EntityManager } from '@mikro-orm/core';
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { RefreshToken, User } from '../../../examples/recipes/sessions/entities.js';
import { AdapterRefreshStore } from '../../../lib/auth/index.js';
import { Application, AuthRouter, CrudRouter, type Logger } from '../../../lib/index.js';
import type { ListQuery } from '../../../lib/types.js';
import { fixtureModels, mikroOrmFixtureEntities } from '../../fixtures/mikro-orm/index.js';
import { PrivatePostgres, requirePrivatePostgres } from '../../reliability/support/private-postgres.js';
import { describeResponse, objectOf, send } from '../../security/support/client.js';
import { serve, type TestServer } from '../../support/http.js';
import { queryOn, StreamingReplica } from '../../support/streaming-replica.js';

const { Book, Category } = fixtureModels;
const DATABASE = 'kma_replicas';
/** The auth plugin's database: users and refresh tokens. */
const AUTH_DATABASE = 'kma_replicas_auth';
const SECRET = 'replica-suite-secret-of-more-than-32-bytes-0123456789';
const quietLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

function byName(name: string): ListQuery {
  return {
    filters: [{ field: 'name', op: '$eq', value: name }],
    sort: [{ field: 'id', direction: 'asc' }],
    limit: 10,
    offset: 0,
    withTotal: true,
  };
}

/** Inserts a row on the primary behind the adapter's back; returns its id. */
async function insertOnPrimary(primary: PrivatePostgres, name: string): Promise<number> {
  const [row] = await queryOn(
    primary.url(DATABASE),
    'insert into categories (name) values ($1) returning id',
    [name],
  );
  return Number(row?.id);
}

/** Client connections the adapter holds open on a server (its pool stays open between reads). */
async function adapterConnections(url: string): Promise<number> {
  const [row] = await queryOn(
    url,
    "select count(*)::int as n from pg_stat_activity where datname = $1 and backend_type = 'client backend' and pid <> pg_backend_pid()",
    [DATABASE],
  );
  return Number(row?.n);
}

/** Runs `check` while the replica's replay is paused (so it lags for certain), resuming it after. */
async function whileLagging(replica: StreamingReplica, check: () => Promise<void>): Promise<void> {
  await replica.catchUp();
  await replica.pauseReplay();
  try {
    await check();
  } finally {
    await replica.resumeReplay();
  }
}

describe('MikroOrmAdapter with a streaming read replica', requirePrivatePostgres(), () => {
  let primary: PrivatePostgres | undefined;
  let replica: StreamingReplica | undefined;

  before(async () => {
    primary = await PrivatePostgres.start();
    await queryOn(primary.url(), `create database ${DATABASE}`);
    const creator = await MikroOrmAdapter.connect({
      url: primary.url(DATABASE),
      entities: [...mikroOrmFixtureEntities],
      schema: 'create',
    });
    await creator.close();
    await queryOn(primary.url(), `create database ${AUTH_DATABASE}`);
    const authCreator = await MikroOrmAdapter.connect({
      url: primary.url(AUTH_DATABASE),
      entities: [User, RefreshToken],
      schema: 'create',
    });
    await authCreator.close();
    replica = await StreamingReplica.start(primary);
  });

  after(async () => {
    try {
      await replica?.destroy();
    } finally {
      await primary?.destroy();
    }
  });

  for (const mode of ['fast', 'plain'] as const) {
    describe(`in ${mode} mode`, () => {
      let adapter: MikroOrmAdapter | undefined;
      let server: TestServer | undefined;
      let app: Application | undefined;

      before(async () => {
        assert.ok(primary !== undefined && replica !== undefined);
        adapter = await MikroOrmAdapter.connect({
          url: primary.url(DATABASE),
          entities: [...mikroOrmFixtureEntities],
          replicas: [{ host: '127.0.0.1', port: replica.port }],
          preferReadReplicas: true,
          ...(mode === 'plain' ? { mode } : {}),
        });
        app = new Application({ title: `replicas ${mode}`, adapter, logger: quietLogger });
        new CrudRouter({ model: Category }).register_routes(app);
        server = await serve(app.callback());
      });

      after(async () => {
        await server?.close();
        await adapter?.close();
      });

      it('reads outside a transaction (get, list, GET routes) from the replica', async () => {
        assert.ok(primary && replica && adapter && server);
        const lagging = replica;
        const name = `primary-only-${mode}`;
        let id = 0;
        await whileLagging(lagging, async () => {
          id = await insertOnPrimary(primary as PrivatePostgres, name);
          assert.equal(await adapter?.get(adapter.openSession(), Category, id), undefined);
          const listed = await adapter?.list(adapter.openSession(), Category, byName(name));
          assert.deepEqual([listed?.rows.length, listed?.total], [0, 0]);
          const one = await send(server?.url ?? '', { method: 'GET', path: `/categories/${id}` });
          assert.equal(one.status, 404, describeResponse(one));
          const page = await send(server?.url ?? '', {
            method: 'GET',
            path: `/categories?filter%5Bname%5D=${name}`,
          });
          assert.equal(page.status, 200, describeResponse(page));
          assert.deepEqual(page.json, []);
          assert.ok(
            (await adapterConnections(lagging.url())) > 0,
            'the adapter holds connections on the replica',
          );
        });
        assert.equal((await adapter.get(adapter.openSession(), Category, id))?.name, name, 'once replayed');
      });

      it('reads its own writes in a session that wrote, even while the replica lags', async () => {
        assert.ok(primary && replica && adapter && server);
        const existing = await insertOnPrimary(primary, `before-pause-${mode}`);
        const other = await insertOnPrimary(primary, `before-pause-http-${mode}`);
        await whileLagging(replica, async () => {
          assert.ok(adapter && server);
          const session = adapter.openSession();
          const created = await adapter.create(session, Category, { name: `written-${mode}` });
          assert.equal((await adapter.get(session, Category, created.id as number))?.name, `written-${mode}`);
          const listed = await adapter.list(session, Category, byName(`written-${mode}`));
          assert.deepEqual(
            listed.rows.map((row) => row.id),
            [created.id],
          );
          const updated = await adapter.update(session, Category, existing, { name: `renamed-${mode}` });
          assert.equal(updated?.name, `renamed-${mode}`);
          assert.equal((await adapter.get(session, Category, existing))?.name, `renamed-${mode}`);
          // A fresh session has not written: it reads the lagging replica.
          assert.equal(await adapter.get(adapter.openSession(), Category, created.id as number), undefined);

          // Over HTTP: a create and an update answer with the stored record, read from the primary.
          const posted = await send(server.url, {
            method: 'POST',
            path: '/categories',
            json: { name: `http-${mode}` },
          });
          assert.equal(posted.status, 201, describeResponse(posted));
          assert.equal(objectOf(posted).name, `http-${mode}`);
          const put = await send(server.url, {
            method: 'PUT',
            path: `/categories/${other}`,
            json: { name: `http-renamed-${mode}` },
          });
          assert.equal(put.status, 200, describeResponse(put));
          assert.equal(objectOf(put).name, `http-renamed-${mode}`);
        });
      });

      it('a request that may write reads from the primary: a PUT compares with the stored row, not a stale copy', async () => {
        assert.ok(primary && replica && server);
        const url = primary.url(DATABASE);
        const id = await insertOnPrimary(primary, `stale-a-${mode}`);
        await whileLagging(replica, async () => {
          assert.ok(server);
          // The primary moves on; the replica still has the old name.
          await queryOn(url, 'update categories set name = $1 where id = $2', [`stale-b-${mode}`, id]);
          // Sending the old name back is a change: MikroORM compares with the row it loaded, so
          // that row must be the primary's (from the replica, the flush would write nothing).
          const put = await send(server.url, {
            method: 'PUT',
            path: `/categories/${id}`,
            json: { name: `stale-a-${mode}` },
          });
          assert.equal(put.status, 200, describeResponse(put));
          assert.equal(objectOf(put).name, `stale-a-${mode}`);
          const [stored] = await queryOn(url, 'select name from categories where id = $1', [id]);
          assert.equal(stored?.name, `stale-a-${mode}`, 'the update was not written');
          // A DELETE finds a row only the primary has.
          const fresh = await insertOnPrimary(primary as PrivatePostgres, `primary-only-delete-${mode}`);
          const removed = await send(server.url, { method: 'DELETE', path: `/categories/${fresh}` });
          assert.equal(removed.status, 204, describeResponse(removed));
        });
      });

      it('a refresh token revoked while the replica lags is refused, and a login right after register succeeds', async () => {
        assert.ok(primary && replica);
        const authAdapter = await MikroOrmAdapter.connect({
          url: primary.url(AUTH_DATABASE),
          entities: [User, RefreshToken],
          replicas: [{ host: '127.0.0.1', port: replica.port }],
          ...(mode === 'plain' ? { mode } : {}),
        });
        const authApp = new Application({
          title: `replica auth ${mode}`,
          adapter: authAdapter,
          logger: quietLogger,
        });
        const auth = new AuthRouter({
          user_model: User,
          secret: SECRET,
          refresh_store: new AdapterRefreshStore({ model: RefreshToken }),
        });
        auth.register_routes(authApp);
        // A secured GET route: its data comes from the replica, its caller from the primary.
        new CrudRouter({
          model: User,
          secure: true,
          auth_dependency: auth.get_auth_dependency(),
        }).register_routes(authApp);
        const authServer = await serve(authApp.callback());
        try {
          const credentials = { username: `victim-${mode}`, password: 'victim password 1' };
          await whileLagging(replica, async () => {
            const registered = await send(authServer.url, {
              method: 'POST',
              path: '/register',
              json: credentials,
            });
            assert.equal(registered.status, 201, describeResponse(registered));
            // The replica has not replayed the new user: the login reads the primary.
            const login = await send(authServer.url, { method: 'POST', path: '/login', json: credentials });
            assert.equal(login.status, 200, describeResponse(login));
            const { access_token: access, refresh_token: refresh } = objectOf(login) as {
              access_token: string;
              refresh_token: string;
            };
            const bearer = { authorization: `Bearer ${access}` };
            // A user the replica does not have yet is authenticated on a GET: not a 401 "no longer exists".
            const listed = await send(authServer.url, { method: 'GET', path: '/users', headers: bearer });
            assert.equal(listed.status, 200, describeResponse(listed));
            const out = await send(authServer.url, { method: 'POST', path: '/logout-all', headers: bearer });
            assert.ok(out.status < 300, describeResponse(out));
            // The revoked access token reads nothing, though the replica still holds the old user row.
            for (const method of ['GET', 'HEAD']) {
              const after = await send(authServer.url, { method, path: '/users', headers: bearer });
              assert.equal(after.status, 401, `${method}: ${describeResponse(after)}`);
            }
            const stolen = await send(authServer.url, {
              method: 'POST',
              path: '/refresh',
              json: { refresh_token: refresh },
            });
            assert.equal(stolen.status, 401, describeResponse(stolen));
          });
        } finally {
          await authServer.close();
          await authAdapter.close();
        }
      });

      it('reads the links of a collection from the replica, and from the primary once the session wrote', async () => {
        assert.ok(primary && replica && adapter);
        const url = primary.url(DATABASE);
        const [author] = await queryOn(url, 'insert into authors (name) values ($1) returning id', [
          `links-${mode}`,
        ]);
        const [book] = await queryOn(
          url,
          'insert into books (title, author_id) values ($1, $2) returning id',
          [`links-${mode}`, author?.id],
        );
        const [tag] = await queryOn(url, 'insert into labels (name) values ($1) returning id', [
          `links-${mode}`,
        ]);
        const owner = Number(book?.id);
        await whileLagging(replica, async () => {
          assert.ok(adapter);
          await queryOn(url, 'insert into books_tags (book_id, tag_id) values ($1, $2)', [owner, tag?.id]);
          assert.deepEqual(
            await adapter.links?.(adapter.openSession(), Book, 'tags', [owner], 10),
            [],
            'a session that has not written: the replica',
          );
          const session = adapter.openSession();
          await adapter.create(session, Category, { name: `links-wrote-${mode}` });
          assert.deepEqual(await adapter.links?.(session, Book, 'tags', [owner], 10), [
            { owner, target: Number(tag?.id) },
          ]);
        });
      });

      it('reads inside a transaction from the primary', async () => {
        assert.ok(primary && replica && adapter);
        const name = `in-transaction-${mode}`;
        await whileLagging(replica, async () => {
          assert.ok(adapter);
          const id = await insertOnPrimary(primary as PrivatePostgres, name);
          assert.equal(
            await adapter.get(adapter.openSession(), Category, id),
            undefined,
            'outside: the replica',
          );
          const seen = await adapter.openSession().transactional(async (em: EntityManager) => {
            const row = await adapter?.get(em, Category, id);
            const listed = await adapter?.list(em, Category, byName(name));
            return { row, count: listed?.rows.length };
          });
          assert.equal(seen.row?.name, name);
          assert.equal(seen.count, 1);
        });
      });
    });
  }
});
