import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys, hawkHeader, randomHex } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, expectOAuthError, rawRequest, type RawRequest } from '../../helpers.js';

// The two catalogues (spec 2 §8, protocol.md §6): the OAuth server's own calls answer OAuth errnos
// (101–121, 999), their auth-server twins under /oauth/ answer auth errnos, for the same failure.
// Each case is sent to both paths.

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';

describe.each(httpDialects())('OAuth errnos on the OAuth server\'s routes, auth errnos on their /oauth twins (%s)', (dialect) => {
  let t: TestServer;
  let session: string;
  const pub = randomHex(8);
  const conf = randomHex(8);
  const confSecret = randomHex(32);
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true });
    const db = t.storage.db;
    const { oauth } = t.app.services;
    await oauth.registerClient(db, { id: pub, name: 'Native app', redirectUris: ['com.example.app:/cb'], publicClient: true, trusted: false, canGrant: false, allowedScopes: ['profile'], createdAt: 1 });
    await oauth.registerClient(db, { id: conf, name: 'Web RP', redirectUris: ['https://rp.example/cb'], secret: confSecret, publicClient: false, trusted: false, canGrant: false, allowedScopes: ['profile'], createdAt: 1 });
    session = (await verifiedAccount(t)).sessionToken;
  }, 120_000);
  afterAll(async () => t?.close());

  const pkce = { code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' as const };
  /** A promise checked later: marked handled now, so its rejection is not reported before the check awaits it. */
  const later = <T>(p: Promise<T>) => {
    p.catch(() => undefined);
    return p;
  };
  /** POST /authorization (OAuth server) and /oauth/authorization (auth server) with one body. */
  const authorizeBoth = (body: Record<string, unknown>) => {
    const full = { client_id: pub, scope: 'profile', ...pkce, ...body } as never;
    return [later(t.client.authorization(session, full)), later(t.client.oauthAuthorization(session, full))] as const;
  };
  const code = async () => (await t.client.oauthAuthorization(session, { client_id: pub, scope: 'profile', ...pkce })).code;
  const post = (path: string, options: RawRequest) => rawRequest(t.url, 'POST', path, options);

  it('unknown client: 101 vs 162, on /authorization, /token, /introspect, /destroy, /key-data and /client/{id}', async () => {
    const stranger = randomHex(8);
    const [oauth, auth] = authorizeBoth({ client_id: stranger });
    expect((await expectError(oauth, 'UNKNOWN_CLIENT', 400)).body).toMatchObject({ errno: 101, clientId: stranger });
    expect((await expectError(auth, 'UNKNOWN_CLIENT_ID', 400)).body).toMatchObject({ errno: 162, clientId: stranger });
    expectOAuthError(await post('/token', { body: { client_id: stranger, code: randomHex(32) } }), 'UNKNOWN_CLIENT');
    expectError(await post('/oauth/token', { body: { client_id: stranger, code: randomHex(32) } }), 'UNKNOWN_CLIENT_ID');
    expectOAuthError(await post('/introspect', { body: { client_id: stranger, token: randomHex(32) } }), 'UNKNOWN_CLIENT');
    expectOAuthError(await post('/destroy', { body: { client_id: stranger, token: randomHex(32) } }), 'UNKNOWN_CLIENT');
    expectError(await post('/oauth/destroy', { body: { client_id: stranger, token: randomHex(32) } }), 'UNKNOWN_CLIENT_ID');
    await expectError(t.client.keyData(session, { client_id: stranger, scope: 'profile' }), 'UNKNOWN_CLIENT', 400);
    await expectError(t.client.accountScopedKeyData(session, { client_id: stranger, scope: 'profile' }), 'UNKNOWN_CLIENT_ID', 400);
    expectOAuthError(await rawRequest(t.url, 'GET', `/client/${stranger}`), 'UNKNOWN_CLIENT');
  });

  it('incorrect secret: 102 vs 171, at /token and /destroy', async () => {
    const wrong = { client_id: conf, client_secret: randomHex(32), token: randomHex(32) };
    expectOAuthError(await post('/destroy', { body: wrong }), 'INCORRECT_SECRET');
    expectError(await post('/oauth/destroy', { body: wrong }), 'INCORRECT_CLIENT_SECRET');
    expectOAuthError(await post('/introspect', { body: wrong }), 'INCORRECT_SECRET');
    const basic = `Basic ${Buffer.from(`${conf}:${randomHex(32)}`).toString('base64')}`;
    expectOAuthError(await post('/token', { body: { code: randomHex(32) }, authorization: basic }), 'INCORRECT_SECRET');
  });

  it('redirect_uri mismatch 103 vs 167, invalid response_type 110 vs 168, invalid scopes 114 vs 163, acr 120 vs 170', async () => {
    let [oauth, auth] = authorizeBoth({ redirect_uri: 'com.example.app:/other' });
    await expectError(oauth, 'INCORRECT_REDIRECT', 400);
    await expectError(auth, 'INCORRECT_REDIRECT_URI', 400);
    [oauth, auth] = authorizeBoth({ response_type: 'token' });
    await expectError(oauth, 'INVALID_RESPONSE_TYPE', 400).then((e) => expect(e.errno).toBe(110));
    await expectError(auth, 'INVALID_RESPONSE_TYPE', 400).then((e) => expect(e.errno).toBe(168));
    [oauth, auth] = authorizeBoth({ scope: 'profile https://identity.example/apps/other' });
    expect((await expectError(oauth, 'INVALID_SCOPES', 400)).body).toMatchObject({ errno: 114, invalidScopes: ['https://identity.example/apps/other'] });
    expect((await expectError(auth, 'INVALID_SCOPES', 400)).body).toMatchObject({ errno: 163 });
    [oauth, auth] = authorizeBoth({ acr_values: 'AAL2' });
    await expectError(oauth, 'MISMATCH_ACR_VALUES', 400);
    await expectError(auth, 'INSUFFICIENT_ACR_VALUES', 400);
  });

  it('codes: unknown 105 vs 172, another client\'s 106 vs 173, expired 107 vs 174; PKCE 117 vs 175 and 118 vs 169', async () => {
    const unknown = { client_id: pub, code: randomHex(32), code_verifier: VERIFIER };
    expectOAuthError(await post('/token', { body: unknown }), 'UNKNOWN_CODE');
    expectError(await post('/oauth/token', { body: unknown }), 'UNKNOWN_AUTHORIZATION_CODE');
    const c = await code();
    const foreign = { client_id: conf, client_secret: confSecret, code: c };
    expectOAuthError(await post('/token', { body: foreign }), 'INCORRECT_CODE');
    expectError(await post('/oauth/token', { body: foreign }), 'MISMATCH_AUTHORIZATION_CODE');
    const mismatch = { client_id: pub, code: c, code_verifier: `${VERIFIER.slice(0, -1)}A` };
    expectOAuthError(await post('/token', { body: mismatch }), 'INCORRECT_CODE_CHALLENGE');
    expectError(await post('/oauth/token', { body: mismatch }), 'INVALID_PKCE_CHALLENGE');
    expectOAuthError(await post('/token', { body: { client_id: pub, code: c } }), 'MISSING_PKCE_PARAMETERS');
    expectError(await post('/oauth/token', { body: { client_id: pub, code: c } }), 'MISSING_PKCE_PARAMETERS');
    const [oauth, auth] = authorizeBoth({ code_challenge: undefined, code_challenge_method: undefined });
    await expectError(oauth, 'MISSING_PKCE_PARAMETERS', 400).then((e) => expect(e.errno).toBe(118));
    await expectError(auth, 'MISSING_PKCE_PARAMETERS', 400).then((e) => expect(e.errno).toBe(169));
    const [old1, old2] = [await code(), await code()];
    t.clock!.advance(15 * 60_000 + 1);
    expectOAuthError(await post('/token', { body: { client_id: pub, code: old1, code_verifier: VERIFIER } }), 'EXPIRED_CODE');
    expectError(await post('/oauth/token', { body: { client_id: pub, code: old2, code_verifier: VERIFIER } }), 'EXPIRED_AUTHORIZATION_CODE');
  });

  it('tokens: an unknown refresh token 108 vs 182, an unknown access token at /verify 108', async () => {
    const refresh = { grant_type: 'refresh_token', client_id: pub, refresh_token: randomHex(32) };
    expectOAuthError(await post('/token', { body: refresh }), 'INVALID_TOKEN');
    expectError(await post('/oauth/token', { body: refresh }), 'REFRESH_TOKEN_UNKNOWN');
    expectOAuthError(await post('/verify', { body: { token: randomHex(32) } }), 'INVALID_TOKEN');
    await expectError(t.client.authorizedClientsDestroy(session, { client_id: pub, refresh_token_id: randomHex(32) }), 'INVALID_TOKEN', 400);
  });

  it('invalid parameters 109 vs 107/108, an unknown grant_type 121 vs 107, a wrong content type 415/113 vs 415/999', async () => {
    const bad = { client_id: 'not-hex', code: randomHex(32) };
    const r = await post('/token', { body: bad });
    expectOAuthError(r, 'INVALID_PARAMETER');
    expect(r.body).toMatchObject({ validation: { source: 'payload', keys: ['client_id'] } });
    expectError(await post('/oauth/token', { body: bad }), 'INVALID_PARAMETER');
    expectOAuthError(await post('/destroy', { body: { client_id: pub } }), 'INVALID_PARAMETER');
    expectError(await post('/oauth/destroy', { body: { client_id: pub } }), 'MISSING_PARAMETER');
    expectOAuthError(await post('/token', { raw: '{"client_id": ', contentType: 'application/json' }), 'INVALID_PARAMETER');
    const grant = { grant_type: 'password', client_id: pub };
    expectOAuthError(await post('/token', { body: grant }), 'INVALID_GRANT_TYPE');
    expectError(await post('/oauth/token', { body: grant }), 'INVALID_PARAMETER');
    expectOAuthError(await post('/token', { raw: 'client_id=x', contentType: 'text/plain' }), 'INVALID_CONTENT_TYPE');
    expectError(await post('/oauth/token', { raw: 'client_id=x', contentType: 'text/plain' }), 'UNSUPPORTED_MEDIA_TYPE');
  });

  /** A Hawk header for `path` with `token`; `key` replaces the token's MAC key (a forged signature). */
  function sign(method: string, path: string, token: string, body: unknown, key?: string) {
    const keys = deriveTokenKeys('sessionToken', token);
    return hawkHeader({
      method, url: `${t.url}/v1${path}`, credentials: { id: keys.tokenId, key: key ?? keys.authKey },
      payload: JSON.stringify(body), contentType: 'application/json', ts: Math.floor(t.clock!.now() / 1000),
    });
  }

  it('the session: unknown 401/104 vs 401/110, a forged signature 401/111 vs 401/109, unconfirmed 403/112 vs 400/138', async () => {
    const body = { client_id: pub, scope: 'profile', ...pkce };
    const ghost = randomHex(32);
    expectOAuthError(await post('/authorization', { body, authorization: sign('POST', '/authorization', ghost, body) }), 'INVALID_ASSERTION');
    expectError(await post('/oauth/authorization', { body, authorization: sign('POST', '/oauth/authorization', ghost, body) }), 'INVALID_TOKEN');
    const forged = randomHex(32);
    expectOAuthError(await post('/authorization', { body, authorization: sign('POST', '/authorization', session, body, forged) }), 'UNAUTHORIZED');
    expectError(await post('/oauth/authorization', { body, authorization: sign('POST', '/oauth/authorization', session, body, forged) }), 'INVALID_REQUEST_SIGNATURE');
    const list = {};
    expectOAuthError(await post('/authorized-clients', { body: list, authorization: sign('POST', '/authorized-clients', ghost, list) }), 'INVALID_ASSERTION');

    const unconfirmed = await t.accounts.signUp(newEmail(), 'unconfirmed password one');
    const [oauth, auth] = [later(t.client.authorization(unconfirmed.sessionToken, body)), later(t.client.oauthAuthorization(unconfirmed.sessionToken, body))];
    await expectError(oauth, 'FORBIDDEN', 403).then((e) => expect(e.errno).toBe(112));
    await expectError(auth, 'SESSION_UNVERIFIED', 400);
  }, 120_000);

  it('a session older than the account\'s keys: 400/119 on /key-data vs 401/164 on /account/scoped-key-data', async () => {
    const other = await verifiedAccount(t);
    // The keys changed after this session signed in (as a password reset elsewhere would do).
    await t.storage.db.updateTable('accounts').set({ keys_changed_at: t.clock!.now() + 60_000 }).where('uid', '=', other.uid).execute();
    const body = { client_id: pub, scope: 'profile' };
    expect((await expectError(t.client.keyData(other.sessionToken, body), 'STALE_AUTHENTICATION', 400)).body).toMatchObject({ errno: 119, authAt: expect.any(Number) });
    await expectError(t.client.accountScopedKeyData(other.sessionToken, body), 'STALE_AUTH_AT', 401);
  }, 120_000);

  it('keeps the shared shape for what has no OAuth twin: an unknown endpoint 404/999', async () => {
    const r = await rawRequest(t.url, 'GET', '/client');
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ errno: 999 });
    expect(r.body.info).toMatch(/#errno-999$/);
  });
});

describe.each(httpDialects())('rate limiting on the OAuth server\'s routes (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, env: { RATE_LIMIT_RULES: 'oauthClientInfo : ip : 2 : 15 minutes : 15 minutes : block' } });
  }, 120_000);
  afterAll(async () => t?.close());

  it('answers the shared 429/114 shape with retryAfter, not an OAuth errno', async () => {
    const id = randomHex(8);
    for (let i = 0; i < 2; i++) expectOAuthError(await rawRequest(t.url, 'GET', `/client/${id}`), 'UNKNOWN_CLIENT');
    const r = await rawRequest(t.url, 'GET', `/client/${id}`);
    expectError(r, 'THROTTLED');
    expect(r.body).toMatchObject({ code: 429, errno: 114, retryAfter: expect.any(Number) });
    expect(r.body.info).toMatch(/#errno-114$/);
    expect(r.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
