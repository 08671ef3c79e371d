/**
 * Refresh tokens in Redis, for several instances without a table of their own. Each record is a
 * JSON string under `<prefix>t:<id>` that expires with the token; a family's ids and a user's
 * families are sets. Every change is one Lua script, so the claim of a rotation (`SET NX`) and the
 * bookkeeping happen atomically. A single Redis (or a primary with replicas) only: the scripts
 * touch keys of several hash slots, which Redis Cluster refuses.
 */
import { ApiError } from '../../errors.js';
import { RedisConnection, type RedisLike } from '../redis-connection.js';
import type { RefreshRecord, RefreshTokenStore, StoreScope } from './store.js';

/** Options of `RedisRefreshStore`: a client you manage, or a URL the store connects to. */
export interface RedisRefreshStoreOptions {
  /** An ioredis client; you close it yourself. */
  readonly client?: RedisLike;
  /** `redis://host:port/db`; the store connects lazily and `close()` disconnects. */
  readonly url?: string;
  /** Key prefix (default `kma:refresh:`). */
  readonly prefix?: string;
}

/** How long a record outlives its expiry. */
const EXPIRED_GRACE_MS = 24 * 3600 * 1000;

// KEYS: record, family set, user set. ARGV: json, ttl ms, id, family.
const INSERT = `
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[2])
redis.call('SADD', KEYS[3], ARGV[4])
redis.call('PEXPIRE', KEYS[3], ARGV[2])
return 1`;

const FIND = `return redis.call('GET', KEYS[1])`;

// KEYS: family set. ARGV: record key prefix.
const REVOKE_FAMILY = `
local ids = redis.call('SMEMBERS', KEYS[1])
for _, id in ipairs(ids) do redis.call('DEL', ARGV[1] .. id) end
redis.call('DEL', KEYS[1])
return #ids`;

// KEYS: user set. ARGV: record key prefix, family key prefix.
const REVOKE_USER = `
local families = redis.call('SMEMBERS', KEYS[1])
for _, family in ipairs(families) do
  local ids = redis.call('SMEMBERS', ARGV[2] .. family)
  for _, id in ipairs(ids) do redis.call('DEL', ARGV[1] .. id) end
  redis.call('DEL', ARGV[2] .. family)
end
redis.call('DEL', KEYS[1])
return #families`;

/** A refresh-token store shared by every instance that uses the same Redis. */
export class RedisRefreshStore implements RefreshTokenStore {
  readonly kind = 'redis';
  /** Prefix of every key the store writes. */
  readonly prefix: string;
  readonly #redis: RedisConnection;

  constructor(options: RedisRefreshStoreOptions) {
    this.#redis = new RedisConnection('RedisRefreshStore', options);
    this.prefix = options.prefix ?? 'kma:refresh:';
  }

  async insert(_scope: StoreScope, record: RefreshRecord): Promise<boolean> {
    // Kept a day past expiry, so a late token is told `refresh_token_expired` rather than unknown.
    const ttl = Math.max(1, Math.ceil(record.expiresAt - Date.now()) + EXPIRED_GRACE_MS);
    const reply = await this.#eval(
      INSERT,
      3,
      this.key('t', record.id),
      this.key('f', record.family),
      this.key('u', record.user),
      JSON.stringify(record),
      ttl,
      record.id,
      record.family,
    );
    return Number(reply) === 1;
  }

  async find(_scope: StoreScope, id: string): Promise<RefreshRecord | undefined> {
    const reply = await this.#eval(FIND, 1, this.key('t', id));
    if (typeof reply !== 'string') return undefined;
    const value = JSON.parse(reply) as RefreshRecord;
    return value;
  }

  async revokeFamily(_scope: StoreScope, family: string): Promise<void> {
    await this.#eval(REVOKE_FAMILY, 1, this.key('f', family), this.key('t', ''));
  }

  async revokeUser(_scope: StoreScope, user: string): Promise<void> {
    await this.#eval(REVOKE_USER, 1, this.key('u', user), this.key('t', ''), this.key('f', ''));
  }

  /** Disconnects the client the store made itself (a client you passed is left open). */
  async close(): Promise<void> {
    await this.#redis.close();
  }

  /** Runs a script; Redis away is a 503 with `Retry-After`, as for the throttle store. */
  async #eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown> {
    const redis = await this.#redis.client();
    try {
      return await redis.eval(script, keys, ...args);
    } catch (error) {
      throw ApiError.unavailable(error, 5, 'The session store (Redis)');
    }
  }

  private key(kind: 't' | 'f' | 'u', id: string): string {
    return `${this.prefix}${kind}:${id}`;
  }
}
