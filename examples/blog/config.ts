/** The example's configuration, read from the environment (contract section 6). */
import { ConfigurationError } from '../../lib/index.js';

/** What the example needs to start. */
export interface BlogConfig {
  readonly host: string;
  readonly port: number;
  readonly databaseUrl: string;
  readonly jwtSecret: string | undefined;
  readonly admin:
    | { readonly username: string; readonly password: string; readonly email: string }
    | undefined;
  readonly production: boolean;
}

/** Reads `HOST`, `PORT`, `DATABASE_URL`, `JWT_SECRET`, `ADMIN_USERNAME`/`ADMIN_PASSWORD`/`ADMIN_EMAIL`, `NODE_ENV`. */
export function readBlogConfig(env: NodeJS.ProcessEnv = process.env): BlogConfig {
  const port = Number(env.PORT ?? '8000');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigurationError(`PORT "${env.PORT}" is not a port number.`);
  const production = env.NODE_ENV === 'production';
  const jwtSecret = env.JWT_SECRET === undefined || env.JWT_SECRET === '' ? undefined : env.JWT_SECRET;
  if (production && jwtSecret === undefined) {
    throw new ConfigurationError('JWT_SECRET must be set when NODE_ENV=production (at least 32 bytes).');
  }
  const { ADMIN_USERNAME: username, ADMIN_PASSWORD: password, ADMIN_EMAIL: email } = env;
  const anyAdmin = [username, password, email].some((value) => value !== undefined && value !== '');
  if (anyAdmin && (!username || !password || !email)) {
    throw new ConfigurationError(
      'Set all of ADMIN_USERNAME, ADMIN_PASSWORD and ADMIN_EMAIL, or none of them.',
    );
  }
  return {
    host: env.HOST || '127.0.0.1',
    port,
    databaseUrl: env.DATABASE_URL || 'sqlite:./data/blog.sqlite',
    jwtSecret,
    admin: username && password && email ? { username, password, email } : undefined,
    production,
  };
}
