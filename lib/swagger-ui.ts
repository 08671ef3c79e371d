/**
 * `add_swagger_ui(app)`: Swagger UI at `/docs`, rendered by koa2-swagger-ui and fed with the
 * `swagger-ui-dist` files served by the application itself. The page loads nothing from another
 * origin: no CDN, no web fonts, no validator badge.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Context, Middleware } from 'koa';
import { ApiError, ConfigurationError } from './errors.js';
import { type LoadedAsset, SwaggerAssets } from './openapi/swagger-assets.js';

/**
 * What `add_swagger_ui` needs from an application. `Application` has both members; any host that
 * routes every request whose first path segment is `segment` to `middleware` (with `ctx.path`
 * unchanged) works.
 */
export interface SwaggerHost {
  /** Serves `middleware` under a first path segment, e.g. `docs`. */
  mount(segment: string, middleware: Middleware): void;
  /** Path of the OpenAPI document, e.g. `/openapi.json`. */
  readonly openapiPath: string;
  /** The application's title, used for the page title when the options give none. */
  readonly title?: string;
  /** Claims the page's path so that no router shadows it, or it no router (`Application` has it). */
  reservePath?(path: string, owner: string): void;
}

/** Options of `add_swagger_ui`. */
export interface SwaggerUiOptions {
  /** Where the page is served: one path segment, default `/docs`. */
  readonly path?: string;
  /** The page title; default the host's title. */
  readonly title?: string;
}

/** Options of the `swaggerUi` middleware, for composing into a Koa app without `Application`. */
export interface SwaggerUiMiddlewareOptions extends SwaggerUiOptions {
  /** Path of the OpenAPI document the page loads. */
  readonly openapiPath: string;
}

/** Default path of the docs page. */
export const DEFAULT_DOCS_PATH = '/docs';

/** A year: versioned asset URLs change with the swagger-ui-dist version, so they never go stale. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page and unversioned URLs: always revalidated (cheap with the ETag). */
const REVALIDATE = 'no-cache';

/** `/docs`, `docs`, `/docs/` → `/docs`; anything that is not one plain segment is refused. */
function docsPath(path: string): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  if (!/^[A-Za-z0-9._~-]+$/.test(trimmed) || trimmed === '.' || trimmed === '..') {
    throw new ConfigurationError(
      `The Swagger UI path must be one path segment such as "/docs", not "${path}".`,
    );
  }
  return `/${trimmed}`;
}

/** Values of every `src` and `href` attribute of a page. */
export function referencedUrls(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']*)["']/gi)].map((match) => match[1] ?? '');
}

/** Whether a URL stays on the page's origin: an absolute path (not `//host`) or a fragment. */
function sameOrigin(url: string): boolean {
  return url.startsWith('#') || (url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\'));
}

/** Renders the koa2-swagger-ui page once, outside a request: with `routePrefix: false` it renders on any path. */
function renderTemplate(render: Middleware): string {
  const target = { path: '/', method: 'GET', type: '', body: undefined as unknown };
  void render(target as unknown as Context, async () => undefined);
  if (typeof target.body !== 'string')
    throw new ConfigurationError('koa2-swagger-ui did not render its page.');
  return target.body;
}

/**
 * koa2-swagger-ui, loaded when a docs page is first built: an application without `/docs` does not
 * load it and its template engine (their RSS: bench/NOTES.md, "Figures behind code comments", Swagger UI module).
 */
function koaSwagger(...args: Parameters<typeof import('koa2-swagger-ui').koaSwagger>) {
  const loaded = createRequire(import.meta.url)('koa2-swagger-ui') as typeof import('koa2-swagger-ui');
  return loaded.koaSwagger(...args);
}

/** The docs page and the Content-Security-Policy that allows exactly its inline script. */
function buildPage(
  base: string,
  version: string,
  openapiPath: string,
  title: string,
): { html: string; csp: string } {
  const assetBase = `${base}/${version}`;
  const rendered = renderTemplate(
    koaSwagger({
      title,
      routePrefix: false,
      // The template writes `{{swaggerCdnUrl}}/{{swaggerVersion}}/<file>`: point it at this app.
      swaggerCdnUrl: base,
      swaggerVersion: version,
      favicon: `${assetBase}/favicon-32x32.png`,
      hideTopbar: true,
      oauthOptions: false,
      swaggerOptions: {
        url: openapiPath,
        dom_id: '#swagger-ui',
        layout: 'StandaloneLayout',
        persistAuthorization: true,
        deepLinking: true,
        displayRequestDuration: true,
        // No badge fetched from validator.swagger.io.
        validatorUrl: null,
      },
    }),
  );
  // The template always links Google Fonts; Swagger UI's stylesheet has its own font stacks.
  const html = rendered.replace(/<link\b[^>]*\bhref\s*=\s*["'](?:[a-z][a-z0-9+.-]*:)?\/\/[^>]*>\s*/gi, '');
  const outside = referencedUrls(html).filter((url) => !sameOrigin(url));
  if (outside.length > 0) {
    throw new ConfigurationError(
      `The Swagger UI page would load from another origin: ${outside.join(', ')}.`,
    );
  }
  const hashes = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(
    (match) =>
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}'`,
  );
  const csp = [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(' ')}`,
    // Swagger UI and the template set style attributes.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'self'",
  ].join('; ');
  return { html, csp };
}

/** The asset name of a path below the docs path: `/<name>` or `/<version>/<name>`. */
function assetRequest(rest: string, version: string): { name: string; immutable: boolean } | undefined {
  const segments = rest.slice(1).split('/');
  if (segments.length === 1) return { name: segments[0] ?? '', immutable: false };
  if (segments.length === 2 && segments[0] === version) return { name: segments[1] ?? '', immutable: true };
  return undefined;
}

/** Sends a body with its validator, or 304 when the client's copy is current. */
function send(ctx: Context, body: Buffer, type: string, etag: string, cacheControl: string): void {
  ctx.status = 200;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', cacheControl);
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = type;
  ctx.body = body;
}

/**
 * Koa middleware serving the docs page at `path` (default `/docs`) and its assets below it;
 * other paths go to `next`. Checks its configuration when created.
 *
 * @example
 * koa.use(swaggerUi({ openapiPath: '/openapi.json' }));
 */
export function swaggerUi(options: SwaggerUiMiddlewareOptions): Middleware {
  const base = docsPath(options.path ?? DEFAULT_DOCS_PATH);
  const assets = new SwaggerAssets();
  const page = buildPage(base, assets.version, options.openapiPath, options.title ?? 'API documentation');
  const pageBody = Buffer.from(page.html, 'utf8');
  const pageEtag = `"${createHash('sha256').update(pageBody).digest('base64url').slice(0, 27)}"`;

  return async (ctx, next) => {
    if (ctx.path !== base && !ctx.path.startsWith(`${base}/`)) return next();
    // OPTIONS answers 204 with Allow, as on every other path of the framework.
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', 'GET, HEAD, OPTIONS');
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      throw ApiError.methodNotAllowed(['GET', 'HEAD', 'OPTIONS']);
    const rest = ctx.path.slice(base.length);
    if (rest === '' || rest === '/') {
      ctx.set('Content-Security-Policy', page.csp);
      ctx.set('Referrer-Policy', 'no-referrer');
      send(ctx, pageBody, 'text/html; charset=utf-8', pageEtag, REVALIDATE);
      return;
    }
    const request = assetRequest(rest, assets.version);
    const loading = request === undefined ? undefined : assets.get(request.name);
    if (request === undefined || loading === undefined) throw ApiError.notFound();
    const asset: LoadedAsset = await loading;
    send(ctx, asset.body, asset.type, asset.etag, request.immutable ? IMMUTABLE : REVALIDATE);
  };
}

/** Enables Swagger UI at `/docs` (or `options.path`) for the OpenAPI document of `app`. */
export function add_swagger_ui(app: SwaggerHost, options: SwaggerUiOptions = {}): void {
  const path = docsPath(options.path ?? DEFAULT_DOCS_PATH);
  const title = options.title ?? app.title;
  app.reservePath?.(path, 'Swagger UI');
  app.mount(
    path.slice(1),
    swaggerUi({ path, openapiPath: app.openapiPath, ...(title === undefined ? {} : { title }) }),
  );
}

/** camelCase alias of `add_swagger_ui`. */
export const addSwaggerUi: typeof add_swagger_ui = add_swagger_ui;
