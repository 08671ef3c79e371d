/**
 * Redis throttle store, for several instances behind one load balancer: each counter is one
 * Redis key updated by a Lua script, so counting and starting the window are atomic. `ioredis`
 * is an optional peer dependency, imported only when the store builds its own client.
 */
import { RedisConnection, type RedisLike } from '../redis-connection.js';
import type { ThrottleHit, ThrottleStore } from './store.js';

export type { RedisLike } from '../redis-connection.js';

/** Options of `RedisThrottleStore`: a client you manage, or a URL the store connects to. */
export interface RedisThrottleStoreOptions {
  /** An ioredis client; you close it yourself. */
  readonly client?: RedisLike;
  /** `redis://host:port/db`; the store connects lazily and `close()` disconnects. */
  readonly url?: string;
  /** Key prefix (default `kma:throttle:`). */
  readonly prefix?: string;
}

const HIT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

const UNDO = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0`;

/** A throttle store shared by every instance that uses the same Redis. */
export class RedisThrottleStore implements ThrottleStore {
  /** Prefix of every key the store writes. */
  readonly prefix: string;
  readonly #redis: RedisConnection;

  constructor(options: RedisThrottleStoreOptions) {
    this.#redis = new RedisConnection('RedisThrottleStore', options);
    this.prefix = options.prefix ?? 'kma:throttle:';
  }

  async hit(key: string, windowSeconds: number): Promise<ThrottleHit> {
    const redis = await this.#redis.client();
    const reply = (await redis.eval(HIT, 1, this.prefix + key, Math.ceil(windowSeconds * 1000))) as [
      number,
      number,
    ];
    const [count, ttl] = reply;
    return { count: Number(count), retryAfterSeconds: Math.max(1, Math.ceil(Number(ttl) / 1000)) };
  }

  async undo(key: string): Promise<void> {
    const redis = await this.#redis.client();
    await redis.eval(UNDO, 1, this.prefix + key);
  }

  async reset(key: string): Promise<void> {
    const redis = await this.#redis.client();
    await redis.del(this.prefix + key);
  }

  /** Disconnects the client the store made itself (a client you passed is left open). */
  async close(): Promise<void> {
    await this.#redis.close();
  }
}
