/**
 * `Application`: a Koa 3 app with the framework's error boundary, one route group per first path
 * segment (so dispatch cost does not grow with the number of models), `/openapi.json`, health
 * endpoints, and a graceful `close()`.
 */
import { createServer, type Server } from 'node:http';
import Koa, { type Middleware, type Next } from 'koa';
import { PlanDirectory } from './crud/plan-directory.js';
import { ConfigurationError } from './errors.js';
import { DEFAULT_BODY_LIMIT } from './http/body.js';
import { answerClientError } from './http/client-errors.js';
import { healthRoutes } from './http/health.js';
import { consoleLogger, type Logger, problemMiddleware, securityHeaders } from './http/problem-middleware.js';
import { routeGroup } from './http/route-group.js';
import { useAdapter } from './http/session.js';
import type { OpenApiInfo } from './openapi/document.js';
import { OpenApiRegistry } from './openapi/registry.js';
import type { AppContext, AppState, ModelClass, ModelDescription, OrmAdapter } from './types.js';

/** Options of `Application`. */
export interface ApplicationOptions {
  /** The API's title (OpenAPI `info.title`). */
  readonly title: string;
  /** The ORM adapter every router of this application uses. */
  readonly adapter: OrmAdapter;
  /** The API's version (OpenAPI `info.version`), default `1.0.0`. */
  readonly version?: string;
  /** The API's description (OpenAPI `info.description`). */
  readonly description?: string;
  /** The license the API is offered under (OpenAPI `info.license`). */
  readonly license?: OpenApiInfo['license'];
  /** Who answers for the API (OpenAPI `info.contact`). */
  readonly contact?: OpenApiInfo['contact'];
  /** Where the API is served (OpenAPI `servers`); default the origin that serves the document. */
  readonly servers?: OpenApiInfo['servers'];
  /** Largest request body in bytes, default 1 MiB. */
  readonly bodyLimit?: number;
  /** Where to log; default the console. */
  readonly logger?: Logger;
  /** Trust `X-Forwarded-*` headers (only behind a proxy you run). Default false. */
  readonly proxy?: boolean;
  /**
   * With `proxy`: how many proxies of yours append to `X-Forwarded-For` (AWS ALB, nginx's
   * `$proxy_add_x_forwarded_for`). The client's address is then the one that many entries from the
   * right; the entries before it are the client's own, which it may forge. Default: the header's
   * first entry, right only behind a proxy that replaces the header.
   */
  readonly proxyHops?: number;
  /** Serve `/health/live` and `/health/ready`. Default true. */
  readonly health?: boolean;
  /** How long `close()` waits for in-flight requests and then for the adapter, in ms. Default 10 000. */
  readonly shutdownTimeoutMs?: number;
  /** How long a client may take to send the request headers, in ms (slow-header attacks). Default 10 000. */
  readonly headersTimeoutMs?: number;
  /** How long a client may take to send the whole request, in ms. Default 30 000. */
  readonly requestTimeoutMs?: number;
}

/** Where `listen`/`run` bind. */
export interface ListenOptions {
  /** TCP port; default 8000. */
  readonly port?: number;
  /** Interface to bind; default `127.0.0.1` (loopback only). */
  readonly host?: string;
}

/** How much of the paths under it a claimed path answers (`Application.reservePath`). */
export type PathKind = 'page' | 'leaf' | 'resource';

interface PathClaim {
  readonly path: string;
  readonly owner: string;
  readonly kind: PathKind;
}

/** Whether `inner` is `outer` or below it. */
function within(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(`${outer}/`);
}

/** Whether the earlier claim answers requests of the later one. */
function shadows(earlier: PathClaim, later: PathClaim): boolean {
  if (earlier.path === later.path) return true;
  if (earlier.kind === 'page') return within(later.path, earlier.path);
  if (earlier.kind === 'leaf') return false;
  // A resource answers its `/{id}`: a path one segment below it.
  const rest = later.path.startsWith(`${earlier.path}/`)
    ? later.path.slice(earlier.path.length + 1)
    : undefined;
  return rest !== undefined && !rest.includes('/');
}

/**
 * The application: wraps a Koa 3 app (`app.koa`).
 *
 * @example
 * const app = new Application({ title: 'Blog', adapter });
 * new CrudRouter({ model: Post }).register_routes(app);
 * await app.run(); // http://127.0.0.1:8000
 */
export class Application {
  /** The Koa app: add your own middleware with `app.koa.use(...)`. */
  readonly koa: Koa<AppState>;
  /** The API's title, as given in the options. */
  readonly title: string;
  /** The ORM adapter every router registered on this application uses. */
  readonly adapter: OrmAdapter;
  /** Contributions to `/openapi.json`. */
  readonly openapi: OpenApiRegistry;
  /** Largest request body in bytes. */
  readonly bodyLimit: number;
  /** Where the application and its plugins log. */
  readonly logger: Logger;
  /** Path of the OpenAPI document. */
  readonly openapiPath = '/openapi.json';
  /** The routers' plans by model: where relations find the router of their target. */
  readonly plans = new PlanDirectory();
  private readonly groups = new Map<string, Middleware<AppState>>();
  // The paths each part of the application answers under: one may not shadow another.
  private readonly reserved: PathClaim[] = [];
  private readonly descriptions = new Map<ModelClass, ModelDescription>();
  private readonly shutdownTimeoutMs: number;
  private readonly headersTimeoutMs: number;
  private readonly requestTimeoutMs: number;
  private server: Server | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: ApplicationOptions) {
    if (typeof options?.title !== 'string' || options.title.trim() === '') {
      throw new ConfigurationError('Application needs a non-empty `title`.');
    }
    if (options.adapter === undefined || typeof options.adapter.describe !== 'function') {
      throw new ConfigurationError(
        'Application needs an `adapter` (e.g. await MikroOrmAdapter.connect({ url, entities })).',
      );
    }
    const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    if (!Number.isInteger(bodyLimit) || bodyLimit <= 0) {
      throw new ConfigurationError('Application `bodyLimit` must be a positive number of bytes.');
    }
    this.title = options.title;
    this.adapter = options.adapter;
    this.bodyLimit = bodyLimit;
    this.logger = options.logger ?? consoleLogger;
    this.shutdownTimeoutMs = positiveMs(options.shutdownTimeoutMs, 10_000, 'shutdownTimeoutMs');
    this.headersTimeoutMs = positiveMs(options.headersTimeoutMs, 10_000, 'headersTimeoutMs');
    this.requestTimeoutMs = positiveMs(options.requestTimeoutMs, 30_000, 'requestTimeoutMs');
    if (this.requestTimeoutMs < this.headersTimeoutMs) {
      throw new ConfigurationError('Application `requestTimeoutMs` must be at least `headersTimeoutMs`.');
    }
    this.openapi = new OpenApiRegistry({
      title: options.title,
      ...(options.version === undefined ? {} : { version: options.version }),
      ...(options.description === undefined ? {} : { description: options.description }),
      ...(options.license === undefined ? {} : { license: options.license }),
      ...(options.contact === undefined ? {} : { contact: options.contact }),
      ...(options.servers === undefined ? {} : { servers: options.servers }),
    });
    const hops = options.proxyHops;
    if (hops !== undefined && (!Number.isInteger(hops) || hops < 1 || options.proxy !== true))
      throw new ConfigurationError(
        'Application: proxyHops must be a whole number from 1, given with proxy: true (how many proxies of yours append to X-Forwarded-For).',
      );
    this.koa = new Koa<AppState>({
      proxy: options.proxy ?? false,
      ...(hops === undefined ? {} : { maxIpsCount: hops }),
    });
    this.koa.silent = true;
    useAdapter(this.koa as unknown as Koa, this.adapter);
    this.koa.use(problemMiddleware(this.logger));
    this.koa.use(securityHeaders());
    this.koa.use(this.dispatch());
    this.reservePath(this.openapiPath, 'the OpenAPI document', { kind: 'leaf' });
    this.mount(
      'openapi.json',
      routeGroup('', [
        {
          method: 'GET',
          path: '/openapi.json',
          handler: async (ctx) => {
            ctx.type = 'application/json';
            ctx.body = this.openapi.json();
          },
        },
      ]),
    );
    if (options.health ?? true) {
      for (const check of ['/health/live', '/health/ready'])
        this.reservePath(check, 'the health checks', { kind: 'leaf' });
      this.mount('health', healthRoutes(this.adapter));
    }
  }

  /**
   * Claims `path` for `owner`: a `ConfigurationError` when one would shadow the other. A `page`
   * (Swagger UI, your own) answers everything under its path and shares none of it; a `leaf`
   * (the document, a health check, an auth route) answers its path alone; a `resource` (each
   * `CrudRouter`) answers its path and one segment below it (`/{id}`), so one registered inside
   * another's `/{id}` after it would never be reached.
   */
  reservePath(path: string, owner: string, options: { readonly kind?: PathKind } = {}): void {
    const claim: PathClaim = { path: path.replace(/\/+$/, ''), owner, kind: options.kind ?? 'page' };
    for (const other of this.reserved) {
      if (other.owner === claim.owner && other.path === claim.path) return;
      if (shadows(other, claim) || (claim.kind === 'page' && within(other.path, claim.path))) {
        throw new ConfigurationError(
          `${owner} at ${claim.path || '/'} would share its path with ${other.owner} at ${other.path || '/'}, and one would shadow the other: give the router a \`prefix\`, or the page another \`path\`.`,
        );
      }
    }
    this.reserved.push(claim);
  }

  /** The model description of a model, introspected once. */
  describe(model: ModelClass): ModelDescription {
    let description = this.descriptions.get(model);
    if (description === undefined) {
      description = this.adapter.describe(model);
      this.descriptions.set(model, description);
    }
    return description;
  }

  /**
   * Routes every request whose first path segment is `segment` to `middleware` (after those
   * mounted before on the same segment). Routers call this; so can you.
   */
  mount(segment: string, middleware: Middleware<AppState>): void {
    if (segment.includes('/'))
      throw new ConfigurationError(`mount: "${segment}" is not a single path segment.`);
    const previous = this.groups.get(segment);
    this.groups.set(
      segment,
      previous === undefined
        ? middleware
        : (ctx: AppContext, next: Next) => previous(ctx, () => middleware(ctx, next)),
    );
  }

  /** The dispatcher: one map lookup on the first path segment. */
  private dispatch(): Middleware<AppState> {
    return (ctx: AppContext, next: Next) => {
      const path = ctx.path;
      const end = path.indexOf('/', 1);
      const group = this.groups.get(end === -1 ? path.slice(1) : path.slice(1, end));
      return group === undefined ? next() : group(ctx, next);
    };
  }

  /** A Node.js request listener (for `http.createServer` or test clients). */
  callback(): ReturnType<Koa['callback']> {
    return this.koa.callback();
  }

  /** Starts listening; resolves with the server once it is bound. Default `127.0.0.1:8000`. */
  async listen(port = 8000, host = '127.0.0.1'): Promise<Server> {
    if (this.server !== undefined) throw new ConfigurationError('Application is already listening.');
    // Slow clients cannot hold a connection open (slowloris): Node checks the timeouts every
    // `connectionsCheckingInterval`, 30 s by default, so check often enough to honour them.
    const server = createServer(
      {
        headersTimeout: this.headersTimeoutMs,
        requestTimeout: this.requestTimeoutMs,
        connectionsCheckingInterval: Math.min(1_000, this.headersTimeoutMs),
        keepAliveTimeout: 5_000,
      },
      this.callback(),
    );
    server.on('clientError', answerClientError);
    server.listen({ port, host });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    return server;
  }

  /**
   * Listens (on `HOST`/`PORT` from the options, default `127.0.0.1:8000`) and closes gracefully
   * on SIGTERM or SIGINT.
   */
  async run(options: ListenOptions = {}): Promise<Server> {
    const server = await this.listen(options.port ?? 8000, options.host ?? '127.0.0.1');
    const stop = (signal: string): void => {
      this.logger.info(`${signal} received: closing`);
      this.close().then(
        () => process.exit(0),
        (error: unknown) => {
          this.logger.error('shutdown failed', error);
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
    return server;
  }

  /** Graceful: stops accepting, lets in-flight requests finish (bounded), then closes the adapter. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    const server = this.server;
    if (server !== undefined) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Requests that arrive on a kept-alive socket after this are told the socket closes.
      server.on('request', (_req, res) => res.setHeader('Connection', 'close'));
      // A socket whose in-flight response ends after this turns idle: closed within a sweep rather
      // than after the keep-alive timeout (5 s), which would hold the process that long. A sweep
      // during shutdown only, so that serving requests costs nothing for it.
      const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      sweep.unref();
      const deadline = setTimeout(() => server.closeAllConnections(), this.shutdownTimeoutMs);
      deadline.unref();
      await closed;
      clearInterval(sweep);
      clearTimeout(deadline);
    }
    // A database that stopped answering must not hold the process: the adapter gets the same deadline.
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.logger.warn(`adapter did not close within ${this.shutdownTimeoutMs} ms; giving up on it`);
        resolve();
      }, this.shutdownTimeoutMs);
      timer.unref();
    });
    try {
      await Promise.race([this.adapter.close(), expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** How often a closing server closes the sockets that turned idle since the last look. */
const IDLE_SWEEP_MS = 50;

/** A positive whole number of milliseconds from the options, or the default. */
function positiveMs(value: number | undefined, fallback: number, name: string): number {
  const ms = value ?? fallback;
  if (!Number.isInteger(ms) || ms <= 0)
    throw new ConfigurationError(`Application \`${name}\` must be a positive number of ms.`);
  return ms;
}
