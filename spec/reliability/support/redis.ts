/** Redis helpers of the multi-instance tests (ioredis is a dev dependency here). */
import { Redis } from 'ioredis';

/** Whether Redis answers: undefined when Redis at `url` answers PING; otherwise the reason. */
export async function redisUnavailable(url: string): Promise<string | undefined> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `Redis at ${url} does not answer: ${(error as Error).message}`;
  } finally {
    client.disconnect();
  }
}

/** Deletes the keys under `prefix` (the throttle counters a test made). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  try {
    await client.connect();
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
  } catch {
    // Counters expire with their window anyway.
  } finally {
    client.disconnect();
  }
}
