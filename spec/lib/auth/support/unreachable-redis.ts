/** A Redis client for throttle-store outages: nobody listens on its port. */
import { Redis } from 'ioredis';

/** An ioredis client of a port nobody listens on, that fails its first command without retrying; `disconnect()` it. */
export function unreachableRedis(): Redis {
  const client = new Redis('redis://127.0.0.1:1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // The refused connection is the point; unhandled, ioredis would print it.
  client.on('error', () => {});
  return client;
}
