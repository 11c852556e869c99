import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../harness.js';

// The server serves the built portal with Docusaurus' trailingSlash:false file layout.
function get(url: string, gzip = false): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: gzip ? { 'accept-encoding': 'gzip' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('serving the built portal', () => {
  let t: TestServer;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'portal-'));
    const page = (name: string) => `<!doctype html><title>${name}</title>`;
    writeFileSync(join(dir, 'index.html'), page('landing'));
    writeFileSync(join(dir, '404.html'), page('not found'));
    writeFileSync(join(dir, 'api.html'), page('api'));
    mkdirSync(join(dir, 'reference'), { recursive: true });
    writeFileSync(join(dir, 'reference/tokens.html'), page('tokens'));
    mkdirSync(join(dir, 'section'), { recursive: true });
    writeFileSync(join(dir, 'section/index.html'), page('section'));
    mkdirSync(join(dir, 'assets/js'), { recursive: true });
    writeFileSync(join(dir, 'assets/js/main.abc.js'), 'console.log("x");'.repeat(100));
    writeFileSync(join(dir, 'search-index.json'), '[]');
    t = await createTestServer({ env: { PORTAL_DIR: dir } });
  });
  afterAll(async () => t?.close());

  it('maps paths the way the build lays them out', async () => {
    const text = async (path: string) => (await get(`${t.url}${path}`)).body.toString();
    expect((await get(`${t.url}/ecosystem-platform`)).status).toBe(302);
    expect((await get(`${t.url}/`)).headers.location).toBe('/ecosystem-platform/');
    expect(await text('/ecosystem-platform/')).toContain('landing');
    expect(await text('/ecosystem-platform/api')).toContain('<title>api');
    expect(await text('/ecosystem-platform/reference/tokens')).toContain('tokens');
    expect(await text('/ecosystem-platform/section')).toContain('section');
    expect(await text('/ecosystem-platform/section/')).toContain('section');
    expect(await text('/ecosystem-platform/search-index.json')).toBe('[]');
  });

  it('answers unknown pages with the portal 404 page and status 404, and refuses escapes', async () => {
    const missing = await get(`${t.url}/ecosystem-platform/no/such/page`);
    expect(missing.status).toBe(404);
    expect(missing.body.toString()).toContain('not found');
    const escape = await get(`${t.url}/ecosystem-platform/..%2f..%2fpackage.json`);
    expect(escape.status).toBe(404);
  });

  it('gzips text and caches hashed assets for a year, pages not at all', async () => {
    const asset = await get(`${t.url}/ecosystem-platform/assets/js/main.abc.js`, true);
    expect(asset.headers['content-encoding']).toBe('gzip');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(gunzipSync(asset.body).toString()).toContain('console.log');
    expect(asset.body.length).toBeLessThan(1700);
    const page = await get(`${t.url}/ecosystem-platform/api`);
    expect(page.headers['cache-control']).toBe('no-cache');
    expect(page.headers['content-encoding']).toBeUndefined();
  });

  it('sends its pages with a CSP that forbids framing, and nosniff and a referrer policy on everything (issue 9, hole 11)', async () => {
    for (const path of ['/ecosystem-platform/', '/ecosystem-platform/no/such/page']) {
      const page = await get(`${t.url}${path}`);
      expect(page.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(page.headers['content-security-policy']).toMatch(/object-src 'none'/);
      expect(page.headers['x-frame-options']).toBe('DENY');
      expect(page.headers['x-content-type-options']).toBe('nosniff');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      // PUBLIC_URL is http here: no HSTS on a plain-HTTP origin.
      expect(page.headers['strict-transport-security']).toBeUndefined();
    }
    const asset = await get(`${t.url}/ecosystem-platform/assets/js/main.abc.js`);
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    expect(asset.headers['content-security-policy']).toBeUndefined();
  });
});
