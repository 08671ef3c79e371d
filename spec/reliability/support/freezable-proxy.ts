/**
 * A TCP proxy a test controls, between a connection pool and a real database server: it forwards
 * both ways until frozen, then holds every byte and every close either side sends until thawed,
 * as a stopped server (SIGSTOP) or a network partition does. The server itself is never touched,
 * so other tests keep using it.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A running proxy to one server. */
export class FreezableProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  /** Closes that came while frozen, carried out at the thaw. */
  #held: (() => void)[] = [];
  #frozen = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Starts a proxy on a free loopback port to `host:port`. */
  static async start(host: string, port: number): Promise<FreezableProxy> {
    const server = createServer();
    const proxy = new FreezableProxy(server);
    server.on('connection', (client) => proxy.#join(client, connect(port, host)));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    return proxy;
  }

  /** The loopback port clients connect to. */
  get port(): number {
    const address = this.#server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  /** Stops forwarding: what either side sends (data or a close) waits until `thaw()`. */
  freeze(): void {
    this.#frozen = true;
    for (const socket of this.#sockets) socket.pause();
  }

  /** Forwards again, beginning with what was held. */
  thaw(): void {
    this.#frozen = false;
    for (const socket of this.#sockets) socket.resume();
    const held = this.#held;
    this.#held = [];
    // After the held data, which a resumed socket emits on the next tick.
    setImmediate(() => {
      for (const close of held) close();
    });
  }

  /** Closes every forwarded connection and stops listening. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // A paused socket emits neither its data nor its end: both wait in its buffer for the thaw. A reset
  // may still surface (the socket reads ahead): its close waits too.
  #join(client: Socket, upstream: Socket): void {
    const later = (close: () => void) => (this.#frozen ? this.#held.push(close) : close());
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      this.#sockets.add(from);
      if (this.#frozen) from.pause();
      from.on('data', (chunk: Buffer) => to.write(chunk));
      from.on('end', () => to.end());
      from.on('error', () => later(() => to.destroy()));
      from.on('close', () => {
        this.#sockets.delete(from);
        later(() => to.destroy());
      });
    }
  }
}
