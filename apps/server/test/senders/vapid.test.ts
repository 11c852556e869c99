import { createECDH } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadVapidKeys, privateScalar, vapidKeysFrom } from '../../src/senders/push/vapid.js';

/** A P-256 key whose scalar starts with a zero byte: about one generated key in 256. */
function keyWithLeadingZero() {
  for (let i = 0; i < 20_000; i++) {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    if (ecdh.getPrivateKey().length < 32) return ecdh;
  }
  throw new Error('no key with a leading zero byte in 20000 tries');
}

describe('VAPID keys', () => {
  it('pads a scalar with a leading zero byte to 32 bytes, and the padded key is the same key', () => {
    const ecdh = keyWithLeadingZero();
    const scalar = privateScalar(ecdh);
    expect(scalar.length).toBe(32);
    expect(scalar[0]).toBe(0);
    const keys = vapidKeysFrom(scalar.toString('base64url'));
    expect(keys.publicKey).toBe(ecdh.getPublicKey().toString('base64url'));
  });

  it('reads a data-folder key written without its leading zero, but refuses a short VAPID_PRIVATE_KEY', () => {
    const ecdh = keyWithLeadingZero();
    const short = ecdh.getPrivateKey().toString('base64url');
    const devFile = join(mkdtempSync(join(tmpdir(), 'vapid-')), 'vapid.key');
    writeFileSync(devFile, `${short}\n`);
    const keys = loadVapidKeys({ privateKey: '', devFile, production: false });
    expect(keys.publicKey).toBe(ecdh.getPublicKey().toString('base64url'));
    expect(() => loadVapidKeys({ privateKey: short, devFile, production: false })).toThrow(/32 bytes/);
  });

  it('writes a 32-byte key into a new data folder and reads the same one back on the next start', () => {
    const devFile = join(mkdtempSync(join(tmpdir(), 'vapid-')), 'keys', 'vapid.key');
    const first = loadVapidKeys({ privateKey: '', devFile, production: false });
    expect(Buffer.from(readFileSync(devFile, 'utf8').trim(), 'base64url').length).toBe(32);
    expect(loadVapidKeys({ privateKey: '', devFile, production: false })).toEqual(first);
    expect(() => loadVapidKeys({ privateKey: '', devFile, production: true })).toThrow(/production/);
  });
});
