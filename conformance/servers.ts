/**
 * Starts the two applications of a suite run on 127.0.0.1 (random ports): one with default
 * routers, one with `strict: true` routers, both over the target's adapter. Every router embeds
 * at most `INCLUDE_LIMIT` records of a to-many relation, so that a case can reach the cap.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Application, CrudRouter } from '../lib/index.js';
import { HttpClient } from './http-client.js';
import type { ConformanceEnvironment } from './types.js';

/** The `include_limit` of every router of the suite (small, so the cap takes a few records). */
export const INCLUDE_LIMIT = 3;

/** The running servers of one suite run. */
export interface RunningServers {
  readonly http: HttpClient;
  readonly strictHttp: HttpClient;
  /** Stops both servers; the adapter is left to the target's `teardown`. */
  close(): Promise<void>;
}

async function serve(env: ConformanceEnvironment, title: string, strict: boolean): Promise<Server> {
  const app = new Application({ title, adapter: env.adapter });
  for (const model of Object.values(env.models)) {
    new CrudRouter({ model, strict, include_limit: INCLUDE_LIMIT }).register_routes(app);
  }
  // A plain server over app.callback(): the suite owns its lifetime, and app.close() would also
  // close the adapter, which belongs to the target.
  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return server;
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

function clientOf(server: Server): HttpClient {
  return new HttpClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

/** Builds and starts both applications. */
export async function startServers(env: ConformanceEnvironment, targetName: string): Promise<RunningServers> {
  const plain = await serve(env, `conformance ${targetName}`, false);
  const strict = await serve(env, `conformance ${targetName} (strict)`, true);
  return {
    http: clientOf(plain),
    strictHttp: clientOf(strict),
    close: async () => {
      await Promise.all([stop(plain), stop(strict)]);
    },
  };
}
