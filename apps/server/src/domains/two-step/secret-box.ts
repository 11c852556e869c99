import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

// TOTP secrets at rest (issue 12): AES-256-GCM under TOTP_ENCRYPTION_KEY, the account's uid as
// associated data (a sealed secret copied to another account's row does not open). Stored as
// `v1.<iv>.<ciphertext>.<tag>`, base64url. Backup codes are hashed with HMAC-SHA256 under a key
// derived from the same key (HKDF), so a copy of the database alone cannot test guesses.

const VERSION = 'v1';

export class SecretBox {
  private readonly key: Buffer;
  private readonly codeKey: Buffer;

  constructor(hexKey: string) {
    const key = Buffer.from(hexKey, 'hex');
    if (key.length !== 32) throw new Error('the TOTP encryption key must be 32 bytes (64 hex characters)');
    this.key = key;
    this.codeKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'tessera backup codes', 32));
  }

  seal(uid: string, secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(uid, 'utf8'));
    const ct = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** Throws when the value was not sealed under this key for this account. */
  open(uid: string, sealed: string): string {
    const [version, iv, ct, tag] = sealed.split('.');
    if (version !== VERSION || iv === undefined || ct === undefined || tag === undefined) throw new Error('not a sealed TOTP secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(uid, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }

  /** The stored form of a backup code: codes compare case-insensitively. */
  hashCode(uid: string, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${uid}:${code.toLowerCase()}`, 'utf8').digest('hex');
  }
}
