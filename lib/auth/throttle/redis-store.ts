/**
 * Redis throttle store, for several instances behind one load balancer: each counter is one
 * Redis key updated by a Lua script, so counting and starting the window are atomic. `ioredis`
 * is an optional peer dependency, imported only when the store builds its own client.
 */
import { ConfigurationError } from '../../errors.js';
import type { ThrottleHit, ThrottleStore } from './store.js';

/** The part of an ioredis client the store uses (an `ioredis` `Redis` or `Cluster` fits). */
export interface RedisLike {
  /** Runs a Lua script atomically (`EVAL`). */
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** Deletes keys (`DEL`). */
  del(...keys: string[]): Promise<number>;
  /** Closes the connection once pending replies arrive (`QUIT`). */
  quit(): Promise<unknown>;
}

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
  private readonly url: string | undefined;
  private client: Promise<RedisLike> | undefined;
  private readonly owned: boolean;

  constructor(options: RedisThrottleStoreOptions) {
    if ((options.client === undefined) === (options.url === undefined)) {
      throw new ConfigurationError('RedisThrottleStore needs exactly one of `client` or `url`.');
    }
    if (options.url !== undefined && !/^rediss?:\/\//.test(options.url)) {
      throw new ConfigurationError(
        `RedisThrottleStore url must start with redis:// or rediss://, got ${options.url}.`,
      );
    }
    this.prefix = options.prefix ?? 'kma:throttle:';
    this.url = options.url;
    this.owned = options.client === undefined;
    if (options.client !== undefined) this.client = Promise.resolve(options.client);
  }

  async hit(key: string, windowSeconds: number): Promise<ThrottleHit> {
    const redis = await this.connection();
    const reply = (await redis.eval(HIT, 1, this.prefix + key, Math.ceil(windowSeconds * 1000))) as [
      number,
      number,
    ];
    const [count, ttl] = reply;
    return { count: Number(count), retryAfterSeconds: Math.max(1, Math.ceil(Number(ttl) / 1000)) };
  }

  async undo(key: string): Promise<void> {
    const redis = await this.connection();
    await redis.eval(UNDO, 1, this.prefix + key);
  }

  async reset(key: string): Promise<void> {
    const redis = await this.connection();
    await redis.del(this.prefix + key);
  }

  /** Disconnects the client the store made itself (a client you passed is left open). */
  async close(): Promise<void> {
    if (!this.owned || this.client === undefined) return;
    const pending = this.client;
    this.client = undefined;
    await (await pending).quit();
  }

  private connection(): Promise<RedisLike> {
    this.client ??= this.connect(this.url as string);
    return this.client;
  }

  private async connect(url: string): Promise<RedisLike> {
    let module: { Redis: new (url: string, options: Record<string, unknown>) => RedisLike };
    try {
      module = (await import('ioredis')) as unknown as typeof module;
    } catch {
      throw new ConfigurationError('RedisThrottleStore needs the `ioredis` package: npm install ioredis.');
    }
    // Fail fast instead of queueing logins while Redis is away.
    return new module.Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
  }
}
