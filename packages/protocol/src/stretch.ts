import { pbkdf2Async } from '@noble/hashes/pbkdf2.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { fromHex, randomHex, toHex, utf8 } from './bytes.js';
import { NAMESPACE, namedHkdf } from './kdf.js';

// onepw client-side key stretching (protocol.md §1.1, §1.2).
export const V1_PBKDF2_ITERATIONS = 1000;
export const V2_PBKDF2_ITERATIONS = 650_000;
export const CLIENT_SALT_V1_PREFIX = `${NAMESPACE}quickStretch:`;
export const CLIENT_SALT_V2_PREFIX = `${NAMESPACE}quickStretchV2:`;

/** What the client derives from the password: authPW goes to the server, unwrapBKey never does. */
export interface StretchedCredentials {
  quickStretchedPW: string;
  authPW: string;
  unwrapBKey: string;
}

async function pbkdf2Sha256(password: Uint8Array, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const subtle = globalThis.crypto?.subtle;
  if (subtle) {
    // WebCrypto runs PBKDF2 natively (browsers and Node); 650,000 iterations in JS would take seconds.
    const key = await subtle.importKey('raw', password as BufferSource, 'PBKDF2', false, ['deriveBits']);
    const bits = await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: salt as BufferSource, iterations }, key, 256);
    return new Uint8Array(bits);
  }
  return pbkdf2Async(sha256, password, salt, { c: iterations, dkLen: 32 });
}

function finishStretch(quickStretchedPW: Uint8Array): StretchedCredentials {
  return {
    quickStretchedPW: toHex(quickStretchedPW),
    authPW: toHex(namedHkdf(quickStretchedPW, 'authPW', 32)),
    // The info string spells it "unwrapBkey" (lowercase k): a protocol fact, not a typo here.
    unwrapBKey: toHex(namedHkdf(quickStretchedPW, 'unwrapBkey', 32)),
  };
}

/** Version 1: PBKDF2 1,000 rounds salted with the account's signup email. */
export async function stretchV1(email: string, password: string): Promise<StretchedCredentials> {
  const qs = await pbkdf2Sha256(utf8(password), utf8(CLIENT_SALT_V1_PREFIX + email), V1_PBKDF2_ITERATIONS);
  return finishStretch(qs);
}

/** Version 2: PBKDF2 650,000 rounds salted with a random per-account clientSalt. */
export async function stretchV2(clientSalt: string, password: string): Promise<StretchedCredentials> {
  if (!isV2ClientSalt(clientSalt)) throw new TypeError('clientSalt must be the quickStretchV2 prefix plus 32 hex characters');
  const qs = await pbkdf2Sha256(utf8(password), utf8(clientSalt), V2_PBKDF2_ITERATIONS);
  return finishStretch(qs);
}

/** A fresh v2 clientSalt: the prefix and 16 random bytes as 32 lowercase hex characters. */
export function createClientSalt(): string {
  return CLIENT_SALT_V2_PREFIX + randomHex(16);
}

export function isV2ClientSalt(value: string): boolean {
  return value.startsWith(CLIENT_SALT_V2_PREFIX) && /^[0-9a-f]{32}$/.test(value.slice(CLIENT_SALT_V2_PREFIX.length));
}

/** Server side: what scrypt's output (bigStretchedPW) yields (protocol.md §1.3). */
export function deriveVerifier(bigStretchedPW: Uint8Array): { verifyHash: string; wrapwrapKey: Uint8Array } {
  return {
    verifyHash: toHex(namedHkdf(bigStretchedPW, 'verifyHash', 32)),
    wrapwrapKey: namedHkdf(bigStretchedPW, 'wrapwrapKey', 32),
  };
}

/** kB = wrapKb XOR unwrapBKey (client only); the same XOR turns kB back into wrapKb. */
export function unwrapKb(wrapKb: string, unwrapBKey: string): string {
  const a = fromHex(wrapKb);
  const b = fromHex(unwrapBKey);
  return toHex(a.map((x, i) => x ^ b[i]!));
}
