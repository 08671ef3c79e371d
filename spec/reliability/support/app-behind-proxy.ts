/**
 * The library application the freezing tests serve: a fresh database of one target, reached by the
 * adapter through a `FreezableProxy` (the server itself is never touched), behind a real server.
 */
import { MikroOrmAdapter } from '../../../adapters/mikro-orm/index.js';
import { Application, CrudRouter, type Logger } from '../../../lib/index.js';
import { Author, Book, Category, Tag } from '../../fixtures/mikro-orm/library.js';
import { createTestDatabase, type TestDatabase } from '../../support/databases.js';
import { serve, type TestServer } from '../../support/http.js';
import { FreezableProxy } from './freezable-proxy.js';

/** A running application behind a proxy; `close()` thaws and closes everything, the database last. */
export interface AppBehindProxy {
  readonly db: TestDatabase;
  readonly proxy: FreezableProxy;
  readonly adapter: MikroOrmAdapter;
  readonly server: TestServer;
  close(): Promise<void>;
}

/** Starts the authors, books and tags routes on a new database of `target`, through a proxy. */
export async function startAppBehindProxy(
  target: 'postgresql' | 'mariadb',
  options: {
    readonly title: string;
    readonly mode: 'fast' | 'plain';
    readonly pool: number;
    readonly connectTimeoutMs: number;
    readonly queryTimeoutMs: number;
    readonly logger: Logger;
  },
): Promise<AppBehindProxy> {
  const db = await createTestDatabase(target);
  const url = new URL(db.url);
  const proxy = await FreezableProxy.start(
    url.hostname,
    Number(url.port || (target === 'mariadb' ? 3306 : 5432)),
  );
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  const adapter = await MikroOrmAdapter.connect({
    url: url.toString(),
    entities: [Author, Book, Category, Tag],
    schema: 'create',
    mode: options.mode,
    pool: { max: options.pool },
    connectTimeoutMs: options.connectTimeoutMs,
    queryTimeoutMs: options.queryTimeoutMs,
  });
  const app = new Application({ title: options.title, adapter, logger: options.logger });
  for (const model of [Author, Book, Tag]) new CrudRouter({ model }).register_routes(app);
  const server = await serve(app.callback());
  return {
    db,
    proxy,
    adapter,
    server,
    async close() {
      proxy.thaw();
      await server.close();
      // Bounded, so that a failing run does not also wait for ever on a connection it left stuck.
      await Promise.race([adapter.close(), new Promise((resolve) => setTimeout(resolve, 5_000))]);
      await proxy.close();
      await db.drop();
    },
  };
}
