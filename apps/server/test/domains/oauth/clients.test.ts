import { mkdtempSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { ClientRegistrationError, parseClientsFile, redirectUriMatches } from '../../../src/domains/oauth/index.js';
import { checkRedirectUri } from '../../../src/domains/oauth/clients/registration.js';
import { createTestServer, httpDialects, type TestServer } from '../../harness.js';

// Issue 14, step 1: the OAuth clients registry — registration rules, exact redirect URIs with
// RFC 8252 loopback redirects, the start-up file (fixed ids, hashed secrets, rotation through the
// file), secret rotation and removal, and GET /client/{id} on both paths.

const FIREFOX = '5882386c6d801776';
const WEBCHANNEL = 'urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel';
const sha256Hex = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');

describe('redirect URIs', () => {
  const client = (redirectUris: string[], localRedirects = false) => ({ redirectUris, localRedirects });

  it('match exactly: no prefix, case, trailing-slash, query or fragment variation', () => {
    const c = client(['https://rp.example/cb']);
    expect(redirectUriMatches(c, 'https://rp.example/cb')).toBe(true);
    for (const other of ['https://rp.example/cb/', 'https://rp.example/cb?x=1', 'https://rp.example/cb#f', 'https://RP.example/cb',
      'https://rp.example/cb/../cb', 'https://rp.example/c', 'https://rp.example/cbx', 'https://rp.example.evil/cb', 'http://rp.example/cb',
      'https://rp.example:443/cb', 'https://user@rp.example/cb']) {
      expect(redirectUriMatches(c, other), other).toBe(false);
    }
  });

  it('let a native app with loopback redirects use any port, nothing else (RFC 8252 §7.3)', () => {
    const c = client(['http://127.0.0.1/callback', 'http://[::1]/callback'], true);
    expect(redirectUriMatches(c, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectUriMatches(c, 'http://[::1]:8080/callback')).toBe(true);
    for (const other of ['http://127.0.0.1:51234/other', 'http://127.0.0.1:51234/callback?x=1', 'http://localhost:51234/callback',
      'https://127.0.0.1:51234/callback', 'http://127.0.0.2:51234/callback', 'http://127.0.0.1:51234/callback#x', 'http://u:p@127.0.0.1:1/callback']) {
      expect(redirectUriMatches(c, other), other).toBe(false);
    }
    // Without the flag a loopback URI is matched exactly like any other.
    expect(redirectUriMatches(client(['http://127.0.0.1/callback']), 'http://127.0.0.1:51234/callback')).toBe(false);
  });

  it('may be registered as https, loopback http, private-use schemes or urn, never plain http or with a fragment', () => {
    for (const ok of ['https://rp.example/cb', 'http://127.0.0.1/cb', 'http://[::1]:9/cb', 'http://localhost/cb', 'com.example.app:/oauth', WEBCHANNEL]) {
      expect(checkRedirectUri(ok)).toBe(ok);
    }
    for (const bad of ['http://rp.example/cb', 'https://rp.example/cb#x', 'javascript:alert(1)', 'data:text/html,x', 'relative/cb', `https://rp.example/${'a'.repeat(256)}`, 'https://rp.example/a b']) {
      expect(() => checkRedirectUri(bad), bad).toThrow(ClientRegistrationError);
    }
  });
});

describe('OAUTH_CLIENTS_FILE', () => {
  it('reads clients with fixed ids and refuses malformed entries with the reason', () => {
    const [c] = parseClientsFile(JSON.stringify([{ id: FIREFOX.toUpperCase(), name: 'Firefox', redirectUris: [WEBCHANNEL], public: true, trusted: true, canGrant: true, allowedScopes: ['profile'] }]), 1);
    expect(c).toMatchObject({ id: FIREFOX, publicClient: true, trusted: true, canGrant: true, redirectUris: [WEBCHANNEL], allowedScopes: ['profile'] });
    expect(() => parseClientsFile('{}', 1)).toThrow(/JSON array/);
    expect(() => parseClientsFile('[{"id":"0123456789abcdef","name":"x","redirectUris":[],"secret":"ab"}]', 1)).toThrow(/unknown field secret/);
    expect(() => parseClientsFile(`[{"id":"${FIREFOX}","name":"a","redirectUris":[]},{"id":"${FIREFOX}","name":"b","redirectUris":[]}]`, 1)).toThrow(/twice/);
    expect(() => parseClientsFile('[{"id":"0123456789abcdef","name":"x","redirectUris":"https://a.example/"}]', 1)).toThrow(/array of strings/);
  });
});

describe.each(httpDialects())('the OAuth clients registry (%s)', (dialect) => {
  let t: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'tessera-oauth-clients-'));
  const file = join(dir, 'clients.json');
  const rpId = randomHex(8);
  const rpSecret = randomHex(32);
  const entries = (secretHash: string) => [
    { id: FIREFOX, name: 'Firefox', redirectUris: [WEBCHANNEL], public: true, trusted: true, canGrant: true, allowedScopes: ['profile', 'https://identity.mozilla.com/apps/oldsync'] },
    { id: rpId, name: 'Relying party', imageUri: 'https://rp.example/logo.png', redirectUris: ['https://rp.example/cb', 'https://rp.example/cb2'], hashedSecret: secretHash, allowedScopes: ['openid', 'profile'], accessTokenTtlSeconds: 3600, rotateRefreshTokens: true },
  ];
  beforeAll(async () => {
    writeFileSync(file, JSON.stringify(entries(sha256Hex(rpSecret))));
    t = await createTestServer({ dialect, env: { OAUTH_CLIENTS_FILE: file } });
  });
  afterAll(async () => t?.close());
  const get = async (path: string) => {
    const res = await fetch(`${t.url}/v1${path}`);
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };

  it('registers the file\'s clients at start and shows their public details on both paths', async () => {
    const { oauth } = t.app.services;
    const rp = (await oauth.findClient(t.storage.db, rpId))!;
    expect(rp).toMatchObject({ name: 'Relying party', redirectUris: ['https://rp.example/cb', 'https://rp.example/cb2'], accessTokenTtlSeconds: 3600, rotateRefreshTokens: true, publicClient: false });
    expect(oauth.clientSecretMatches(rp, rpSecret)).toBe(true);
    expect(JSON.stringify(rp)).not.toContain(rpSecret);
    const expected = { id: rpId, name: 'Relying party', trusted: false, image_uri: 'https://rp.example/logo.png', redirect_uri: 'https://rp.example/cb' };
    expect(await get(`/client/${rpId}`)).toEqual({ status: 200, body: expected });
    expect(await get(`/oauth/client/${rpId.toUpperCase()}`)).toEqual({ status: 200, body: expected });
    expect((await get(`/client/${FIREFOX}`)).body).toMatchObject({ id: FIREFOX, trusted: true, redirect_uri: WEBCHANNEL });
    expect(await t.client.oauthClient(rpId)).toEqual(expected);
    expect(await t.client.client(rpId)).toEqual(expected);
  });

  it('answers 400/162 for an unknown client and 400/107 for an id that is not 16 hex', async () => {
    expect(await get(`/client/${randomHex(8)}`)).toMatchObject({ status: 400, body: { errno: 101 } });
    expect(await get(`/oauth/client/${randomHex(8)}`)).toMatchObject({ status: 400, body: { errno: 162 } });
    expect(await get('/client/not-a-client-id!')).toMatchObject({ status: 400, body: { errno: 109 } });
    expect(await get('/oauth/client/not-a-client-id!')).toMatchObject({ status: 400, body: { errno: 107 } });
  });

  it('rotates secrets (the previous one works until finished) and removes clients with their tokens', async () => {
    const { oauth } = t.app.services;
    const db = t.storage.db;
    const registered = await oauth.registerClient(db, { id: randomHex(8), name: 'Rotating', redirectUris: ['https://rot.example/cb'], secret: randomHex(32), trusted: false, publicClient: false, canGrant: false, allowedScopes: [], createdAt: 1 });
    const old = randomHex(32);
    await oauth.removeClient(db, registered.id);
    await oauth.registerClient(db, { id: registered.id, name: 'Rotating', redirectUris: ['https://rot.example/cb'], secret: old, trusted: false, publicClient: false, canGrant: false, allowedScopes: [], createdAt: 1 });
    const fresh = (await oauth.rotateSecret(db, registered.id))!;
    expect(fresh).toMatch(/^[0-9a-f]{64}$/);
    let c = (await oauth.findClient(db, registered.id))!;
    expect([oauth.clientSecretMatches(c, fresh), oauth.clientSecretMatches(c, old), oauth.clientSecretMatches(c, randomHex(32))]).toEqual([true, true, false]);
    await oauth.finishRotation(db, registered.id);
    c = (await oauth.findClient(db, registered.id))!;
    expect([oauth.clientSecretMatches(c, fresh), oauth.clientSecretMatches(c, old)]).toEqual([true, false]);
    expect(await oauth.rotateSecret(db, FIREFOX)).toBeNull(); // a public client has no secret

    const token = await oauth.issueAccessToken(db, { clientId: registered.id, uid: randomHex(16), scope: ['profile'], now: Date.now(), ttlMs: 60_000, profileChangedAt: 1 });
    expect(await oauth.removeClient(db, registered.id)).toBe(true);
    expect(await oauth.findClient(db, registered.id)).toBeNull();
    expect(await db.selectFrom('oauth_access_tokens').select('client_id').where('client_id', '=', registered.id).execute()).toEqual([]);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(await oauth.removeClient(db, registered.id)).toBe(false);
  });

  it('refuses invalid registrations: a public client with a secret, a confidential one without, bad ids, long lifetimes', async () => {
    const { oauth } = t.app.services;
    const base = { name: 'x', redirectUris: ['https://x.example/cb'], trusted: false, canGrant: false, allowedScopes: [], createdAt: 1 };
    await expect(oauth.registerClient(t.storage.db, { ...base, id: randomHex(8), publicClient: true, secret: randomHex(32) })).rejects.toThrow(/public client has no secret/);
    await expect(oauth.registerClient(t.storage.db, { ...base, id: randomHex(8), publicClient: false, secret: null })).rejects.toThrow(/needs a secret/);
    await expect(oauth.registerClient(t.storage.db, { ...base, id: 'xyz', publicClient: true })).rejects.toThrow(/16 hex/);
    await expect(oauth.registerClient(t.storage.db, { ...base, id: randomHex(8), publicClient: true, accessTokenTtlSeconds: 86_401 })).rejects.toThrow(/60–86400/);
    await expect(oauth.registerClient(t.storage.db, { ...base, id: randomHex(8), publicClient: true, redirectUris: ['http://x.example/cb'] })).rejects.toThrow(/https/);
  });

  it('updates clients from the file at the next start, keeping a replaced secret as the previous one', async () => {
    const next = randomHex(32);
    writeFileSync(file, JSON.stringify(entries(sha256Hex(next)).map((e) => (e.id === rpId ? { ...e, name: 'Renamed' } : e))));
    const { added, updated } = await t.app.services.oauth.seedClients(t.storage.db, (await import('../../../src/domains/oauth/index.js')).readClientsFile(file, Date.now()));
    expect({ added, updated }).toEqual({ added: 0, updated: 2 });
    const rp = (await t.app.services.oauth.findClient(t.storage.db, rpId))!;
    expect(rp.name).toBe('Renamed');
    expect([t.app.services.oauth.clientSecretMatches(rp, next), t.app.services.oauth.clientSecretMatches(rp, rpSecret)]).toEqual([true, true]);
  });
});
