/**
 * The Swagger UI files the docs page needs, served from the installed `swagger-ui-dist` so the
 * page works offline and loads nothing from a CDN. Only a fixed list of names is served (no path
 * from the request ever reaches the file system) and each file is read once, then kept in memory.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ConfigurationError } from '../errors.js';

/** One servable file: its name in `swagger-ui-dist` and its media type. */
interface AssetSpec {
  readonly file: string;
  readonly type: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';
const PNG = 'image/png';
const HTML = 'text/html; charset=utf-8';

/**
 * The allow-list, by the name the page asks for. `swagger-ui.min.css` is the name the
 * koa2-swagger-ui template uses; `swagger-ui-dist` ships the same stylesheet as `swagger-ui.css`.
 */
const ASSETS: Readonly<Record<string, AssetSpec>> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: CSS },
  'swagger-ui.min.css': { file: 'swagger-ui.css', type: CSS },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: JS },
  'swagger-ui-standalone-preset.js': { file: 'swagger-ui-standalone-preset.js', type: JS },
  'favicon-16x16.png': { file: 'favicon-16x16.png', type: PNG },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: PNG },
  'oauth2-redirect.html': { file: 'oauth2-redirect.html', type: HTML },
  'oauth2-redirect.js': { file: 'oauth2-redirect.js', type: JS },
};

/** The names of the files that can be served. */
export const SWAGGER_ASSET_NAMES: readonly string[] = Object.freeze(Object.keys(ASSETS));

/** A file ready to send. */
export interface LoadedAsset {
  readonly body: Buffer;
  readonly type: string;
  /** Strong ETag from the content. */
  readonly etag: string;
}

/** The installed Swagger UI files. */
export class SwaggerAssets {
  /** The `swagger-ui-dist` version: part of the long-cached asset URLs, so an upgrade changes them. */
  readonly version: string;
  readonly #dir: string;
  readonly #loaded = new Map<string, Promise<LoadedAsset>>();

  /** Finds `swagger-ui-dist` and checks that every listed file is there. */
  constructor() {
    let manifest: string;
    try {
      manifest = createRequire(import.meta.url).resolve('swagger-ui-dist/package.json');
    } catch (error) {
      throw new ConfigurationError(`add_swagger_ui needs the swagger-ui-dist package: ${String(error)}`);
    }
    this.#dir = dirname(manifest);
    const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
    if (typeof version !== 'string' || !/^[0-9A-Za-z.+-]+$/.test(version)) {
      throw new ConfigurationError('swagger-ui-dist has no usable version in its package.json.');
    }
    this.version = version;
    for (const { file } of Object.values(ASSETS)) {
      if (!existsSync(join(this.#dir, file))) {
        throw new ConfigurationError(`swagger-ui-dist ${version} lacks ${file}.`);
      }
    }
  }

  /** Whether `name` is on the allow-list. */
  has(name: string): boolean {
    return Object.hasOwn(ASSETS, name);
  }

  /** The file for an allow-listed name (read on first use), or `undefined` for any other name. */
  get(name: string): Promise<LoadedAsset> | undefined {
    if (!this.has(name)) return undefined;
    let loaded = this.#loaded.get(name);
    if (loaded === undefined) {
      loaded = this.#read(ASSETS[name] as AssetSpec);
      // A failed read is not cached: the next request tries again.
      loaded.catch(() => this.#loaded.delete(name));
      this.#loaded.set(name, loaded);
    }
    return loaded;
  }

  async #read(spec: AssetSpec): Promise<LoadedAsset> {
    const body = await readFile(join(this.#dir, spec.file));
    const digest = createHash('sha256').update(body).digest('base64url').slice(0, 27);
    return { body, type: spec.type, etag: `"${digest}"` };
  }
}
