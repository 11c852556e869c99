import { createECDH, type ECDH } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The server's VAPID key pair (RFC 8292 §3.2), base64url: the raw private scalar and the uncompressed public point. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/**
 * The key pair of a private key given as 32 bytes base64url; throws on anything else. `short`
 * accepts a scalar written without its leading zero bytes (what `ECDH.getPrivateKey()` returns
 * for about one key in 256), as data folders written before the padding fix hold.
 */
export function vapidKeysFrom(privateKey: string, options: { short?: boolean } = {}): VapidKeys {
  let raw = Buffer.from(privateKey.trim(), 'base64url');
  if (options.short && raw.length > 0 && raw.length < 32) raw = Buffer.concat([Buffer.alloc(32 - raw.length), raw]);
  if (raw.length !== 32) throw new Error('VAPID_PRIVATE_KEY must be 32 bytes, base64url');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(raw);
  return { privateKey: raw.toString('base64url'), publicKey: ecdh.getPublicKey().toString('base64url') };
}

/**
 * VAPID_PRIVATE_KEY, else (outside production) the data folder's: generated once into `devFile`
 * (mode 0600) and read back, so push subscriptions made against it keep working across restarts.
 */
export function loadVapidKeys(options: { privateKey: string; devFile: string; production: boolean }): VapidKeys {
  if (options.privateKey) return vapidKeysFrom(options.privateKey);
  if (options.production) throw new Error('VAPID_PRIVATE_KEY must be set when NODE_ENV=production');
  if (!existsSync(options.devFile)) {
    mkdirSync(dirname(options.devFile), { recursive: true });
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    try {
      writeFileSync(options.devFile, `${privateScalar(ecdh).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  return vapidKeysFrom(readFileSync(options.devFile, 'utf8'), { short: true });
}

/** The private scalar as exactly 32 bytes: `getPrivateKey()` drops leading zero bytes. */
export function privateScalar(ecdh: ECDH): Buffer {
  const raw = ecdh.getPrivateKey();
  return raw.length === 32 ? raw : Buffer.concat([Buffer.alloc(32 - raw.length), raw]);
}
