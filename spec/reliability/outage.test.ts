/**
 * Database outage and recovery: the example blog on a PostgreSQL server of the test's own. While
 * the server is stopped — and while it is frozen, as behind a network partition — every request
 * that needs the database answers 503 with `Retry-After` within 5 s, `/health/live` stays 200 and
 * `/health/ready` turns 503. Once the server is back, requests succeed without restarting the app.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createBlogApp } from '../../examples/blog/app.js';
import { Category } from '../../examples/blog/entities.js';
import { Application, CrudRouter, type Logger } from '../../lib/index.js';
import {
  describeResponse,
  type HttpRequest,
  type HttpResponse,
  objectOf,
  send,
} from '../security/support/client.js';
import { serve, type TestServer } from '../support/http.js';
import { PrivatePostgres, requirePrivatePostgres } from './support/private-postgres.js';

const SECRET = 'outage-suite-secret-of-more-than-32-bytes-0123456789';
/** The bound the issue sets for an answer while the database is away. */
const ANSWER_WITHIN_MS = 5_000;

const quietLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** What a client does during an outage: reads, writes, and authenticated calls (which load the user). */
function traffic(token: string, round: number): HttpRequest[] {
  const bearer = { authorization: `Bearer ${token}` };
  return [
    { method: 'GET', path: '/categories' },
    { method: 'POST', path: '/categories', json: { name: `during-outage-${round}` } },
    { method: 'GET', path: '/posts', headers: bearer },
    { method: 'POST', path: '/posts', headers: bearer, json: { title: `during outage ${round}` } },
    { method: 'GET', path: '/users/1', headers: bearer },
  ];
}

/** How long the client waits before it records "no answer" (above the bound, so a slow answer shows as such). */
const CLIENT_TIMEOUT_MS = ANSWER_WITHIN_MS + 1_000;

/** Sends in parallel; a request the server does not answer in time becomes a status-0 response, not a stuck test. */
function sendAll(base: string, requests: readonly HttpRequest[]): Promise<HttpResponse[]> {
  return Promise.all(
    requests.map((request) =>
      send(base, request, CLIENT_TIMEOUT_MS).catch(
        (error: unknown): HttpResponse => ({
          request,
          status: 0,
          headers: {},
          text: `no answer: ${(error as Error).message}`,
          json: undefined,
          ms: CLIENT_TIMEOUT_MS,
        }),
      ),
    ),
  );
}

/** Resolves with true when `promise` settles within `ms`, false otherwise (the promise keeps running). */
function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([
    promise.then(
      () => true,
      () => true,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

function assertUnavailable(response: HttpResponse): void {
  assert.equal(response.status, 503, describeResponse(response));
  assert.equal((response.json as { code?: unknown }).code, 'service_unavailable', describeResponse(response));
  assert.match(
    String(response.headers['retry-after']),
    /^\d+$/,
    `Retry-After: ${describeResponse(response)}`,
  );
  assert.ok(
    response.ms < ANSWER_WITHIN_MS,
    `answered after ${Math.round(response.ms)} ms: ${describeResponse(response)}`,
  );
}

async function waitUntilReady(base: string, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  let last: HttpResponse | undefined;
  while (Date.now() < deadline) {
    last = await send(base, { method: 'GET', path: '/health/ready' }, 5_000);
    if (last.status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  assert.fail(
    `the app did not become ready again: ${last === undefined ? 'no answer' : describeResponse(last)}`,
  );
}

describe('database outage on a private PostgreSQL server', requirePrivatePostgres(), () => {
  let postgres: PrivatePostgres;
  let blog: Awaited<ReturnType<typeof createBlogApp>>;
  let server: TestServer;
  let token: string;

  before(async () => {
    postgres = await PrivatePostgres.start();
    blog = await createBlogApp(
      {
        host: '127.0.0.1',
        port: 0,
        databaseUrl: postgres.url(),
        jwtSecret: SECRET,
        admin: undefined,
        production: false,
      },
      quietLogger,
    );
    server = await serve(blog.app.callback());
    const registered = await send(server.url, {
      method: 'POST',
      path: '/register',
      json: { username: 'survivor', email: 'survivor@example.com', password: 'survivor password' },
    });
    assert.equal(registered.status, 201, describeResponse(registered));
    token = blog.auth.tokens.issue(String(objectOf(registered).id)).access_token;
  });

  after(async () => {
    await server?.close();
    // Bounded: closing MikroORM with queries stuck on a frozen server never finishes (see the last case).
    if (blog !== undefined) await settlesWithin(blog.app.close(), 5_000);
    await postgres?.destroy();
  });

  it('serves normally before the outage', async () => {
    for (const response of await sendAll(server.url, traffic(token, 0))) {
      assert.ok(response.status < 300, describeResponse(response));
    }
    assert.equal((await send(server.url, { method: 'GET', path: '/health/ready' })).status, 200);
  });

  it('server stopped: 503 with Retry-After within 5 s, live 200, ready 503', async () => {
    await postgres.stopServer('fast');
    for (const response of await sendAll(server.url, traffic(token, 1))) assertUnavailable(response);
    const [live, ready] = await sendAll(server.url, [
      { method: 'GET', path: '/health/live' },
      { method: 'GET', path: '/health/ready' },
    ]);
    assert.equal(live?.status, 200, 'the process is alive');
    assertUnavailable(ready as HttpResponse);
    // The app keeps answering while the server stays away.
    for (const response of await sendAll(server.url, traffic(token, 2))) assertUnavailable(response);
  });

  it('server started again: requests succeed without restarting the app', async () => {
    await postgres.startServer();
    await waitUntilReady(server.url, 15_000);
    for (const response of await sendAll(server.url, traffic(token, 3))) {
      assert.ok(response.status < 300, `after recovery: ${describeResponse(response)}`);
    }
  });

  it('server crashed (immediate stop) and back: 503 while down, served after', async () => {
    await postgres.stopServer('immediate');
    for (const response of await sendAll(server.url, traffic(token, 4))) assertUnavailable(response);
    await postgres.startServer();
    await waitUntilReady(server.url, 15_000);
    for (const response of await sendAll(server.url, traffic(token, 5))) {
      assert.ok(response.status < 300, `after the crash: ${describeResponse(response)}`);
    }
  });

  it('server frozen (network partition): 503 with Retry-After within 5 s, no hang; served after thawing', async () => {
    postgres.signalAll('SIGSTOP');
    let answers: HttpResponse[];
    try {
      answers = await sendAll(server.url, [
        { method: 'GET', path: '/health/live' },
        ...traffic(token, 6),
        { method: 'GET', path: '/health/ready' },
      ]);
    } finally {
      postgres.signalAll('SIGCONT');
    }
    // Whatever the outcome, let the app recover before judging, so the next cases start clean.
    await waitUntilReady(server.url, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const [live, ...responses] = answers;
    assert.equal(live?.status, 200, 'the process is alive');
    for (const response of responses) assertUnavailable(response);
    for (const response of await sendAll(server.url, traffic(token, 7))) {
      assert.ok(response.status < 300, `after thawing: ${describeResponse(response)}`);
    }
  });

  it('closing the app while the server is frozen ends within its shutdown deadline', async () => {
    // An app of its own on the same adapter, with a short deadline; closing it closes the adapter (last case).
    const app = new Application({
      title: 'Outage close',
      adapter: blog.adapter,
      logger: quietLogger,
      shutdownTimeoutMs: 1_000,
    });
    new CrudRouter({ model: Category }).register_routes(app);
    const listening = await app.listen(0, '127.0.0.1');
    const { port } = listening.address() as AddressInfo;
    postgres.signalAll('SIGSTOP');
    let closed: boolean;
    try {
      const pending = send(
        `http://127.0.0.1:${port}`,
        { method: 'POST', path: '/categories', json: { name: 'stuck' } },
        10_000,
      ).catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
      closed = await settlesWithin(app.close(), 1_000 + 3_000);
      void pending;
    } finally {
      postgres.signalAll('SIGCONT');
    }
    assert.ok(
      closed,
      'Application.close() did not finish within shutdownTimeoutMs + 3 s while the database was frozen',
    );
  });
});
