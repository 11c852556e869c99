import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { randomHex } from '@tessera/protocol';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { hashToken } from '../../../src/domains/oauth/token-hash.js';
import { findRefreshToken } from '../../../src/domains/oauth/grants/store.js';
import { REFRESH_TOUCH_INTERVAL_MS } from '../../../src/domains/oauth/grants/refresh-token.js';

// Issue 14, step 2: the authorization-code flow with PKCE on the session-token path, the token
// endpoint (JSON and form bodies, Basic and body client secrets), refresh grants with and without
// rotation, id_tokens checked against /jwks, and the RFC 9700 attacks: replayed codes, PKCE
// mismatch and downgrade, redirect_uri tampering, expired codes, wrong secrets, scope escalation.

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe.each(httpDialects())('OAuth authorization codes and tokens (%s)', (dialect) => {
  let t: TestServer;
  let session: string;
  let uid: string;
  const pub = randomHex(8);
  const conf = randomHex(8);
  const confSecret = randomHex(32);
  const rotating = randomHex(8);
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true });
    const { oauth } = t.app.services;
    const db = t.storage.db;
    await oauth.registerClient(db, { id: pub, name: 'Native app', redirectUris: ['http://127.0.0.1/cb', 'com.example.app:/cb'], localRedirects: true, publicClient: true, trusted: false, canGrant: false, allowedScopes: ['profile', 'profile:email'], createdAt: 1 });
    await oauth.registerClient(db, { id: conf, name: 'Web RP', redirectUris: ['https://rp.example/cb'], secret: confSecret, publicClient: false, trusted: false, canGrant: false, allowedScopes: ['profile'], accessTokenTtlSeconds: 3600, createdAt: 1 });
    await oauth.registerClient(db, { id: rotating, name: 'Rotating', redirectUris: ['https://rot.example/cb'], publicClient: true, trusted: false, canGrant: false, allowedScopes: ['profile'], rotateRefreshTokens: true, createdAt: 1 });
    const account = await verifiedAccount(t);
    session = account.sessionToken;
    uid = account.uid;
  }, 120_000);
  afterAll(async () => t?.close());

  const authorize = (body: Record<string, unknown>) => t.client.oauthAuthorization(session, { client_id: pub, scope: 'openid profile', code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256', ...body } as never);
  const post = async (path: string, body: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body).toString() });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };

  it('runs the code flow with PKCE: code, token, id_token signed with a /jwks key, refresh', async () => {
    const a = await authorize({ state: 'xyz', access_type: 'offline', redirect_uri: 'http://127.0.0.1:49152/cb', nonce: 'n-0S6' });
    expect(a.code).toMatch(/^[0-9a-f]{64}$/);
    expect(a.redirect).toBe(`http://127.0.0.1:49152/cb?code=${a.code}&state=xyz&iss=${encodeURIComponent(t.url)}`);
    const tok = await t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER, redirect_uri: 'http://127.0.0.1:49152/cb' });
    expect(tok).toMatchObject({ token_type: 'bearer', scope: 'openid profile', expires_in: 86_400 });
    expect(tok.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(tok.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    const jwks = createRemoteJWKSet(new URL(`${t.url}/v1/jwks`));
    const { payload, protectedHeader } = await jwtVerify(tok.id_token!, jwks, { issuer: t.url, audience: pub, currentDate: new Date(t.clock!.now()) });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: uid, nonce: 'n-0S6', amr: ['pwd', 'email'], acr: 'AAL1' });
    expect(payload.at_hash).toBe(createHash('sha256').update(tok.access_token).digest().subarray(0, 16).toString('base64url'));
    expect(payload.exp! - payload.iat!).toBe(300);

    // The same flow on the OAuth-server paths, with a form body.
    const b = await t.client.authorization(session, { client_id: pub, scope: 'profile', code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' });
    const form = await post('/token', { client_id: pub, code: b.code, code_verifier: VERIFIER, grant_type: 'authorization_code' });
    expect(form.status).toBe(200);
    expect(form.body).toMatchObject({ scope: 'profile', token_type: 'bearer' });
    expect(form.body).not.toHaveProperty('refresh_token');
    expect(form.body).not.toHaveProperty('id_token');

    // Refresh: same scope by default, narrower on request, never wider; another client's token is unknown.
    const r1 = await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: tok.refresh_token!, scope: 'profile' });
    expect(r1.scope).toBe('profile');
    expect(r1).not.toHaveProperty('refresh_token'); // this client does not rotate
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: tok.refresh_token!, scope: 'profile profile:email' }), 'INVALID_SCOPES', 400);
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: rotating, refresh_token: tok.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: randomHex(32) }), 'REFRESH_TOKEN_UNKNOWN', 400);
    expect((await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: tok.refresh_token! })).scope).toBe('openid profile');
  });

  it('writes a refresh token\'s last use at most hourly; every refresh still issues a live access token', async () => {
    const a = await authorize({ access_type: 'offline' });
    const tok = await t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER });
    const lastUsed = async () => (await findRefreshToken(t.storage.db, hashToken(tok.refresh_token!)))!.lastUsedAt;
    const issuedAt = t.clock!.now();
    expect(await lastUsed()).toBe(issuedAt);
    const refresh = () => t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: tok.refresh_token! });
    const live = async (accessToken: string) => (await post('/introspect', { client_id: pub, token: accessToken })).body.active;

    t.clock!.advance(REFRESH_TOUCH_INTERVAL_MS - 1);
    const r1 = await refresh();
    expect(await live(r1.access_token)).toBe(true);
    expect(await lastUsed()).toBe(issuedAt);

    t.clock!.advance(1);
    const r2 = await refresh();
    expect(await live(r2.access_token)).toBe(true);
    expect(await lastUsed()).toBe(t.clock!.now());
    expect(r2.access_token).not.toBe(r1.access_token);

    // Revoked, the token issues nothing more, touched or not.
    await post('/destroy', { client_id: pub, token: tok.refresh_token!, token_type_hint: 'refresh_token' });
    await expectError(refresh(), 'REFRESH_TOKEN_UNKNOWN', 400);
  });

  it('refuses a replayed code and revokes what its first use issued', async () => {
    const a = await authorize({ access_type: 'offline' });
    const first = await t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER });
    await expectError(t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER }), 'UNKNOWN_AUTHORIZATION_CODE', 400);
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: first.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
    const stored = await t.storage.db.selectFrom('oauth_access_tokens').select('token_hash').where('token_hash', '=', createHash('sha256').update(Buffer.from(first.access_token, 'hex')).digest('hex')).execute();
    expect(stored).toEqual([]);
  });

  it('refuses concurrent uses of one code but one, and revokes the winner\'s tokens', async () => {
    const a = await authorize({ access_type: 'offline' });
    const results = await Promise.allSettled([1, 2, 3].map(() => t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const won = (results.find((r) => r.status === 'fulfilled') as PromiseFulfilledResult<{ refresh_token?: string }>).value;
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: won.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
  });

  it('checks PKCE: required for public clients, S256 only, the verifier must match', async () => {
    await expectError(t.client.oauthAuthorization(session, { client_id: pub, scope: 'profile' }), 'MISSING_PKCE_PARAMETERS', 400);
    await expectError(t.client.oauthAuthorization(session, { client_id: pub, scope: 'profile', code_challenge: VERIFIER, code_challenge_method: 'plain' } as never), 'INVALID_PARAMETER', 400);
    await expectError(t.client.oauthAuthorization(session, { client_id: pub, scope: 'profile', code_challenge: challengeOf(VERIFIER) }), 'MISSING_PKCE_PARAMETERS', 400);
    const a = await authorize({});
    await expectError(t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: `${VERIFIER.slice(0, -1)}A` }), 'INVALID_PKCE_CHALLENGE', 400);
    await expectError(t.client.oauthToken(undefined, { client_id: pub, code: a.code }), 'MISSING_PKCE_PARAMETERS', 400);
    // The failures did not spend the code.
    expect((await t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER })).scope).toBe('openid profile');
  });

  it('matches redirect URIs exactly and makes /token repeat the one named', async () => {
    for (const bad of ['http://127.0.0.1:1/cb/', 'http://localhost:1/cb', 'com.example.app:/cb/evil', 'https://rp.example/cb']) {
      await expectError(authorize({ redirect_uri: bad }), 'INCORRECT_REDIRECT_URI', 400);
    }
    const a = await authorize({ redirect_uri: 'com.example.app:/cb' });
    await expectError(t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER, redirect_uri: 'com.example.app:/other' }), 'INCORRECT_REDIRECT_URI', 400);
    await expectError(t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER }), 'INCORRECT_REDIRECT_URI', 400);
    expect((await t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER, redirect_uri: 'com.example.app:/cb' })).token_type).toBe('bearer');
  });

  it('expires codes after 15 minutes', async () => {
    const a = await authorize({});
    t.clock!.advance(15 * 60_000 + 1);
    await expectError(t.client.oauthToken(undefined, { client_id: pub, code: a.code, code_verifier: VERIFIER }), 'EXPIRED_AUTHORIZATION_CODE', 400);
  });

  it('authenticates confidential clients by Basic or body secret, never a wrong one, and keeps codes to their client', async () => {
    const code = async () => (await t.client.oauthAuthorization(session, { client_id: conf, scope: 'profile', redirect_uri: 'https://rp.example/cb' })).code;
    const basic = `Basic ${Buffer.from(`${conf}:${confSecret}`).toString('base64')}`;
    const ok = await post('/token', { grant_type: 'authorization_code', code: await code(), redirect_uri: 'https://rp.example/cb' }, { authorization: basic });
    expect(ok).toMatchObject({ status: 200, body: { scope: 'profile', expires_in: 3600 } });
    expect((await post('/oauth/token', { client_id: conf, client_secret: confSecret, code: await code(), redirect_uri: 'https://rp.example/cb' })).status).toBe(200);
    const c = await code();
    const wrong = await post('/token', { grant_type: 'authorization_code', code: c, redirect_uri: 'https://rp.example/cb' }, { authorization: `Basic ${Buffer.from(`${conf}:${randomHex(32)}`).toString('base64')}` });
    expect(wrong).toMatchObject({ status: 400, body: { errno: 102 } });
    expect((await post('/token', { client_id: conf, code: c, redirect_uri: 'https://rp.example/cb' })).body).toMatchObject({ errno: 102 });
    expect((await post('/oauth/token', { client_id: conf, code: c, redirect_uri: 'https://rp.example/cb' })).body).toMatchObject({ errno: 171 });
    // Another client cannot redeem it, even knowing it.
    expect((await post('/token', { client_id: pub, code: c, code_verifier: VERIFIER })).body).toMatchObject({ errno: 106 });
    expect((await post('/oauth/token', { client_id: pub, code: c, code_verifier: VERIFIER })).body).toMatchObject({ errno: 173 });
    // Parameters sent twice are refused (RFC 6749 §3.2).
    const twice = await fetch(`${t.url}/v1/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `client_id=${conf}&client_id=${pub}&code=${c}` });
    expect(twice.status).toBe(400);
    expect((await post('/token', { client_id: conf, client_secret: confSecret, code: c, redirect_uri: 'https://rp.example/cb' })).status).toBe(200);
  });

  it('rotates refresh tokens for clients that ask for it: the used one stops working, and presenting it again ends the grant', async () => {
    const a = await t.client.oauthAuthorization(session, { client_id: rotating, scope: 'profile', access_type: 'offline', code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' });
    const tok = await t.client.oauthToken(undefined, { client_id: rotating, code: a.code, code_verifier: VERIFIER });
    const r1 = await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: rotating, refresh_token: tok.refresh_token! });
    expect(r1.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    expect(r1.refresh_token).not.toBe(tok.refresh_token);
    const r2 = await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: rotating, refresh_token: r1.refresh_token! });
    expect(r2.scope).toBe('profile');
    // Reuse detection (RFC 9700 §4.14.2): the replaced token is refused, and the current one goes with it.
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: rotating, refresh_token: tok.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: rotating, refresh_token: r2.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
  });

  it('refuses scopes the client is not allowed, the implicit flow and unknown clients', async () => {
    await expectError(authorize({ scope: 'profile https://identity.mozilla.com/apps/oldsync' }), 'INVALID_SCOPES', 400);
    await expectError(authorize({ response_type: 'token' }), 'INVALID_RESPONSE_TYPE', 400);
    await expectError(authorize({ client_id: randomHex(8) }), 'UNKNOWN_CLIENT_ID', 400);
    await expectError(authorize({ acr_values: 'AAL2' }), 'INSUFFICIENT_ACR_VALUES', 400);
  });

  it('grants first-party (canGrant) clients tokens for a session with fxa-credentials, Basic auth passing the auth layer', async () => {
    const browser = randomHex(8);
    const browserSecret = randomHex(32);
    await t.app.services.oauth.registerClient(t.storage.db, { id: browser, name: 'Browser', redirectUris: ['urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel'], secret: browserSecret, publicClient: false, trusted: true, canGrant: true, allowedScopes: ['profile'], createdAt: 1 });
    const basic = { authorization: `Basic ${Buffer.from(`${browser}:${browserSecret}`).toString('base64')}` };
    const tok = await t.client.oauthToken({ sessionToken: session }, { grant_type: 'fxa-credentials', client_id: browser, client_secret: browserSecret, scope: 'profile', access_type: 'offline', ttl: 600 });
    expect(tok).toMatchObject({ scope: 'profile', token_type: 'bearer', expires_in: 600 });
    expect(tok.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    // Without a session, or for a client without canGrant, no tokens.
    await expectError(t.client.oauthToken(undefined, { grant_type: 'fxa-credentials', client_id: browser, client_secret: browserSecret }), 'INVALID_TOKEN', 401);
    await expectError(t.client.oauthToken({ sessionToken: session }, { grant_type: 'fxa-credentials', client_id: pub, scope: 'profile' }), 'INVALID_SCOPES', 400);
    // A Basic header on /oauth/token is client authentication, not a refused token.
    const res = await fetch(`${t.url}/v1/oauth/token`, { method: 'POST', headers: { ...basic, 'content-type': 'application/json' }, body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: tok.refresh_token }) });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { scope: string }).scope).toBe('profile');
  });

  it('serves a clear page at GET /authorization and the signing key at /jwks', async () => {
    const page = await fetch(`${t.url}/v1/authorization?client_id=${pub}&response_type=code`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('not available yet');
    const jwks = await t.client.jwks();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
  });
});
