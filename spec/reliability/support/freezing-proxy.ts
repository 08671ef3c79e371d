/**
 * A TCP proxy a test puts between the app and a shared database server, to freeze that server for
 * the app alone: while frozen, bytes and connection ends in both directions are held (new
 * connections are accepted, as a stopped server's kernel does, but get no greeting), so the app
 * sees a server that stopped answering — as a SIGSTOP or a network partition would show it —
 * without stopping a server other tests use. Thawed, everything held is delivered.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

/** A started proxy: its address, and the switch. */
export interface FreezingProxy {
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;
  /** Stops forwarding anything, both ways, until `thaw()`. */
  freeze(): void;
  /** Forwards again, starting with what was held. */
  thaw(): void;
  /** Closes the listener and every connection. */
  close(): Promise<void>;
}

/** Starts a proxy on a random loopback port to `host:port`. */
export async function startFreezingProxy(host: string, port: number): Promise<FreezingProxy> {
  let frozen = false;
  const sockets = new Set<Socket>();
  // Sockets to destroy at thaw: their peer went away while frozen, which the other side must not see yet.
  const held: Socket[] = [];
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A reset from either side only ends this pair; it must not crash the test.
    socket.on('error', () => socket.destroy());
    if (frozen) socket.pause();
  };
  // By hand, not pipe(): pipe() resumes a source on its destination's 'drain', frozen or not. A
  // paused socket emits neither data nor its end: both wait in the kernel while frozen.
  const forward = (from: Socket, to: Socket): void => {
    from.on('data', (chunk) => to.write(chunk));
    from.on('end', () => to.end());
    from.on('close', () => (frozen ? held.push(to) : to.destroy()));
  };
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    track(client);
    track(upstream);
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    freeze() {
      frozen = true;
      for (const socket of sockets) socket.pause();
    },
    thaw() {
      frozen = false;
      for (const socket of sockets) socket.resume();
      for (const socket of held.splice(0)) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
