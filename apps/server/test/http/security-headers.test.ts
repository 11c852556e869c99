import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../harness.js';
import { rawRequest } from '../helpers.js';

// Issue 9, hole 11: the headers every answer carries, on an https origin and on a plain one.
describe('security headers', () => {
  let plain: TestServer;
  let https: TestServer;
  beforeAll(async () => {
    plain = await createTestServer();
    // The server itself listens on http here; what matters is the origin clients are given.
    https = await createTestServer({ env: { PUBLIC_URL: 'https://accounts.example.test' } });
  });
  afterAll(async () => {
    await plain?.close();
    await https?.close();
  });

  it('API answers, successes and errors alike, carry nosniff and no-referrer; HSTS only on an https origin', async () => {
    for (const r of [
      await rawRequest(plain.url, 'POST', '/get_random_bytes'),
      await rawRequest(plain.url, 'GET', '/no/such/route'),
      await rawRequest(plain.url, 'GET', '/.well-known/public-keys'),
    ]) {
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
      expect(r.headers.get('strict-transport-security')).toBeNull();
    }
    const secure = await rawRequest(https.url, 'POST', '/get_random_bytes');
    expect(secure.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(secure.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('the pages emailed links open keep their own strict CSP and cannot be framed', async () => {
    const page = await fetch(`${https.url}/verify_email?uid=${'a'.repeat(32)}&code=${'b'.repeat(32)}`);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(page.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
