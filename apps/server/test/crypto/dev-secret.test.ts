import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { developmentSecret } from '../../src/crypto/dev-secret.js';

// Issue 9, hole 9: outside production the HMAC key is random per data folder, never a published value.
describe('the development AUTH_SECRET', () => {
  it('is generated once per data folder (0600), read back on later starts, and differs between folders', () => {
    const a = join(mkdtempSync(join(tmpdir(), 'secret-')), 'data', 'auth-secret');
    const b = join(mkdtempSync(join(tmpdir(), 'secret-')), 'auth-secret');
    const first = developmentSecret(a);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(a).mode & 0o777).toBe(0o600);
    expect(developmentSecret(a)).toBe(first);
    expect(readFileSync(a, 'utf8').trim()).toBe(first);
    expect(developmentSecret(b)).not.toBe(first);
  });

  it('refuses a file that holds no usable secret', () => {
    const f = join(mkdtempSync(join(tmpdir(), 'secret-')), 'auth-secret');
    writeFileSync(f, 'short\n');
    expect(() => developmentSecret(f)).toThrow(/no usable secret/);
  });
});
