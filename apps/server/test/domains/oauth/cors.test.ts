import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../harness.js';

// Issue 14: browsers on listed origins may call the OAuth routes (preflight and answers); other
// origins get no CORS headers. And /.well-known/fxa-client-configuration from configuration.

describe('OAuth CORS and the browser configuration document', () => {
  let t: TestServer;
  const origin = 'https://app.example';
  beforeAll(async () => {
    t = await createTestServer({ env: { OAUTH_CORS_ORIGINS: `${origin}, https://other.example`, SYNC_TOKENSERVER_URL: 'https://token.example/1.0/sync/1.5', PAIRING_SERVER_URL: 'wss://pair.example' } });
  });
  afterAll(async () => t?.close());

  it('answers preflights and requests from listed origins only', async () => {
    const pre = await fetch(`${t.url}/v1/token`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(origin);
    expect(pre.headers.get('access-control-allow-methods')).toContain('POST');
    expect(pre.headers.get('access-control-allow-headers')).toContain('authorization');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const evil = await fetch(`${t.url}/v1/token`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();

    const jwks = await fetch(`${t.url}/v1/jwks`, { headers: { origin } });
    expect(jwks.headers.get('access-control-allow-origin')).toBe(origin);
    const err = await fetch(`${t.url}/v1/introspect`, { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
    expect(err.status).toBe(400);
    expect(err.headers.get('access-control-allow-origin')).toBe(origin);
    expect((await fetch(`${t.url}/v1/jwks`, { headers: { origin: 'https://evil.example' } })).headers.get('access-control-allow-origin')).toBeNull();
    // Routes outside OAuth get none.
    expect((await fetch(`${t.url}/v1/account/status?uid=${'0'.repeat(32)}`, { headers: { origin } })).headers.get('access-control-allow-origin')).toBeNull();
    const discovery = await fetch(`${t.url}/.well-known/openid-configuration`, { headers: { origin } });
    expect(discovery.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('serves /.well-known/fxa-client-configuration from configuration', async () => {
    expect(await (await fetch(`${t.url}/.well-known/fxa-client-configuration`)).json()).toEqual({
      auth_server_base_url: t.url, oauth_server_base_url: t.url, profile_server_base_url: t.url,
      sync_tokenserver_base_url: 'https://token.example/1.0/sync/1.5', pairing_server_base_uri: 'wss://pair.example',
    });
  });
});
