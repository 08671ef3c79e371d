/**
 * Resource limits of a listening app (Application.listen: headersTimeout 10 s, requestTimeout 30 s).
 * Slow-header connections (slowloris) are cut by the server's timeouts while normal requests are
 * served; memory stays flat under oversized and compressed bodies, however many arrive at once.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '../../lib/index.js';
import { compressedBombs } from '../security/cases/input.js';
import { describeResponse, type HttpRequest, send } from '../security/support/client.js';
import { type ListeningBlog, listenBlog } from '../support/listening-blog.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const quiet: Logger = { info: () => {}, warn: () => {}, error: () => {} };
const MiB = 1024 * 1024;
/** Application.listen's headersTimeout, and the slack allowed for the cut. */
const HEADERS_TIMEOUT_MS = 10_000;
const CUT_WITHIN_MS = HEADERS_TIMEOUT_MS + 2_000;
const SLOW_CONNECTIONS = 40;

describe('limits of a listening app', () => {
  let blog: ListeningBlog['blog'];
  let base: string;
  let port: number;

  before(async () => {
    ({ blog, port } = await listenBlog('limits-suite-secret-of-more-than-32-bytes', quiet));
    base = `http://127.0.0.1:${port}`;
  });

  after(async () => {
    await blog?.app.close();
  });

  // Node checks headersTimeout every `connectionsCheckingInterval`; Application.listen sets it to 1 s.
  it('cuts slow-header connections within headersTimeout while serving normal requests', async () => {
    const opened = Date.now();
    const sockets: Socket[] = [];
    const closedAfter: Promise<number>[] = [];
    const header = `GET /categories HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(500)}`;
    let position = 0;
    for (let index = 0; index < SLOW_CONNECTIONS; index += 1) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      sockets.push(socket);
      closedAfter.push(new Promise((resolve) => socket.once('close', () => resolve(Date.now() - opened))));
    }
    // One more header byte on every connection each 250 ms: never a complete request.
    const drip = setInterval(() => {
      const byte = header[position % header.length] as string;
      position += 1;
      for (const socket of sockets) if (!socket.destroyed) socket.write(byte);
    }, 250);
    try {
      // Normal requests are served meanwhile, promptly.
      for (const at of [500, 3_000, 6_000]) {
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, at - (Date.now() - opened))));
        const response = await send(base, { method: 'GET', path: '/categories' }, 2_000);
        assert.equal(response.status, 200, describeResponse(response));
        assert.ok(
          response.ms < 1_000,
          `a normal request took ${Math.round(response.ms)} ms beside ${SLOW_CONNECTIONS} slow connections`,
        );
      }
      const remaining = CUT_WITHIN_MS + 500 - (Date.now() - opened);
      const deadline = new Promise<number>((resolve) =>
        setTimeout(() => resolve(Number.POSITIVE_INFINITY), remaining),
      );
      const cuts = await Promise.all(closedAfter.map((closed) => Promise.race([closed, deadline])));
      const open = cuts.filter((ms) => ms > CUT_WITHIN_MS).length;
      assert.equal(
        open,
        0,
        `${open} of ${SLOW_CONNECTIONS} slow-header connections were still open after ${CUT_WITHIN_MS} ms`,
      );
    } finally {
      clearInterval(drip);
      for (const socket of sockets) socket.destroy();
    }
  });

  it('keeps memory flat under many oversized and compressed bodies at once', async (t) => {
    const { gzip, deflate, br } = compressedBombs();
    const oversized = Buffer.alloc(2 * MiB + 10, 0x61);
    oversized.write('{"name":"', 0);
    oversized.write('"}', oversized.length - 2);
    const requests: HttpRequest[] = [];
    for (let round = 0; round < 8; round += 1) {
      for (const [encoding, body] of [
        ['gzip', gzip],
        ['deflate', deflate],
        ['br', br],
      ] as const) {
        requests.push({
          method: 'POST',
          path: '/categories',
          headers: { 'content-type': 'application/json', 'content-encoding': encoding },
          body,
        });
      }
      requests.push({
        method: 'POST',
        path: '/categories',
        headers: { 'content-type': 'application/json' },
        body: oversized,
      });
      requests.push({
        method: 'POST',
        path: '/categories',
        headers: { 'content-type': 'application/json' },
        body: oversized,
        chunked: true,
      });
      requests.push({
        method: 'POST',
        path: '/register',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: gzip,
      });
    }
    const sendAll = (batch: readonly HttpRequest[]) =>
      Promise.all(batch.map((request) => send(base, request)));

    // Warm-up: first use allocates zlib and parser state that stays.
    for (const response of await sendAll(requests.slice(0, 6)))
      assert.equal(response.status, 413, describeResponse(response));
    collectGarbage();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 10);
    try {
      // Eight at a time: buffering what they inflate to would need 8 × 64 MiB.
      for (let at = 0; at < requests.length; at += 8) {
        for (const response of await sendAll(requests.slice(at, at + 8)))
          assert.equal(response.status, 413, describeResponse(response));
      }
    } finally {
      clearInterval(sampler);
    }
    collectGarbage();
    const afterwards = process.memoryUsage();
    const heapGrowth = (afterwards.heapUsed - before.heapUsed) / MiB;
    const peakGrowth = (peakRss - before.rss) / MiB;
    t.diagnostic(
      `heap after GC ${heapGrowth.toFixed(1)} MiB, resident peak +${peakGrowth.toFixed(1)} MiB over ${requests.length} bodies`,
    );
    assert.ok(heapGrowth < 16, `heap grew by ${heapGrowth.toFixed(1)} MiB`);
    assert.ok(peakGrowth < 128, `resident memory peaked ${peakGrowth.toFixed(1)} MiB above the start`);
    // The app still serves.
    assert.equal((await send(base, { method: 'GET', path: '/categories' })).status, 200);
  });
});
