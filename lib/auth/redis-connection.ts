/**
 * The Redis connection of a store (throttle counters, refresh tokens): a client the user manages,
 * or one the store makes lazily from a URL and closes itself. `ioredis` is an optional peer
 * dependency, imported only when a URL is given.
 */
import { ConfigurationError } from '../errors.js';

/** The part of an ioredis client a store uses (an `ioredis` `Redis` or `Cluster` fits). */
export interface RedisLike {
  /** Runs a Lua script atomically (`EVAL`). */
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** Deletes keys (`DEL`). */
  del(...keys: string[]): Promise<number>;
  /** Closes the connection once pending replies arrive (`QUIT`). */
  quit(): Promise<unknown>;
}

/** A store's Redis client, checked when the store is created. */
export class RedisConnection {
  readonly #store: string;
  readonly #url: string | undefined;
  readonly #owned: boolean;
  #client: Promise<RedisLike> | undefined;

  /** `store` names the store in error messages (e.g. `RedisThrottleStore`). */
  constructor(store: string, options: { readonly client?: RedisLike; readonly url?: string }) {
    if ((options?.client === undefined) === (options?.url === undefined)) {
      throw new ConfigurationError(`${store} needs exactly one of \`client\` or \`url\`.`);
    }
    if (options.url !== undefined && !/^rediss?:\/\//.test(options.url)) {
      throw new ConfigurationError(`${store} url must start with redis:// or rediss://, got ${options.url}.`);
    }
    this.#store = store;
    this.#url = options.url;
    this.#owned = options.client === undefined;
    if (options.client !== undefined) this.#client = Promise.resolve(options.client);
  }

  /** The client, connecting on first use when the store was given a URL. */
  client(): Promise<RedisLike> {
    this.#client ??= this.#connect(this.#url as string);
    return this.#client;
  }

  /** Disconnects the client the store made itself (a client the user passed is left open). */
  async close(): Promise<void> {
    if (!this.#owned || this.#client === undefined) return;
    const pending = this.#client;
    this.#client = undefined;
    await (await pending).quit();
  }

  async #connect(url: string): Promise<RedisLike> {
    let module: { Redis: new (url: string, options: Record<string, unknown>) => OwnedClient };
    try {
      module = (await import('ioredis')) as unknown as typeof module;
    } catch {
      throw new ConfigurationError(`${this.#store} needs the \`ioredis\` package: npm install ioredis.`);
    }
    // Fail fast instead of queueing logins or refreshes while Redis is away.
    const client = new module.Redis(url, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      lazyConnect: false,
    });
    // Each command that needs Redis fails on its own (a 503); the connection's errors, which
    // ioredis would print as unhandled on every retry, are told once per outage.
    let told = false;
    client.on('error', (error: unknown) => {
      if (told) return;
      told = true;
      process.emitWarning(
        `koa-model-api: ${this.#store} cannot reach Redis (${error instanceof Error ? error.message : String(error)}); what needs it answers 503 until it is back.`,
        { code: 'KMA_REDIS_UNREACHABLE' },
      );
    });
    client.on('ready', () => {
      told = false;
    });
    return client;
  }
}

/** The client the store makes itself: it also listens to the connection's events. */
type OwnedClient = RedisLike & { on(event: string, listener: (...args: unknown[]) => void): unknown };
