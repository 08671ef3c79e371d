/**
 * The production configuration, read from the environment and checked before anything starts:
 * every mistake is reported at once, and `NODE_ENV=production` refuses to start without a secret.
 */
import { readFileSync } from 'node:fs';
import { MIN_SECRET_BYTES } from '../../../lib/auth/index.js';
import { ConfigurationError } from '../../../lib/index.js';

/** How tokens are signed: an HS256 secret, or an RS256/ES256 key pair read from files. */
export type TokenKeys =
  | { readonly kind: 'secret'; readonly secret: string; readonly previousSecrets: readonly string[] }
  | { readonly kind: 'key-pair'; readonly privateKey: string; readonly previousPublicKeys: readonly string[] }
  | { readonly kind: 'ephemeral' };

/** Everything the service needs to start. */
export interface ServiceConfig {
  readonly production: boolean;
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  /** `update` creates missing tables at start (development); `none` leaves the schema to migrations. */
  readonly schema: 'update' | 'none';
  readonly keys: TokenKeys;
  /** The Redis of the shared login throttle; without it each instance counts on its own. */
  readonly redisUrl: string | undefined;
  /** Prefix of the throttle's Redis keys, so that several services can share one Redis. */
  readonly redisKeyPrefix: string;
  /** Trust `X-Forwarded-For` (client addresses for the throttle): only behind a proxy you run. */
  readonly trustProxy: boolean;
}

const list = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

/** Reads and checks `NODE_ENV`, `HOST`, `PORT`, `DATABASE_URL`, `DB_SCHEMA`, the JWT keys, `REDIS_*` and `TRUST_PROXY`. */
export function readServiceConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const problems: string[] = [];
  const production = env.NODE_ENV === 'production';

  const port = Number(env.PORT ?? '8000');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push(`PORT "${env.PORT}" is not a port number.`);

  const databaseUrl = env.DATABASE_URL ?? '';
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) problems.push('DATABASE_URL must be a postgres:// URL.');

  const schema = env.DB_SCHEMA ?? (production ? 'none' : 'update');
  if (schema !== 'update' && schema !== 'none') problems.push('DB_SCHEMA must be "update" or "none".');
  if (production && schema === 'update')
    problems.push('DB_SCHEMA=update is for development; run migrations in production.');

  const secret = env.JWT_SECRET ?? '';
  const privateKeyFile = env.JWT_PRIVATE_KEY_FILE ?? '';
  let keys: TokenKeys = { kind: 'ephemeral' };
  if (secret !== '' && privateKeyFile !== '') {
    problems.push('Set JWT_SECRET or JWT_PRIVATE_KEY_FILE, not both.');
  } else if (secret !== '') {
    const previousSecrets = list(env.JWT_PREVIOUS_SECRETS);
    const tooShort = (value: string): boolean => Buffer.byteLength(value, 'utf8') < MIN_SECRET_BYTES;
    if (tooShort(secret))
      problems.push(`JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes (openssl rand -base64 48).`);
    if (previousSecrets.some(tooShort))
      problems.push(`JWT_PREVIOUS_SECRETS must be at least ${MIN_SECRET_BYTES} bytes each.`);
    keys = { kind: 'secret', secret, previousSecrets };
  } else if (privateKeyFile !== '') {
    try {
      const previousPublicKeys = list(env.JWT_PREVIOUS_PUBLIC_KEY_FILES).map((file) =>
        readFileSync(file, 'utf8'),
      );
      keys = { kind: 'key-pair', privateKey: readFileSync(privateKeyFile, 'utf8'), previousPublicKeys };
    } catch (error) {
      problems.push(`A JWT key file cannot be read: ${(error as Error).message}`);
    }
  } else if (production) {
    problems.push('NODE_ENV=production needs JWT_SECRET (at least 32 bytes) or JWT_PRIVATE_KEY_FILE.');
  }

  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl))
    problems.push('REDIS_URL must be a redis:// or rediss:// URL.');

  const trustProxy = env.TRUST_PROXY ?? 'false';
  if (trustProxy !== 'true' && trustProxy !== 'false')
    problems.push('TRUST_PROXY must be "true" or "false".');

  if (problems.length > 0) throw new ConfigurationError(`Invalid configuration:\n- ${problems.join('\n- ')}`);
  return {
    production,
    host: env.HOST || '127.0.0.1',
    port,
    databaseUrl,
    schema: schema as 'update' | 'none',
    keys,
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX || 'notes:throttle:',
    trustProxy: trustProxy === 'true',
  };
}
