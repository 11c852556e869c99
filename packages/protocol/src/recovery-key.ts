import { CompactEncrypt, compactDecrypt } from 'jose';
import { fromHex, randomBytes, toHex, utf8 } from './bytes.js';
import { rawHkdf } from './kdf.js';

// Account recovery keys (protocol.md §4.8, vectors §3.5). The key is made and kept by the person;
// the server stores only what the key encrypts (recoveryData, a JWE of kB) and the hash of its
// fingerprint (recoveryKeyId). Knowing the key is knowing kB, so a password reset with the key can
// keep kB, and with it everything the account encrypted end to end.

/** Crockford base32 (protocol.md §3.5): the alphabet a recovery key is shown to people in. */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** protocol.md §4.8: 20 random bytes; a key of 16–32 bytes is accepted when read back. */
export const RECOVERY_KEY_LENGTH = 20;

/** Renders bytes in Crockford base32, 5 bits per character, most significant bits first. */
export function crockfordEncode(bytes: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD_ALPHABET[(acc >> bits) & 31];
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out += CROCKFORD_ALPHABET[(acc << (5 - bits)) & 31];
  return out;
}

/**
 * Reads Crockford base32 as typed by a person: case-insensitive, spaces and hyphens ignored, and
 * the look-alikes O → 0, I and L → 1. Throws on any other character or on leftover non-zero bits.
 */
export function crockfordDecode(text: string): Uint8Array {
  const clean = text.replace(/[\s-]/g, '').toUpperCase().replace(/O/g, '0').replace(/[IL]/g, '1');
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const ch of clean) {
    const v = CROCKFORD_ALPHABET.indexOf(ch);
    if (v < 0) throw new TypeError(`"${ch}" is not a Crockford base32 character`);
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  }
  if (acc !== 0) throw new TypeError('not a whole number of bytes in Crockford base32');
  return Uint8Array.from(out);
}

/**
 * A new recovery key: 20 random bytes whose first 5 bits are the version marker 01010, so its
 * rendering starts with `A` (protocol.md §4.8: byte0 = 0x50 | (byte0 & 0x07)).
 */
export function generateRecoveryKey(): Uint8Array {
  const key = randomBytes(RECOVERY_KEY_LENGTH);
  key[0] = 0x50 | (key[0]! & 0x07);
  return key;
}

/** Reads back a key a person typed (Crockford base32 of 16–32 bytes). */
export function parseRecoveryKey(text: string): Uint8Array {
  const key = crockfordDecode(text);
  if (key.length < 16 || key.length > 32) throw new RangeError('a recovery key is 16 to 32 bytes (26 to 52 characters)');
  return key;
}

/** The key's fingerprint: HKDF(key, salt = uid, info "fxa recovery fingerprint", 16) in hex. No namespace. */
export function recoveryKeyId(recoveryKey: Uint8Array, uid: string): string {
  return toHex(rawHkdf(recoveryKey, fromHex(uid), 'fxa recovery fingerprint', 16));
}

/** The AES-256-GCM key of recoveryData: HKDF(key, salt = uid, info "fxa recovery encrypt key", 32). */
export function recoveryEncryptionKey(recoveryKey: Uint8Array, uid: string): Uint8Array {
  return rawHkdf(recoveryKey, fromHex(uid), 'fxa recovery encrypt key', 32);
}

/** What recoveryData holds: kB (hex), and kA from some clients. */
export interface RecoveryPayload {
  kB: string;
  kA?: string;
  [other: string]: unknown;
}

/**
 * recoveryData: a compact JWE (alg dir, enc A256GCM, kid = the fingerprint) of the payload's JSON.
 * The header's key order is part of the bytes (protocol.md §3.5). `iv` is for the test vectors
 * only; leave it out and a random 12-byte IV is used.
 */
export async function encryptRecoveryData(recoveryKey: Uint8Array, uid: string, payload: RecoveryPayload, iv?: Uint8Array): Promise<string> {
  const jwe = new CompactEncrypt(utf8(JSON.stringify(payload)))
    .setProtectedHeader({ enc: 'A256GCM', alg: 'dir', kid: recoveryKeyId(recoveryKey, uid) });
  if (iv) jwe.setInitializationVector(iv);
  return jwe.encrypt(recoveryEncryptionKey(recoveryKey, uid));
}

/** Opens recoveryData with the key; throws when the key is not the one it was made with. */
export async function decryptRecoveryData(recoveryKey: Uint8Array, uid: string, recoveryData: string): Promise<RecoveryPayload> {
  const { plaintext, protectedHeader } = await compactDecrypt(recoveryData, recoveryEncryptionKey(recoveryKey, uid), {
    keyManagementAlgorithms: ['dir'], contentEncryptionAlgorithms: ['A256GCM'],
  });
  if (protectedHeader.kid !== undefined && protectedHeader.kid !== recoveryKeyId(recoveryKey, uid)) {
    throw new Error('recoveryData names another recovery key');
  }
  const payload = JSON.parse(new TextDecoder().decode(plaintext)) as RecoveryPayload;
  if (typeof payload.kB !== 'string' || !/^[0-9a-fA-F]{64}$/.test(payload.kB)) throw new Error('recoveryData holds no kB');
  return payload;
}
