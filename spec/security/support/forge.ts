/**
 * Hand-made JWTs for the tampering cases: any header, any claims, signed with any key or with
 * none. Built from node:crypto directly so that no JWT library's safety nets hide an attack.
 */
import { createHmac, createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';

/** A JSON object of a token's header or claims. */
export type JwtPart = Record<string, unknown>;

function b64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/** `base64url(header).base64url(claims)`. */
export function signingInput(header: JwtPart, claims: JwtPart): string {
  return `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
}

/** An unsigned token: the signature part is empty. */
export function unsigned(header: JwtPart, claims: JwtPart): string {
  return `${signingInput(header, claims)}.`;
}

/** A token signed with HMAC (`HS256`, `HS384`, `HS512`) and the given secret or key bytes. */
export function hmacToken(
  secret: string | Buffer | KeyObject,
  claims: JwtPart,
  header: JwtPart = {},
): string {
  const alg = typeof header.alg === 'string' ? header.alg : 'HS256';
  const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg] ?? 'sha256';
  const input = signingInput({ alg, typ: 'JWT', ...header }, claims);
  return `${input}.${createHmac(hash, secret).update(input).digest('base64url')}`;
}

/** A token signed with an RSA private key (`RS256`) or a P-256 key (`ES256`, JOSE signature form). */
export function asymmetricToken(privateKey: KeyObject, claims: JwtPart, header: JwtPart = {}): string {
  const alg = privateKey.asymmetricKeyType === 'ec' ? 'ES256' : 'RS256';
  const input = signingInput({ alg, typ: 'JWT', ...header }, claims);
  const signer = createSign('sha256').update(input);
  const signature =
    alg === 'ES256' ? signer.sign({ key: privateKey, dsaEncoding: 'ieee-p1363' }) : signer.sign(privateKey);
  return `${input}.${b64url(signature)}`;
}

/** Replaces the claims of a token and keeps its original signature (an edited token). */
export function withEditedClaims(token: string, edit: (claims: JwtPart) => JwtPart): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as JwtPart;
  return `${header}.${b64url(JSON.stringify(edit(claims)))}.${signature}`;
}

/** Key pairs an attacker controls. */
export interface AttackerKeys {
  readonly rsa: { readonly privateKey: KeyObject; readonly publicKey: KeyObject };
  readonly ec: { readonly privateKey: KeyObject; readonly publicKey: KeyObject };
}

let keys: AttackerKeys | undefined;

/** The attacker's RSA-2048 and P-256 key pairs (made once per process). */
export function attackerKeys(): AttackerKeys {
  keys ??= {
    rsa: generateKeyPairSync('rsa', { modulusLength: 2048 }),
    ec: generateKeyPairSync('ec', { namedCurve: 'prime256v1' }),
  };
  return keys;
}

/** Seconds since the epoch. */
export function now(): number {
  return Math.floor(Date.now() / 1000);
}
