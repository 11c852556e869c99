import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { hmac } from '@noble/hashes/hmac.js';
import { utf8 } from './bytes.js';

/** onepw: every HKDF info string is this namespace plus a name (protocol.md §0). */
export const NAMESPACE = 'identity.mozilla.com/picl/v1/';

/** HKDF-SHA256 with an empty salt and the onepw namespace on the info string. */
export function namedHkdf(ikm: Uint8Array, name: string, length: number): Uint8Array {
  return hkdf(sha256, ikm, new Uint8Array(0), utf8(NAMESPACE + name), length);
}

/** Plain HKDF-SHA256 with an explicit salt and info (for the places that use no namespace). */
export function rawHkdf(ikm: Uint8Array, salt: Uint8Array, info: string | Uint8Array, length: number): Uint8Array {
  return hkdf(sha256, ikm, salt, typeof info === 'string' ? utf8(info) : info, length);
}

export function hmacSha256(key: Uint8Array, data: Uint8Array): Uint8Array {
  return hmac(sha256, key, data);
}

export { sha256 };
