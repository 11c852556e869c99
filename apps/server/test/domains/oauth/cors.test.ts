import { createPrivateKey } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { generateSigningKeyPem, publicJwkFromPem } from '../../../src/platform/keys/index.js';
import { createTestServer, type TestServer } from '../../harness.js';

// Issue 14: browsers on listed origins may call the OAuth routes (preflight and answers); other
// origins get no CORS headers. /.well-known/fxa-client-configuration from configuration, and the
// /jwks rotation slots.

describe('OAuth CORS and the browser configuration document', () => {
  let t: TestServer;
  const origin = 'https://app.example';
  const dir = mkdtempSync(join(tmpdir(), 'tessera-jwks-'));
  const nextPem = generateSigningKeyPem();
  const previousPem = generateSigningKeyPem();
  beforeAll(async () => {
    writeFileSync(join(dir, 'next.pem'), nextPem);
    writeFileSync(join(dir, 'previous.pem'), previousPem);
    t = await createTestServer({ env: {
      OAUTH_CORS_ORIGINS: `${origin}, https://other.example`, SYNC_TOKENSERVER_URL: 'https://token.example/1.0/sync/1.5', PAIRING_SERVER_URL: 'wss://pair.example',
      OAUTH_NEXT_SIGNING_KEY_FILE: join(dir, 'next.pem'), OAUTH_PREVIOUS_SIGNING_KEY_FILE: join(dir, 'previous.pem'),
    } });
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

  it('publishes the next and previous keys at /jwks and accepts id_tokens the previous key signed', async () => {
    const { keys } = await t.client.jwks();
    expect(keys).toHaveLength(3);
    const previous = publicJwkFromPem(previousPem, Date.now());
    expect(keys.map((k) => k.n)).toContain(previous.n);
    const kid = keys.find((k) => k.n === previous.n)!.kid;
    const now = Math.floor(Date.now() / 1000);
    const idToken = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid }).setIssuer(t.url).setSubject('a'.repeat(32)).setAudience('0123456789abcdef')
      .setIssuedAt(now).setExpirationTime(now + 300).sign(createPrivateKey(previousPem));
    expect(await t.client.oauthIdTokenVerify({ client_id: '0123456789abcdef', id_token: idToken })).toMatchObject({ sub: 'a'.repeat(32) });
    const forged = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid }).setIssuer(t.url).setSubject('a'.repeat(32)).setAudience('0123456789abcdef')
      .setIssuedAt(now).setExpirationTime(now + 300).sign(createPrivateKey(generateSigningKeyPem()));
    await expect(t.client.oauthIdTokenVerify({ client_id: '0123456789abcdef', id_token: forged })).rejects.toThrow();
  });
});
