import { concat, constantTimeEqual, fromHex, toHex, xor } from './bytes.js';
import { hmacSha256, namedHkdf } from './kdf.js';

// onepw key bundles (protocol.md §2.4): XOR-encrypt with an HKDF stream, MAC with HMAC-SHA256.

function bundleKeys(key: Uint8Array, info: string, length: number): { hmacKey: Uint8Array; xorKey: Uint8Array } {
  const km = namedHkdf(key, info, 32 + length);
  return { hmacKey: km.subarray(0, 32), xorKey: km.subarray(32) };
}

export function bundle(key: Uint8Array, info: string, payload: Uint8Array): Uint8Array {
  const { hmacKey, xorKey } = bundleKeys(key, info, payload.length);
  const ciphertext = xor(payload, xorKey);
  return concat(ciphertext, hmacSha256(hmacKey, ciphertext));
}

export function unbundle(key: Uint8Array, info: string, data: Uint8Array): Uint8Array {
  if (data.length < 32) throw new RangeError('bundle too short');
  const ciphertext = data.subarray(0, data.length - 32);
  const mac = data.subarray(data.length - 32);
  const { hmacKey, xorKey } = bundleKeys(key, info, ciphertext.length);
  if (!constantTimeEqual(hmacSha256(hmacKey, ciphertext), mac)) throw new Error('key bundle MAC mismatch');
  return xor(ciphertext, xorKey);
}

/** Server: the 96-byte `GET /account/keys` bundle of kA || wrapKb under a keyFetchToken's bundleKey. */
export function createKeyBundle(bundleKey: string, kA: string, wrapKb: string): string {
  return toHex(bundle(fromHex(bundleKey), 'account/keys', concat(fromHex(kA), fromHex(wrapKb))));
}

/** Client: verifies and opens the bundle into kA and wrapKb. */
export function openKeyBundle(bundleKey: string, bundleHex: string): { kA: string; wrapKb: string } {
  const plain = unbundle(fromHex(bundleKey), 'account/keys', fromHex(bundleHex));
  if (plain.length !== 64) throw new RangeError('key bundle must hold 64 bytes');
  return { kA: toHex(plain.subarray(0, 32)), wrapKb: toHex(plain.subarray(32)) };
}
