import { ECDH } from 'node:crypto';
import { appError } from '@tessera/errors';

// The device rules that schemas cannot say: the push keys must be usable for RFC 8291 encryption.

// Display-safe text is a platform rule now (http/schemas.ts): recovery key hints use it too.
export { DISPLAY_SAFE_PATTERN } from '../../http/schemas.js';

function invalid(key: string, message: string): never {
  throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: [key], rule: 'push-key', message } }, `Invalid parameter in request body: ${message}`);
}

/**
 * Checks a subscription's keys (an empty pair is "no keys"): the public key an uncompressed P-256
 * point (65 bytes, RFC 8291 §3.1), the auth secret 16 bytes (§3.2). A push encrypted to anything
 * else could never be read, so it is refused when registered rather than failing at every push.
 */
export function checkPushKeys(publicKey: string, authKey: string): void {
  if (publicKey === '' && authKey === '') return;
  if ((publicKey === '') !== (authKey === '')) invalid(publicKey === '' ? 'pushPublicKey' : 'pushAuthKey', 'pushPublicKey and pushAuthKey are both empty or both set');
  const point = Buffer.from(publicKey, 'base64url');
  let valid = point.length === 65 && point[0] === 4;
  if (valid) {
    try {
      ECDH.convertKey(point, 'prime256v1');
    } catch {
      valid = false;
    }
  }
  if (!valid) invalid('pushPublicKey', 'pushPublicKey must be an uncompressed P-256 public key (65 bytes, base64url)');
  if (Buffer.from(authKey, 'base64url').length !== 16) invalid('pushAuthKey', 'pushAuthKey must be 16 bytes, base64url');
}
