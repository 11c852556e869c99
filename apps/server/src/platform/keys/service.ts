import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';

// The server's RSA signing key. It signs the JWTs the server issues (OpenID id_tokens arrive with
// the OAuth issue) and its public half is published at /.well-known/public-keys.

export interface SigningKey {
  privateKey: KeyObject;
  publicJwk: PublicJwk;
}

export interface PublicJwk {
  kty: 'RSA';
  alg: 'RS256';
  use: 'sig';
  kid: string;
  n: string;
  e: string;
  /** protocol.md §8.1: when the key was made, rounded down to the hour, in seconds. */
  'fxa-createdAt': number;
}

/** kid = YYYYMMDD- + the first 8 hex of SHA-256 over the public key PEM (protocol.md §8.1). */
export function signingKeyFromPem(pem: string, createdAtMs: number): SigningKey {
  const privateKey = createPrivateKey(pem);
  if (privateKey.asymmetricKeyType !== 'rsa') throw new Error('the signing key must be an RSA key');
  const publicKey = createPublicKey(privateKey);
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const jwk = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  const day = new Date(createdAtMs).toISOString().slice(0, 10).replace(/-/g, '');
  const kid = `${day}-${createHash('sha256').update(publicPem).digest('hex').slice(0, 8)}`;
  const hour = Math.floor(createdAtMs / 3_600_000) * 3600;
  return { privateKey, publicJwk: { kty: 'RSA', alg: 'RS256', use: 'sig', kid, n: jwk.n, e: jwk.e, 'fxa-createdAt': hour } };
}

/**
 * The public JWK of a PEM key (private or public), kid computed as for the signing key: for the
 * /jwks rotation slots (a key pre-published before it signs, a retired key still verifying).
 */
export function publicJwkFromPem(pem: string, createdAtMs: number): PublicJwk {
  const publicKey = createPublicKey(pem);
  if (publicKey.asymmetricKeyType !== 'rsa') throw new Error('a signing key must be an RSA key');
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const jwk = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
  const day = new Date(createdAtMs).toISOString().slice(0, 10).replace(/-/g, '');
  const kid = `${day}-${createHash('sha256').update(publicPem).digest('hex').slice(0, 8)}`;
  return { kty: 'RSA', alg: 'RS256', use: 'sig', kid, n: jwk.n, e: jwk.e, 'fxa-createdAt': Math.floor(createdAtMs / 3_600_000) * 3600 };
}

/** Reads a rotation slot's PEM file (empty path: no key). */
export function loadPublicJwk(file: string): PublicJwk | null {
  if (!file) return null;
  return publicJwkFromPem(readFileSync(file, 'utf8'), statSync(file).mtimeMs);
}

export function generateSigningKeyPem(): string {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
}

/**
 * Reads SIGNING_KEY_FILE. In development, without one, a key is generated once into the data
 * folder (mode 0600) so restarts keep the same kid; production refuses to start without a file.
 */
export function loadSigningKey(options: { file: string; devFile: string; production: boolean }): SigningKey {
  if (options.file) {
    const key = signingKeyFromPem(readFileSync(options.file, 'utf8'), statSync(options.file).mtimeMs);
    const bits = key.privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
    if (options.production && bits < 2048) throw new Error(`SIGNING_KEY_FILE holds a ${bits}-bit RSA key: production needs 2048 bits or more`);
    return key;
  }
  if (options.production) throw new Error('SIGNING_KEY_FILE must be set when NODE_ENV=production');
  if (!existsSync(options.devFile)) {
    mkdirSync(dirname(options.devFile), { recursive: true });
    writeFileSync(options.devFile, generateSigningKeyPem(), { mode: 0o600 });
  }
  return signingKeyFromPem(readFileSync(options.devFile, 'utf8'), statSync(options.devFile).mtimeMs);
}

function base64UrlToDecimal(b64: string): string {
  return BigInt(`0x${Buffer.from(b64, 'base64url').toString('hex')}`).toString(10);
}

/** GET /.well-known/public-keys. */
export function publicKeys(key: SigningKey) {
  return { keys: [key.publicJwk] };
}

/**
 * GET /.well-known/browserid: the BrowserID support document. Tessera does not provision BrowserID
 * certificates, so it says `disabled: true`; it still publishes the key in both notations for old
 * verifiers (BrowserID wrote n and e as decimal strings).
 */
export function browseridDocument(key: SigningKey) {
  return {
    'public-key': { algorithm: 'RS', n: base64UrlToDecimal(key.publicJwk.n), e: base64UrlToDecimal(key.publicJwk.e) },
    keys: [key.publicJwk],
    disabled: true,
  };
}
