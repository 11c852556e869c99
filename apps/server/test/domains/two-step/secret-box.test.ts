import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../../src/domains/two-step/index.js';

// TOTP secrets at rest: AES-256-GCM under TOTP_ENCRYPTION_KEY, bound to the account.

describe('SecretBox', () => {
  const key = 'a1'.repeat(32);
  const uid = '0123456789abcdef0123456789abcdef';
  const secret = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

  it('seals a secret so that only the same key and account open it', () => {
    const box = new SecretBox(key);
    const sealed = box.seal(uid, secret);
    expect(sealed).not.toContain(secret);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    // A fresh IV each time.
    expect(box.seal(uid, secret)).not.toBe(sealed);
    expect(box.open(uid, sealed)).toBe(secret);
    // Copied to another account's row: does not open.
    expect(() => box.open('f'.repeat(32), sealed)).toThrow();
    // Another key: does not open.
    expect(() => new SecretBox('b2'.repeat(32)).open(uid, sealed)).toThrow();
    // Tampered: does not open.
    const [v, iv, ct, tag] = sealed.split('.');
    const flipped = Buffer.from(ct!, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box.open(uid, [v, iv, flipped.toString('base64url'), tag].join('.'))).toThrow();
    expect(() => box.open(uid, 'not sealed')).toThrow();
  });

  it('hashes backup codes per account, without case, under a key the database does not hold', () => {
    const box = new SecretBox(key);
    const hash = box.hashCode(uid, 'AbCdEfGh12');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(box.hashCode(uid, 'abcdefgh12')).toBe(hash);
    expect(box.hashCode('f'.repeat(32), 'abcdefgh12')).not.toBe(hash);
    expect(new SecretBox('b2'.repeat(32)).hashCode(uid, 'abcdefgh12')).not.toBe(hash);
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new SecretBox('ab'.repeat(16))).toThrow(/32 bytes/);
  });
});
