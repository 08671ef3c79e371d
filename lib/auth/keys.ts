/**
 * Signing and verification keys, resolved once when the router is created: an HS256 secret
 * (option or `JWT_SECRET`, at least 32 bytes) turned into a `KeyObject`, or an RS256/ES256 key
 * pair. A missing secret refuses to start under `NODE_ENV=production`; otherwise a random
 * per-process secret is used and one warning is emitted.
 */
import { createPrivateKey, createPublicKey, createSecretKey, KeyObject, randomBytes } from 'node:crypto';
import { ConfigurationError } from '../errors.js';

/** The JWT algorithms the plugin signs and verifies with. */
export type JwtAlgorithm = 'HS256' | 'RS256' | 'ES256';

/** Accepted algorithms. */
export const JWT_ALGORITHMS: readonly JwtAlgorithm[] = Object.freeze(['HS256', 'RS256', 'ES256']);

/** A PEM string (or DER buffer) or a `KeyObject`. */
export type KeyInput = string | Buffer | KeyObject;

/** The key options, already normalised from snake_case/camelCase. */
export interface KeyOptions {
  readonly algorithm?: JwtAlgorithm | undefined;
  readonly secret?: string | undefined;
  /** Former secrets still accepted for verification while tokens signed with them expire. */
  readonly previousSecrets?: readonly string[] | undefined;
  readonly privateKey?: KeyInput | undefined;
  readonly publicKey?: KeyInput | undefined;
  /** Former public keys still accepted for verification. */
  readonly previousPublicKeys?: readonly KeyInput[] | undefined;
}

/** The resolved keys. */
export interface TokenKeys {
  readonly algorithm: JwtAlgorithm;
  /** Absent for a verify-only configuration (public key without private key). */
  readonly signingKey?: KeyObject;
  /** Current key first, then former ones. */
  readonly verifyKeys: readonly KeyObject[];
  /** The secret is the random per-process one (no `secret`, no `JWT_SECRET`). */
  readonly ephemeral: boolean;
}

/** Fewest bytes an HS256 secret may have (RFC 7518 §3.2: at least the hash size). */
export const MIN_SECRET_BYTES = 32;

let processSecret: KeyObject | undefined;

function secretKey(secret: unknown, what: string): KeyObject {
  if (typeof secret !== 'string') throw new ConfigurationError(`${what} must be a string.`);
  const bytes = Buffer.from(secret, 'utf8');
  if (bytes.length < MIN_SECRET_BYTES) {
    throw new ConfigurationError(
      `${what} must be at least ${MIN_SECRET_BYTES} bytes long (got ${bytes.length}); generate one with \`openssl rand -base64 48\`.`,
    );
  }
  return createSecretKey(bytes);
}

function randomProcessSecret(): KeyObject {
  if (processSecret === undefined) {
    processSecret = createSecretKey(randomBytes(48));
    process.emitWarning(
      'koa-model-api: no JWT secret configured (option `secret` or JWT_SECRET); using a random per-process secret. Tokens stop working on restart and are not shared between instances.',
      { code: 'KMA_EPHEMERAL_JWT_SECRET' },
    );
  }
  return processSecret;
}

function toPrivateKey(input: KeyInput): KeyObject {
  try {
    const key = input instanceof KeyObject ? input : createPrivateKey(input);
    if (key.type !== 'private') throw new Error(`a ${key.type} key was given`);
    return key;
  } catch (error) {
    throw new ConfigurationError(`private_key is not a usable private key: ${(error as Error).message}.`);
  }
}

function toPublicKey(input: KeyInput, what: string): KeyObject {
  try {
    const key = input instanceof KeyObject ? input : createPublicKey(input);
    // A private key is accepted too: its public half is derived.
    if (key.type === 'private') return createPublicKey(key);
    if (key.type !== 'public') throw new Error(`a ${key.type} key was given`);
    return key;
  } catch (error) {
    throw new ConfigurationError(`${what} is not a usable public key: ${(error as Error).message}.`);
  }
}

function algorithmOfKey(key: KeyObject): JwtAlgorithm {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') return 'ES256';
  throw new ConfigurationError(
    `Keys of type ${String(key.asymmetricKeyType)} are not supported; use an RSA key (RS256) or a P-256 EC key (ES256).`,
  );
}

function checkKeyFits(key: KeyObject, algorithm: JwtAlgorithm, what: string): void {
  if (algorithmOfKey(key) !== algorithm) {
    throw new ConfigurationError(
      `${what} is a ${String(key.asymmetricKeyType)} key, which cannot be used with ${algorithm}.`,
    );
  }
  const details = key.asymmetricKeyDetails ?? {};
  if (algorithm === 'RS256' && (details.modulusLength ?? 0) < 2048) {
    throw new ConfigurationError(`${what}: RS256 needs an RSA key of at least 2048 bits.`);
  }
  if (algorithm === 'ES256' && details.namedCurve !== 'prime256v1') {
    throw new ConfigurationError(
      `${what}: ES256 needs a P-256 (prime256v1) key, got ${String(details.namedCurve)}.`,
    );
  }
}

function resolveKeyPair(options: KeyOptions): TokenKeys {
  if (options.secret !== undefined || options.previousSecrets !== undefined) {
    throw new ConfigurationError('Give either `secret` (HS256) or a key pair (RS256/ES256), not both.');
  }
  const signingKey = options.privateKey === undefined ? undefined : toPrivateKey(options.privateKey);
  const publicKey =
    options.publicKey !== undefined
      ? toPublicKey(options.publicKey, 'public_key')
      : signingKey !== undefined
        ? createPublicKey(signingKey)
        : undefined;
  if (publicKey === undefined)
    throw new ConfigurationError('A key pair configuration needs private_key or public_key.');
  const algorithm = options.algorithm ?? algorithmOfKey(publicKey);
  if (algorithm === 'HS256') throw new ConfigurationError('HS256 takes a `secret`, not a key pair.');
  checkKeyFits(publicKey, algorithm, 'public_key');
  if (signingKey !== undefined) checkKeyFits(signingKey, algorithm, 'private_key');
  const previous = (options.previousPublicKeys ?? []).map((input, index) => {
    const key = toPublicKey(input, `previous_public_keys[${index}]`);
    checkKeyFits(key, algorithm, `previous_public_keys[${index}]`);
    return key;
  });
  return {
    algorithm,
    ...(signingKey === undefined ? {} : { signingKey }),
    verifyKeys: [publicKey, ...previous],
    ephemeral: false,
  };
}

function resolveSecret(options: KeyOptions, env: NodeJS.ProcessEnv): TokenKeys {
  if (options.algorithm !== undefined && options.algorithm !== 'HS256') {
    throw new ConfigurationError(
      `${options.algorithm} needs private_key/public_key; a secret is only for HS256.`,
    );
  }
  const previous = (options.previousSecrets ?? []).map((secret, index) =>
    secretKey(secret, `previous_secrets[${index}]`),
  );
  const configured = options.secret ?? (env.JWT_SECRET === '' ? undefined : env.JWT_SECRET);
  if (configured !== undefined) {
    const key = secretKey(configured, options.secret === undefined ? 'JWT_SECRET' : 'secret');
    return { algorithm: 'HS256', signingKey: key, verifyKeys: [key, ...previous], ephemeral: false };
  }
  if (env.NODE_ENV === 'production') {
    throw new ConfigurationError(
      'No JWT secret: set JWT_SECRET (at least 32 bytes) or pass `secret` or a key pair. NODE_ENV=production refuses a random per-process secret.',
    );
  }
  const key = randomProcessSecret();
  return { algorithm: 'HS256', signingKey: key, verifyKeys: [key, ...previous], ephemeral: true };
}

/** Resolves and checks the key configuration; throws `ConfigurationError` for anything unusable. */
export function resolveTokenKeys(options: KeyOptions, env: NodeJS.ProcessEnv = process.env): TokenKeys {
  if (options.algorithm !== undefined && !JWT_ALGORITHMS.includes(options.algorithm)) {
    throw new ConfigurationError(
      `algorithm must be one of ${JWT_ALGORITHMS.join(', ')}, got ${String(options.algorithm)}.`,
    );
  }
  const usesPair =
    options.privateKey !== undefined ||
    options.publicKey !== undefined ||
    options.previousPublicKeys !== undefined;
  return usesPair ? resolveKeyPair(options) : resolveSecret(options, env);
}
