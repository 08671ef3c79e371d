/**
 * Graceful shutdown. The example process, sent SIGTERM while registrations (each a bcrypt hash and
 * an insert) are in flight: they all complete, a new connection is refused as soon as the signal
 * is taken, the process exits 0, and the database holds exactly the acknowledged rows, complete.
 * In-process: `Application.close()` bounds the drain by `shutdownTimeoutMs`, cutting a request that
 * never finishes, and closes idle keep-alive connections at once.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MikroOrmAdapter } from '../../adapters/mikro-orm/index.js';
import { blogEntities, Category } from '../../examples/blog/entities.js';
import { Application, CrudRouter, type Logger } from '../../lib/index.js';
import { describeResponse, type HttpResponse, send } from '../security/support/client.js';
import {
  createTestDatabase,
  type DatabaseTarget,
  requireTarget,
  serverTargets,
  type TestDatabase,
} from '../support/databases.js';
import { EXAMPLE_MAIN, type Started, startProcess, stopProcess } from './support/processes.js';

const ADMIN = {
  ADMIN_USERNAME: 'root_admin',
  ADMIN_PASSWORD: 'root admin password',
  ADMIN_EMAIL: 'root@example.com',
};
const IN_FLIGHT = 12;

/** Resolves with how a TCP connection attempt ended: `refused`, or `connected`. */
function tryConnect(base: string): Promise<'refused' | 'connected'> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', () => resolve('refused'));
  });
}

/** Tries to connect until refused; resolves with the time of the refusal, or undefined after `withinMs`. */
async function refusedWithin(base: string, withinMs: number): Promise<number | undefined> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if ((await tryConnect(base)) === 'refused') return Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

async function rowsOf(url: string): Promise<Record<string, unknown>[]> {
  const adapter = await MikroOrmAdapter.connect({ url, entities: blogEntities });
  try {
    return (await adapter.orm.em
      .getConnection()
      .execute('select * from users order by id', [], 'all')) as Record<string, unknown>[];
  } finally {
    await adapter.close();
  }
}

// SQLite file and PostgreSQL: a separate process must reach the same database.
const targets = serverTargets().filter((target): target is DatabaseTarget => target !== 'mariadb');

for (const target of targets) {
  describe(`SIGTERM to the example on ${target} during in-flight writes`, await requireTarget(target), () => {
    let database: TestDatabase;
    let started: Started | undefined;

    before(async () => {
      database = await createTestDatabase(target);
    });

    after(async () => {
      await stopProcess(started);
      await database?.drop();
    });

    it('completes the writes, refuses new connections, exits 0, leaves only whole rows', async () => {
      started = await startProcess(EXAMPLE_MAIN, {
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: database.url,
        JWT_SECRET: 'shutdown-suite-secret-of-more-than-32-bytes',
        ...ADMIN,
      });
      const base = started.base;
      const sentAt = Date.now();
      const writes = Array.from({ length: IN_FLIGHT }, (_, index) =>
        send(base, {
          method: 'POST',
          path: '/register',
          json: {
            username: `inflight_${index}`,
            email: `inflight_${index}@example.com`,
            password: `password number ${index}`,
            age: index,
          },
        }).then((response) => ({ response, at: Date.now() })),
      );
      // SIGTERM once the first write is answered: the server has read every request by then (they were
      // sent together; parsing takes microseconds, each bcrypt hash ~0.3 s), and the rest are in flight.
      await Promise.race(writes);
      started.child.kill('SIGTERM');
      const signalledAt = Date.now();
      // The process logs the signal just before it stops listening: poll rather than trust the log's timing.
      const refusedAt = await refusedWithin(base, 1_000);

      const done = await Promise.all(writes);
      const code = await started.exited;

      assert.ok(refusedAt !== undefined, 'new connections are refused within 1 s of SIGTERM');
      for (const { response } of done) assert.equal(response.status, 201, describeResponse(response));
      const lastAnswer = Math.max(...done.map(({ at }) => at));
      assert.ok(
        refusedAt < lastAnswer,
        `writes were still in flight when new connections were refused (refused ${refusedAt - signalledAt} ms after SIGTERM; last write answered ${lastAnswer - sentAt} ms after sending)`,
      );
      assert.equal(code, 0, `exit code; output:\n${started.output()}`);

      const rows = await rowsOf(database.url);
      const written = rows.filter((row) => String(row.username).startsWith('inflight_'));
      assert.equal(written.length, IN_FLIGHT, 'every acknowledged registration is stored, and nothing else');
      assert.equal(rows.length, IN_FLIGHT + 1, 'the admin and the acknowledged users only');
      for (const row of written) {
        const index = Number(String(row.username).slice('inflight_'.length));
        assert.equal(row.email, `inflight_${index}@example.com`);
        assert.equal(Number(row.age), index);
        assert.match(String(row.hashed_password), /^\$2[aby]\$12\$[./A-Za-z0-9]{53}$/, 'a whole bcrypt hash');
        assert.ok(!row.is_admin);
      }
    });
  });
}

describe('Application.close() with shutdownTimeoutMs', () => {
  const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
  let adapter: MikroOrmAdapter;
  let app: Application;
  let base: string;
  const sockets: Socket[] = [];

  before(async () => {
    adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: blogEntities,
      schema: 'create',
    });
    app = new Application({ title: 'Deadline', adapter, logger: quiet, shutdownTimeoutMs: 500 });
    new CrudRouter({ model: Category }).register_routes(app);
    const server = await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => {
    for (const socket of sockets) socket.destroy();
  });

  it('cuts a request that never finishes at the deadline, closes idle keep-alive connections, and returns', async () => {
    const url = new URL(base);
    const open = (): Promise<Socket> =>
      new Promise((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
        socket.on('error', () => {});
        sockets.push(socket);
      });
    // A body that never arrives: the request stays in flight.
    const stalled = await open();
    stalled.write(
      'POST /categories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
    );
    // A finished request on a keep-alive connection that then sits idle.
    const idle = await open();
    const answered = new Promise<string>((resolve) =>
      idle.once('data', (chunk: Buffer) => resolve(chunk.toString())),
    );
    idle.write('GET /categories HTTP/1.1\r\nHost: x\r\n\r\n');
    assert.match(await answered, /^HTTP\/1\.1 200/);
    await new Promise((resolve) => setTimeout(resolve, 100));

    const closedAt = (socket: Socket): Promise<number> =>
      new Promise((resolve) =>
        socket.destroyed ? resolve(Date.now()) : socket.once('close', () => resolve(Date.now())),
      );
    const idleClosed = closedAt(idle);
    const stalledClosed = closedAt(stalled);
    const started = Date.now();
    const closing = app.close().then(() => Date.now());
    const finished = await Promise.race([
      closing,
      new Promise<number>((resolve) => setTimeout(() => resolve(-1), 5_000)),
    ]);

    assert.ok(finished > 0, 'close() returned');
    assert.ok((await idleClosed) - started < 400, 'the idle keep-alive connection is closed at once');
    const cut = (await stalledClosed) - started;
    assert.ok(
      cut >= 400 && cut < 2_000,
      `the stalled request is cut at the 500 ms deadline (after ${cut} ms)`,
    );
    assert.ok(
      finished - started < 2_500,
      `close() returns soon after the deadline (${finished - started} ms)`,
    );
    const response: HttpResponse | string = await send(base, { method: 'GET', path: '/categories' }).catch(
      (error: Error) => error.message,
    );
    assert.equal(typeof response, 'string', 'nothing listens any more');
  });
});

describe('Application.close() with a request in flight on a kept-alive connection', () => {
  const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
  let adapter: MikroOrmAdapter;
  let app: Application;
  let base: string;
  let socket: Socket | undefined;

  before(async () => {
    adapter = await MikroOrmAdapter.connect({
      url: 'sqlite::memory:',
      entities: blogEntities,
      schema: 'create',
    });
    // A deadline far beyond Node's 5 s keep-alive timeout: only the idle sweep can close the socket early.
    app = new Application({ title: 'Keep-alive', adapter, logger: quiet, shutdownTimeoutMs: 20_000 });
    new CrudRouter({ model: Category }).register_routes(app);
    const server = await app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => socket?.destroy());

  it('answers it, then closes its socket and returns at once, not after the keep-alive timeout', async () => {
    const url = new URL(base);
    const open = await new Promise<Socket>((resolve) => {
      const opened = connect(Number(url.port), url.hostname, () => resolve(opened));
      opened.on('error', () => {});
    });
    socket = open;
    const body = '{"name":"kept alive"}';
    let received = '';
    open.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    const socketClosed = new Promise<number>((resolve) => open.once('close', () => resolve(Date.now())));
    // Half the body: the request is in flight when close() is called.
    open.write(
      `POST /categories HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    const closing = app.close().then(() => Date.now());
    await new Promise((resolve) => setTimeout(resolve, 100));
    open.write(body.slice(5));

    const closedAt = await socketClosed;
    const finished = await closing;
    assert.match(received, /^HTTP\/1\.1 201/, `the in-flight request is answered: ${received.slice(0, 200)}`);
    assert.ok(
      closedAt - started < 1_000,
      `its socket is closed soon after the answer (${closedAt - started} ms)`,
    );
    assert.ok(finished - started < 1_500, `close() returns soon after (${finished - started} ms)`);
  });
});
