import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSigningKey } from '../../../src/platform/keys/index.js';

describe('the signing key (issue 9, hole 9)', () => {
  const keyFile = (bits: number) => {
    const file = join(mkdtempSync(join(tmpdir(), 'key-')), 'key.pem');
    writeFileSync(file, generateKeyPairSync('rsa', { modulusLength: bits }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    return file;
  };

  it('refuses an RSA key under 2048 bits in production, accepts 2048', () => {
    const small = keyFile(1024);
    expect(() => loadSigningKey({ file: small, devFile: '', production: true })).toThrow(/1024-bit.*2048/);
    expect(loadSigningKey({ file: keyFile(2048), devFile: '', production: true }).publicJwk.kty).toBe('RSA');
  });

  it('needs a key file in production', () => {
    expect(() => loadSigningKey({ file: '', devFile: '/nonexistent/key.pem', production: true })).toThrow(/SIGNING_KEY_FILE must be set/);
  });
});
