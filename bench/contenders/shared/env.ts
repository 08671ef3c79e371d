/** The settings every contender reads from its environment, so that the runner configures them all alike. */

/** Which route set a contender serves: `open` (public reads) or `secure` (every posts route needs a token, GET/PUT/DELETE need ownership). */
export type Profile = 'open' | 'secure';

/** The JWT issuer every contender signs and checks. */
export const JWT_ISSUER = 'koa-model-api-bench';
/** The JWT audience every contender signs and checks. */
export const JWT_AUDIENCE = 'koa-model-api-bench-clients';
/** Token lifetime in seconds, also the `expires_in` of the login answer. */
export const TOKEN_TTL_SECONDS = 3600;
/** Database connection pool size for the contenders that have a pool (PostgreSQL). */
export const POOL_MAX = 10;

/** The variable the framework's script reads its adapter mode from (`fast` unless set to `plain`). */
export const ADAPTER_MODE_VARIABLE = 'BENCH_ADAPTER_MODE';

/** The MikroORM adapter's execution mode asked for by the environment: `plain`, or `fast` (the default). */
export function adapterMode(): 'fast' | 'plain' {
  const raw = process.env[ADAPTER_MODE_VARIABLE];
  if (raw === undefined || raw === '' || raw === 'fast') return 'fast';
  if (raw === 'plain') return 'plain';
  throw new Error(`${ADAPTER_MODE_VARIABLE} must be fast or plain, not ${raw}`);
}

/** The parsed environment of a contender process. */
export interface ContenderEnv {
  readonly port: number;
  readonly databaseUrl: string;
  readonly jwtSecret: string;
  readonly profile: Profile;
}

/** Reads PORT, DATABASE_URL, JWT_SECRET and BENCH_PROFILE, failing loudly when one is missing. */
export function readEnv(): ContenderEnv {
  const port = Number(process.env.PORT);
  const databaseUrl = process.env.DATABASE_URL ?? '';
  const jwtSecret = process.env.JWT_SECRET ?? '';
  const profile = process.env.BENCH_PROFILE === 'secure' ? 'secure' : 'open';
  if (!Number.isInteger(port) || port <= 0) throw new Error('PORT must be a port number');
  if (databaseUrl === '') throw new Error('DATABASE_URL is required');
  if (Buffer.byteLength(jwtSecret) < 32) throw new Error('JWT_SECRET must be at least 32 bytes');
  return { port, databaseUrl, jwtSecret, profile };
}

/** The SQLite file of a `sqlite:<path>` URL, or undefined for any other URL. */
export function sqliteFile(url: string): string | undefined {
  return url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined;
}

/** Parses a path id the way every contender does: a positive integer, otherwise undefined (answered 404). */
export function parseId(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^[1-9][0-9]{0,15}$/.test(raw)) return undefined;
  return Number(raw);
}
