/**
 * Requests Node's HTTP parser refuses before any middleware runs are answered by the server
 * `Application.listen` starts with problem details from the catalogue, like every other error.
 */
import assert from 'node:assert/strict';
import { type AddressInfo, connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { MemoryAdapter } from '../../../adapters/memory/index.js';
import { Application, type Logger } from '../../../lib/index.js';
import { type ListeningBlog, listenBlog } from '../../support/listening-blog.js';

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };

/** Writes raw bytes and reads everything the server sends until it closes. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('close', () => resolve(received));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve(received) : reject(error),
    );
  });
}

/** The status and the parsed problem body of a raw answer. */
function problemOf(answer: string): { status: number; type: string; body: Record<string, unknown> } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const type = /content-type: ([^\r]+)/i.exec(head)?.[1] ?? '';
  return { status: Number(head.split(' ')[1]), type, body: JSON.parse(body) as Record<string, unknown> };
}

describe('requests the HTTP parser refuses', () => {
  let blog: ListeningBlog['blog'];
  let port: number;

  before(async () => {
    ({ blog, port } = await listenBlog('client-errors-suite-secret-of-more-than-32-bytes', quiet));
  });

  after(async () => {
    await blog?.app.close();
  });

  for (const [name, bytes] of [
    ['a malformed request line', 'HELLO THERE\r\n\r\n'],
    [
      'two different Content-Length headers',
      'POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
    ],
    [
      'Content-Length beside Transfer-Encoding',
      'POST /login HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
  ] as const) {
    it(`${name}: 400 bad_request as problem details`, async () => {
      const answer = problemOf(await exchange(port, bytes));
      assert.equal(answer.status, 400);
      assert.match(answer.type, /application\/problem\+json/);
      assert.equal(answer.body.code, 'bad_request');
      assert.equal(answer.body.status, 400);
    });
  }

  it('headers beyond what Node reads: 431 header_fields_too_large', async () => {
    const answer = problemOf(
      await exchange(port, `GET /categories HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    );
    assert.equal(answer.status, 431);
    assert.equal(answer.body.code, 'header_fields_too_large');
  });

  it('chunk extensions beyond what Node reads: 413 payload_too_large', async () => {
    const answer = problemOf(
      await exchange(
        port,
        'POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
          `2;${'e'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
      ),
    );
    assert.equal(answer.status, 413);
    assert.equal(answer.body.code, 'payload_too_large');
  });

  it('still serves a well-formed request on a new connection', async () => {
    const answer = await exchange(port, 'GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    assert.match(answer, /^HTTP\/1\.1 200 /);
  });
});

describe('a request whose headers do not arrive in time', () => {
  it('408 request_timeout as problem details, and the connection is closed', async () => {
    const app = new Application({
      title: 'timeouts',
      adapter: new MemoryAdapter({ models: [] }),
      logger: quiet,
      headersTimeoutMs: 300,
      requestTimeoutMs: 300,
    });
    const server = await app.listen(0, '127.0.0.1');
    try {
      const { port } = server.address() as AddressInfo;
      const answer = problemOf(await exchange(port, 'GET /health/live HTTP/1.1\r\nHost: x\r\n'));
      assert.equal(answer.status, 408);
      assert.equal(answer.body.code, 'request_timeout');
    } finally {
      await app.close();
    }
  });
});
