/**
 * Authentication by API key, replacing the JWT plugin: any Koa middleware that sets
 * `ctx.state.user` to `{ id, isAdmin }` (or throws a 401 `ApiError`) can be an `auth_dependency`.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Next } from 'koa';
import {
  ApiError,
  type AppContext,
  type AuthDependency,
  adapterOf,
  ConfigurationError,
  type OrmAdapter,
  sessionOf,
} from '../../../lib/index.js';
import { Writer } from './models.js';

/** The OpenAPI security scheme the dependency documents. */
export const API_KEY_SCHEME = 'ApiKey';

/** What is stored for a key: its SHA-256 (keys are long and random, so a fast hash is enough). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Creates a writer and returns their API key; only its hash is stored, so show it once. */
export async function createWriter(
  adapter: OrmAdapter,
  name: string,
  isAdmin = false,
): Promise<{ id: number; apiKey: string }> {
  const apiKey = randomBytes(24).toString('base64url');
  const row = await adapter.create(adapter.openSession(), Writer, {
    name,
    is_admin: isAdmin,
    api_key_hash: hashApiKey(apiKey),
  });
  return { id: row.id as number, apiKey };
}

/**
 * Reads `X-API-Key` and sets `ctx.state.user` from the writer holding that key. Without the header
 * it answers 401, or, when `optional`, lets the request through anonymously.
 */
export function apiKeyAuth(options: { readonly optional?: boolean } = {}): AuthDependency {
  const dependency = async (ctx: AppContext, next: Next): Promise<void> => {
    const key = ctx.get('x-api-key');
    if (key === '') {
      if (options.optional === true) return next();
      throw new ApiError('unauthorized', 'An X-API-Key header is required.');
    }
    const adapter = adapterOf(ctx);
    if (adapter === undefined)
      throw new ConfigurationError('apiKeyAuth needs the app’s adapter (Application or useAdapter).');
    const writer = await adapter.findBy(sessionOf(ctx, adapter), Writer, 'api_key_hash', hashApiKey(key));
    if (writer === undefined) throw new ApiError('invalid_token', 'The API key is not valid.');
    ctx.state.user = { id: writer.id as number, isAdmin: writer.is_admin === true };
    await next();
  };
  // `userModel` lets routers find the ownership field (`owner` references Writer).
  return Object.assign(dependency, { userModel: Writer, securityScheme: API_KEY_SCHEME });
}
