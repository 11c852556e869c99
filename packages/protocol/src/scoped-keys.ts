import { CompactEncrypt, compactDecrypt, importJWK, type JWK } from 'jose';
import { concat, fromHex, toBase64Url, utf8 } from './bytes.js';
import { rawHkdf, sha256 } from './kdf.js';

// Scoped keys (protocol.md §3.6, §8.2): keys a relying party gets for one scope, derived from kB
// on the client and sent to the relying party encrypted to its ephemeral key, never in clear
// through the server. Pure functions.

/** Scopes whose key is the legacy Sync key bundle, not the general derivation. */
export const LEGACY_SYNC_SCOPES: readonly string[] = ['https://identity.mozilla.com/apps/oldsync', 'https://identity.thunderbird.net/apps/sync'];

export interface ScopedKeyInput {
  /** 64 hex. */
  kB: string;
  /** The account's uid, 32 hex. */
  uid: string;
  /** The scope's key identifier (at least 10 characters), as /account/scoped-key-data answers it. */
  identifier: string;
  /** 64 hex (all zeros today). */
  keyRotationSecret: string;
  /** Milliseconds, 13 digits. */
  keyRotationTimestamp: number;
}

/** A scoped key as a JWK (kty oct). */
export interface ScopedKey {
  kty: 'oct';
  k: string;
  kid: string;
}

function check(input: ScopedKeyInput): void {
  if (!/^[0-9a-f]{64}$/i.test(input.kB)) throw new TypeError('kB must be 64 hex characters');
  if (!/^[0-9a-f]{64}$/i.test(input.keyRotationSecret)) throw new TypeError('keyRotationSecret must be 64 hex characters');
  if (!/^[0-9a-f]{32}$/i.test(input.uid)) throw new TypeError('uid must be 32 hex characters');
  if (!Number.isInteger(input.keyRotationTimestamp) || String(input.keyRotationTimestamp).length !== 13) throw new TypeError('keyRotationTimestamp must be milliseconds (13 digits)');
  if (input.identifier.length < 10) throw new TypeError('identifier must be at least 10 characters');
}

/** Derives the scope's key (protocol.md §8.2): the general HKDF derivation, or the legacy Sync bundle for Sync's scopes. */
export function deriveScopedKey(input: ScopedKeyInput): ScopedKey {
  check(input);
  const kB = fromHex(input.kB);
  if (LEGACY_SYNC_SCOPES.includes(input.identifier)) {
    const k = rawHkdf(kB, new Uint8Array(0), 'identity.mozilla.com/picl/v1/oldsync', 64);
    return { kty: 'oct', k: toBase64Url(k), kid: `${input.keyRotationTimestamp}-${toBase64Url(sha256(kB).slice(0, 16))}` };
  }
  const km = rawHkdf(concat(kB, fromHex(input.keyRotationSecret)), fromHex(input.uid), `identity.mozilla.com/picl/v1/scoped_key\n${input.identifier}`, 48);
  return { kty: 'oct', k: toBase64Url(km.slice(16, 48)), kid: `${Math.round(input.keyRotationTimestamp / 1000)}-${toBase64Url(km.slice(0, 16))}` };
}

/** Reads a relying party's `keys_jwk` (base64url of a public P-256 JWK); refuses anything else, and private keys. */
export function parseKeysJwk(keysJwk: string): JWK {
  let jwk: JWK;
  try {
    jwk = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(keysJwk.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)))) as JWK;
  } catch {
    throw new TypeError('keys_jwk is not base64url of a JSON object');
  }
  if (typeof jwk !== 'object' || jwk === null || jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) throw new TypeError('keys_jwk must be a P-256 EC public key');
  if ('d' in jwk) throw new TypeError('keys_jwk must not contain a private key');
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, ...(jwk.kid ? { kid: jwk.kid } : {}) };
}

/** Encrypts the bundle `{scope: key}` to the relying party's key: compact JWE, ECDH-ES + A256GCM (protocol.md §8.2). */
export async function encryptKeysBundle(bundle: Record<string, ScopedKey>, keysJwk: string): Promise<string> {
  const jwk = parseKeysJwk(keysJwk);
  const key = await importJWK(jwk, 'ECDH-ES');
  return new CompactEncrypt(utf8(JSON.stringify(bundle)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', ...(jwk.kid ? { kid: jwk.kid } : {}) })
    .encrypt(key);
}

/** The relying party's side: decrypts `keys_jwe` with its ephemeral private JWK. */
export async function decryptKeysBundle(keysJwe: string, privateJwk: JWK): Promise<Record<string, ScopedKey>> {
  const key = await importJWK(privateJwk, 'ECDH-ES');
  const { plaintext, protectedHeader } = await compactDecrypt(keysJwe, key, { keyManagementAlgorithms: ['ECDH-ES'], contentEncryptionAlgorithms: ['A256GCM'] });
  if (protectedHeader.alg !== 'ECDH-ES' || protectedHeader.enc !== 'A256GCM') throw new TypeError('keys_jwe must be ECDH-ES + A256GCM');
  return JSON.parse(new TextDecoder().decode(plaintext)) as Record<string, ScopedKey>;
}
