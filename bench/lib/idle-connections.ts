/** Opens many keep-alive connections that each made one request and then sit idle, for the memory scenario. */
import { connect, type Socket } from 'node:net';

/** Opens `count` connections in batches; each sends one GET and waits for its answer. Returns them open. */
export async function openIdleConnections(port: number, path: string, count: number): Promise<Socket[]> {
  const sockets: Socket[] = [];
  const request = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`;
  const BATCH = 100;
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from(
      { length: Math.min(BATCH, count - start) },
      () =>
        new Promise<Socket>((resolveSocket, reject) => {
          const socket = connect(port, '127.0.0.1', () => socket.write(request));
          socket.once('data', () => resolveSocket(socket));
          socket.once('error', reject);
        }),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

/** Closes connections opened by `openIdleConnections`. */
export function closeAll(sockets: readonly Socket[]): void {
  for (const socket of sockets) socket.destroy();
}
